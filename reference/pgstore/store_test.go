package pgstore

import (
	"context"
	"crypto/sha256"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/conform-kit/conform/reference/ledger"
	"github.com/conform-kit/conform/reference/pgtest"
)

// TestPostgres runs against a real PostgreSQL: a throwaway cluster this
// test creates and removes (reference/pgtest), one database per case. The
// cases through a Server (bursts over replicas, a restart) are
// reference's TestPostgres.
func TestPostgres(t *testing.T) {
	cluster := pgtest.Start(t)

	t.Run("migrations apply once when replicas start together", func(t *testing.T) {
		dsn := cluster.NewDatabase(t, "migrate")
		var wg sync.WaitGroup
		errs := make([]error, 4)
		for i := range errs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				pg, err := Open(context.Background(), dsn)
				errs[i] = err
				if err == nil {
					pg.Close()
				}
			}()
		}
		wg.Wait()
		for i, err := range errs {
			assert.NoError(t, err, "replica %d", i)
		}
		pg := openStore(t, dsn)
		names, err := migrations.ReadDir("migrations")
		require.NoError(t, err)
		var applied int
		require.NoError(t, pg.pool.QueryRow(context.Background(), "SELECT count(*) FROM schema_migrations").Scan(&applied))
		assert.Equal(t, len(names), applied)
		rows, err := pg.pool.Query(context.Background(), `SELECT column_name FROM information_schema.columns WHERE table_name = 'outbox' ORDER BY column_name`)
		require.NoError(t, err)
		columns, err := pgx.CollectRows(rows, pgx.RowTo[string])
		require.NoError(t, err)
		assert.Equal(t, []string{"app", "created_ns", "delivered", "entity", "seq", "typ", "view"}, columns,
			"0008 dropped the outbox's claim time, which nothing wrote")
	})

	// The store's side of reference's "a claim whose replica died is taken
	// over once its lease has passed": here the retry waits out a short
	// lease, then owns the key (it runs the request); its outcome is what
	// the next claim replays.
	t.Run("a claim whose replica died is taken over after its lease", func(t *testing.T) {
		pg := openStore(t, cluster.NewDatabase(t, "lease"))
		pg.lease = 50 * time.Millisecond
		ctx := context.Background()
		key := ledger.IdemKey{App: "APorphaned", Op: "transfers.create", ID: "orphaned"}
		hash := sha256.Sum256([]byte(`{"amount":4300}`))
		// A replica claimed the key and was killed before it answered.
		_, err := pg.pool.Exec(ctx, `INSERT INTO idempotency_keys (app, op, id, hash, created_at, claimed_at)
			VALUES ($1, $2, $3, $4, now(), now())`, key.App, key.Op, key.ID, hash[:])
		require.NoError(t, err)
		e, owner, err := pg.Claim(ctx, key, hash, time.Now())
		require.NoError(t, err)
		require.True(t, owner, "the retry took the claim over: it runs the request")
		assert.NotEmpty(t, e.Holder, "under a holder token of its own")
		assert.Empty(t, e.Resumed, "the dead replica's unit committed nothing")
		var holder string
		require.NoError(t, pg.pool.QueryRow(ctx, `SELECT holder FROM idempotency_keys WHERE id = $1`, key.ID).Scan(&holder))
		assert.Equal(t, e.Holder, holder, "the key names its new holder")

		out := ledger.IdemOutcome{Status: 201, ContentType: "application/hal+json", Body: []byte(`{"id":"TRx"}`)}
		require.NoError(t, pg.Settle(ctx, key, e, true, out))
		replayed, owner, err := pg.Claim(ctx, key, hash, time.Now())
		require.NoError(t, err)
		assert.False(t, owner, "a settled key is not claimed again")
		assert.True(t, replayed.OK)
		assert.Equal(t, out, replayed.Out, "the retry's answer is replayed")
	})
}
