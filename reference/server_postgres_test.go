package reference

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/conform-kit/conform/reference/pgtest"
)

// sandboxReplica is a Server whose whole sandbox is on dsn, as one
// conform serve --store process of several.
func sandboxReplica(t *testing.T, dsn string) *harness {
	t.Helper()
	pg := openPostgres(t, dsn)
	return newHarness(t, func(c *Config) {
		c.Postgres, c.PostgresSandbox = pg, true
		c.NewID = randomID
	})
}

func TestPostgresSandboxReplicasAreOneSandbox(t *testing.T) {
	cluster := pgtest.Start(t)
	dsn := cluster.NewDatabase(t, "sandbox")
	a, b := sandboxReplica(t, dsn), sandboxReplica(t, dsn)
	require.Equal(t, a.fx, b.fx, "replicas with one seed have the same credentials and fixtures")

	body := map[string]any{"amount": 4321, "currency": "USD", "description": "x", "source": "OPERATING_ACCOUNT",
		"destination": "FOR_BENEFIT_OF_ACCOUNT", "processor_type": "LITLE_V1"}
	id := a.expect(a.call(a.platform(), "POST", "/balance_transfers", body), 201, "balance_transfer").str(t, "id")
	r := b.expect(b.call(b.platform(), "GET", "/balance_transfers/"+id, nil), 200, "balance_transfer")
	assert.EqualValues(t, 4321, r.json(t)["amount"], "made through one replica, read through the other")
	b.expect(b.call(b.fx.Credentials.OtherApplication, "GET", "/balance_transfers/"+id, nil), 404, "error")

	ns, err := a.srv.CreateNamespace()
	require.NoError(t, err)
	assert.Equal(t, 1, b.srv.NamespaceCount(), "a namespace minted through one replica is the other's")
	b.expect(b.call(ns.Credentials.Platform, "GET", "/balance_transfers/"+ns.Fixtures.BalanceTransfer, nil), 200, "balance_transfer")
	require.NoError(t, b.srv.DropNamespace(ns.ID))
	b.expect(a.call(ns.Credentials.Platform, "GET", "/balance_transfers/"+ns.Fixtures.BalanceTransfer, nil), 401, "error")

	require.NoError(t, a.srv.Close())
	again := sandboxReplica(t, dsn)
	assert.Equal(t, a.fx, again.fx)
	again.expect(again.call(again.platform(), "GET", "/balance_transfers/"+id, nil), 200, "balance_transfer")
}

func TestPostgresSandboxBurstsOverReplicas(t *testing.T) {
	cluster := pgtest.Start(t)
	dsn := cluster.NewDatabase(t, "bursts")
	a, b := sandboxReplica(t, dsn), sandboxReplica(t, dsn)
	replicas := []*harness{a, b}
	card := a.card()
	const burst = 20

	t.Run("a capture runs once", func(t *testing.T) {
		for round := range 3 {
			id := a.expect(a.call(a.platform(), "POST", "/authorizations", authBody(card, map[string]any{"merchant": a.fx.Fixtures.Merchant})), 201, "authorization").str(t, "id")
			statuses := make([]int, burst)
			var wg sync.WaitGroup
			for i := range statuses {
				h := replicas[i%2]
				wg.Add(1)
				go func() {
					defer wg.Done()
					statuses[i] = h.call(h.platform(), "PUT", "/authorizations/"+id, map[string]any{"capture_amount": 800}).status
				}()
			}
			wg.Wait()
			captured := 0
			for i, st := range statuses {
				if st == 200 {
					captured++
				} else {
					assert.Equal(t, 422, st, "round %d request %d: a capture after the capture is refused", round, i)
				}
			}
			assert.Equal(t, 1, captured, "round %d: one capture across both replicas", round)
		}
	})

	t.Run("an idempotent create runs once", func(t *testing.T) {
		for round := range 3 {
			key := fmt.Sprint("replicas-", round)
			body := map[string]any{"source": card, "merchant": a.fx.Fixtures.Merchant, "amount": 300 + round, "currency": "USD", "idempotency_id": key}
			ids := make([]string, burst)
			statuses := make([]int, burst)
			var wg sync.WaitGroup
			for i := range ids {
				h := replicas[i%2]
				wg.Add(1)
				go func() {
					defer wg.Done()
					r := h.call(h.platform(), "POST", "/transfers", body)
					statuses[i] = r.status
					if r.status == 201 {
						ids[i] = r.str(t, "id")
					}
				}()
			}
			wg.Wait()
			for i := range ids {
				assert.Equal(t, 201, statuses[i], "round %d request %d", round, i)
				assert.Equal(t, ids[0], ids[i], "round %d request %d replays the one transfer", round, i)
			}
			var n int
			require.NoError(t, a.srv.cfg.Postgres.pool.QueryRow(context.Background(),
				`SELECT count(*) FROM records WHERE kind = 'transfer' AND doc->>'idempotency_id' = $1`, key).Scan(&n))
			assert.Equal(t, 1, n, "round %d: one transfer in the database", round)
		}
	})
}
