package pgstore

import (
	"context"
	"crypto/sha256"
	"errors"
	"testing"
	"time"

	"github.com/conform-kit/conform/reference/ledger"
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
	err := pg.units.Update(ctx, pg.appA, func(u ledger.Tx) error {
		u.Outbox().Emit("transfer", "created", map[string]any{"id": "TR_x"})
		u.Outbox().After(time.Minute, ledger.TimerFileReview, "FI_x", "http://127.0.0.1:1")
		return refused
	})
	require.ErrorIs(t, err, refused)
	events, timers := rows()
	assert.Zero(t, events, "a failed unit writes no event")
	assert.Zero(t, timers, "a failed unit sets no timer")

	require.NoError(t, pg.units.Update(ctx, pg.appA, func(u ledger.Tx) error {
		u.Outbox().Emit("transfer", "created", map[string]any{"id": "TR_x"})
		u.Outbox().After(time.Minute, ledger.TimerFileReview, "FI_x", "http://127.0.0.1:1")
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

	pg.units.Sweep(ctx, pg.clock.Now(), 0)
	events, timers = rows()
	assert.Equal(t, 1, events, "an undelivered event stays")
	assert.Equal(t, 1, timers, "a timer not run stays")
	_, err = pg.units.pool.Exec(ctx, `UPDATE outbox SET delivered = true`)
	require.NoError(t, err)
	_, err = pg.units.pool.Exec(ctx, `UPDATE timers SET done = true`)
	require.NoError(t, err)
	pg.units.Sweep(ctx, pg.clock.Now(), 0)
	events, timers = rows()
	assert.Zero(t, events, "a delivered event is swept")
	assert.Zero(t, timers, "a run timer is swept")
}

func TestPostgresUnitLinkOwner(t *testing.T) {
	pg := openSeamPostgres(t)
	ctx := context.Background()
	require.NoError(t, pg.units.Update(ctx, pg.appB, func(u ledger.Tx) error {
		u.Links().Put(&ledger.ExternalLink{Meta: ledger.NewMeta("EL_owned", u.App(), u.Now()), FileID: "FI_y"})
		return nil
	}))
	app, ok := pg.units.LinkOwner(ctx, "EL_owned")
	assert.True(t, ok)
	assert.Equal(t, pg.appB, app)
	_, ok = pg.units.LinkOwner(ctx, "EL_unknown")
	assert.False(t, ok)
}

// forEachSandbox runs the sandbox's contract (users, namespaces, sweep)
// against the in-memory store and the PostgreSQL one.
func forEachSandbox(t *testing.T, contract func(t *testing.T, s ledger.SandboxStore, fx ledger.Seeded, c *clock)) {
	t.Run("memory", func(t *testing.T) {
		m := seamFixture(t)
		contract(t, m.st, m.fx, m.clock)
	})
	t.Run("postgres", func(t *testing.T) {
		pg := openSeamPostgres(t)
		contract(t, pg.units, pg.fx, pg.clock)
	})
}

func TestSandboxStoreUsers(t *testing.T) {
	forEachSandbox(t, func(t *testing.T, s ledger.SandboxStore, fx ledger.Seeded, c *clock) {
		ctx := context.Background()
		cred := fx.Credentials.Platform
		u, ok := s.User(ctx, cred.Username, c.Now())
		require.True(t, ok)
		assert.Equal(t, ledger.RolePlatform, u.Role)
		assert.Equal(t, u.WantDigest(), u.PasswordDigest(cred.Password), "the right password")
		assert.NotEqual(t, u.WantDigest(), u.PasswordDigest(cred.Password+"x"), "a wrong password")
		assert.NotEqual(t, u.WantDigest(), u.PasswordDigest(""), "no password")
		_, ok = s.User(ctx, "USnobody", c.Now())
		assert.False(t, ok)
	})
}

func TestSandboxStoreNamespaces(t *testing.T) {
	forEachSandbox(t, func(t *testing.T, s ledger.SandboxStore, _ ledger.Seeded, c *clock) {
		ctx := context.Background()
		base := s.NamespaceCount(ctx)
		ns, err := s.MintNamespace(ctx, ledger.NewSeededSource(41), 0, time.Hour, c.Now())
		require.NoError(t, err)
		assert.Equal(t, base+1, s.NamespaceCount(ctx))
		u, ok := s.User(ctx, ns.Credentials.Platform.Username, c.Now())
		require.True(t, ok, "the namespace's user")
		assert.Equal(t, u.WantDigest(), u.PasswordDigest(ns.Credentials.Platform.Password))
		readDispute := func(u ledger.Tx) error { _, err := u.Disputes().Get(ns.Fixtures.Dispute); return err }
		require.NoError(t, s.View(ctx, u.App, readDispute), "its seeded dispute")

		_, err = s.MintNamespace(ctx, ledger.NewSeededSource(42), base+1, time.Hour, c.Now())
		var de *ledger.DomainError
		if assert.ErrorAs(t, err, &de, "beyond the most namespaces") {
			assert.Equal(t, ledger.KindQuotaExceeded, de.Kind)
		}
		assert.Equal(t, base+1, s.NamespaceCount(ctx), "a refused namespace is not held")

		assert.True(t, s.DropNamespace(ctx, ns.ID))
		assert.False(t, s.DropNamespace(ctx, ns.ID), "dropped already")
		assert.Equal(t, base, s.NamespaceCount(ctx))
		_, ok = s.User(ctx, ns.Credentials.Platform.Username, c.Now())
		assert.False(t, ok, "its users went with it")
		err = s.View(ctx, u.App, readDispute)
		if assert.ErrorAs(t, err, &de, "its records went with it") {
			assert.Equal(t, ledger.KindNotFound, de.Kind)
		}
	})
}

func TestSandboxStoreSweepDropsIdleNamespaces(t *testing.T) {
	forEachSandbox(t, func(t *testing.T, s ledger.SandboxStore, _ ledger.Seeded, c *clock) {
		ctx := context.Background()
		start := c.Now()
		idle, err := s.MintNamespace(ctx, ledger.NewSeededSource(51), 0, time.Hour, start)
		require.NoError(t, err)
		used, err := s.MintNamespace(ctx, ledger.NewSeededSource(52), 0, time.Hour, start)
		require.NoError(t, err)
		_, ok := s.User(ctx, used.Credentials.Platform.Username, start.Add(90*time.Minute))
		require.True(t, ok)
		s.Sweep(ctx, start.Add(2*time.Hour), time.Hour)
		_, ok = s.User(ctx, idle.Credentials.Platform.Username, start.Add(2*time.Hour))
		assert.False(t, ok, "the namespace idle for two hours was dropped")
		_, ok = s.User(ctx, used.Credentials.Platform.Username, start.Add(2*time.Hour))
		assert.True(t, ok, "the one used 30 minutes ago stays")
	})
}

func TestPostgresKeepsNoPassword(t *testing.T) {
	pg := openSeamPostgres(t)
	ctx := context.Background()
	rows, err := pg.units.pool.Query(ctx, `SELECT username, salt, hash FROM users`)
	require.NoError(t, err)
	defer rows.Close()
	passwords := []string{pg.fx.Credentials.Platform.Password, pg.fx.Credentials.Merchant.Password, pg.fx.Credentials.OtherApplication.Password}
	n := 0
	for rows.Next() {
		var name string
		var salt, hash []byte
		require.NoError(t, rows.Scan(&name, &salt, &hash))
		n++
		assert.Len(t, salt, 16)
		for _, p := range passwords {
			assert.NotContains(t, string(hash), p)
			assert.NotEqual(t, sha256.Sum256([]byte(p)), [32]byte(hash), "unsalted")
		}
	}
	require.NoError(t, rows.Err())
	assert.Equal(t, 3, n, "the seeded users")
}

// The totals an application holds against --retain and --retain-mib are
// kept beside its units (migration 0005): a create adds to them, a unit
// dropped by age takes its share back.
func TestPostgresRetainedTotalsFollowExpiry(t *testing.T) {
	pg := openSeamPostgres(t)
	pg.units.limits = &ledger.Limits{MaxAge: time.Hour}
	ctx := context.Background()
	read := func() ledger.Usage {
		var u ledger.Usage
		require.NoError(t, pg.units.Update(ctx, pg.appA, func(tu ledger.Tx) error {
			var ok bool
			u, ok = tu.Quota().Usage()
			require.True(t, ok)
			return nil
		}))
		return u
	}
	before := read()
	var ids []string
	for i := range 3 {
		require.NoError(t, pg.units.Update(ctx, pg.appA, func(t ledger.Tx) error {
			in := ledger.BalanceTransferCreate{Amount: 10 + int64(i), Currency: "USD"}
			in.SetSize(100 * (i + 1))
			b, err := ledger.CreateBalanceTransfer(t, in)
			ids = append(ids, b.ID)
			return err
		}))
	}
	held := read()
	assert.Equal(t, before.Retained+3, held.Retained)
	assert.Equal(t, before.Bytes+ledger.Cost(100)+ledger.Cost(200)+ledger.Cost(300), held.Bytes)

	pg.clock.Advance(2 * time.Hour)
	after := read()
	assert.Equal(t, before.Retained, after.Retained, "the expired units' count is given back")
	assert.Equal(t, before.Bytes, after.Bytes, "and their bytes")
	for _, id := range ids {
		err := pg.units.View(ctx, pg.appA, func(u ledger.Tx) error {
			_, err := u.BalanceTransfers().Get(id)
			return err
		})
		assert.Error(t, err, "%s expired with its unit", id)
	}
}
