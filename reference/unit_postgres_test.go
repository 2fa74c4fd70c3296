package reference

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// What only the PostgreSQL store shows: its outbox and timers are rows
// committed with the unit's transaction.

func TestPostgresUnitOutboxRows(t *testing.T) {
	pg := openSeamPostgres(t)
	ctx := context.Background()
	rows := func() (events, timers int) {
		require.NoError(t, pg.units.pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM outbox WHERE app = $1), (SELECT count(*) FROM timers WHERE app = $1)`, pg.appA).Scan(&events, &timers))
		return events, timers
	}
	refused := errors.New("refused")
	err := pg.units.Update(ctx, pg.appA, func(u tx) error {
		u.Outbox().Emit("transfer", "created", map[string]any{"id": "TR_x"})
		u.Outbox().After(time.Minute, timerFileReview, "FI_x", "http://127.0.0.1:1")
		return refused
	})
	require.ErrorIs(t, err, refused)
	events, timers := rows()
	assert.Zero(t, events, "a failed unit writes no event")
	assert.Zero(t, timers, "a failed unit sets no timer")

	require.NoError(t, pg.units.Update(ctx, pg.appA, func(u tx) error {
		u.Outbox().Emit("transfer", "created", map[string]any{"id": "TR_x"})
		u.Outbox().After(time.Minute, timerFileReview, "FI_x", "http://127.0.0.1:1")
		return nil
	}))
	events, timers = rows()
	assert.Equal(t, 1, events)
	assert.Equal(t, 1, timers)
	var view string
	var due int64
	require.NoError(t, pg.units.pool.QueryRow(ctx, `SELECT o.view::text, t.due_ns FROM outbox o, timers t WHERE o.app = $1 AND t.app = $1`, pg.appA).Scan(&view, &due))
	assert.JSONEq(t, `{"id":"TR_x"}`, view)
	assert.Equal(t, pg.clock.Now().Add(time.Minute).UnixNano(), due, "due a minute after the unit's time")
}

func TestPostgresUnitLinkOwner(t *testing.T) {
	pg := openSeamPostgres(t)
	ctx := context.Background()
	require.NoError(t, pg.units.Update(ctx, pg.appB, func(u tx) error {
		u.Links().Put(&externalLink{meta: newMeta("EL_owned", u.App(), u.Now()), FileID: "FI_y"})
		return nil
	}))
	app, ok := pg.units.LinkOwner(ctx, "EL_owned")
	assert.True(t, ok)
	assert.Equal(t, pg.appB, app)
	_, ok = pg.units.LinkOwner(ctx, "EL_unknown")
	assert.False(t, ok)
}
