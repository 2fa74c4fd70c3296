package reference

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/conform-kit/conform/reference/ledger"
	"github.com/conform-kit/conform/reference/pgstore"
	"github.com/conform-kit/conform/reference/pgtest"
)

// sandboxReplica is a Server whose whole sandbox is on dsn, as one
// conform serve --store process of several.
func sandboxReplica(t *testing.T, dsn string, mutate ...func(*Config)) *harness {
	t.Helper()
	pg := openPostgres(t, dsn)
	h := newHarness(t, append([]func(*Config){func(c *Config) {
		c.Store = pg
		c.NewID = ledger.RandomID
	}}, mutate...)...)
	h.db = testPool(t, dsn)
	return h
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
			idempotentBurst(t, replicas, burst, round, body)
			var n int
			require.NoError(t, a.pgPool().QueryRow(context.Background(),
				`SELECT count(*) FROM records WHERE kind = 'transfer' AND doc->>'idempotency_id' = $1`, key).Scan(&n))
			assert.Equal(t, 1, n, "round %d: one transfer in the database", round)
		}
	})
}

// hookTarget is a webhook endpoint that answers each post with answer(n)
// (n: the post's number, from 1) and records the event id of every post.
type hookTarget struct {
	srv   *httptest.Server
	posts atomic.Int32
	mu    sync.Mutex
	ids   []string // event id of each post, in order
	ok    map[string]int
}

func newHookTarget(t *testing.T, answer func(n int32, r *http.Request) int) *hookTarget {
	t.Helper()
	h := &hookTarget{ok: map[string]int{}}
	h.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var ev event
		_ = json.Unmarshal(body, &ev)
		n := h.posts.Add(1)
		code := answer(n, r)
		h.mu.Lock()
		h.ids = append(h.ids, ev.ID)
		if code/100 == 2 {
			h.ok[ev.ID]++
		}
		h.mu.Unlock()
		w.WriteHeader(code)
	}))
	t.Cleanup(h.srv.Close)
	return h
}

func (h *hookTarget) snapshot() ([]string, map[string]int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	ok := make(map[string]int, len(h.ok))
	for k, v := range h.ok {
		ok[k] = v
	}
	return append([]string(nil), h.ids...), ok
}

func deliveryRow(t *testing.T, h *harness) (attempts int, done bool) {
	t.Helper()
	require.NoError(t, h.pgPool().QueryRow(context.Background(),
		`SELECT attempts, done FROM deliveries ORDER BY seq LIMIT 1`).Scan(&attempts, &done))
	return attempts, done
}

func TestPostgresWebhookRetriesSurviveTheReplica(t *testing.T) {
	cluster := pgtest.Start(t)

	t.Run("a replica closed between retries: another makes the rest", func(t *testing.T) {
		dsn := cluster.NewDatabase(t, "retries")
		target := newHookTarget(t, func(n int32, _ *http.Request) int {
			if n <= 2 {
				return http.StatusInternalServerError
			}
			return http.StatusOK
		})
		// a waits 0.9 s before its retry: it is closed before then.
		a := sandboxReplica(t, dsn, func(c *Config) { c.WebhookClient = target.srv.Client(); c.RetryScale = 0.01 })
		a.webhook(target.srv.URL, nil) // its created event goes to itself
		eventually(t, "the first attempt", func() bool { return target.posts.Load() >= 1 })
		eventually(t, "the retry scheduled", func() bool { n, _ := deliveryRow(t, a); return n == 1 && !a.leased(t) })
		require.NoError(t, a.srv.Close())
		require.EqualValues(t, 1, target.posts.Load(), "a made one attempt before it closed")

		b := sandboxReplica(t, dsn, func(c *Config) { c.WebhookClient = target.srv.Client() })
		eventually(t, "the delivery completed by b", func() bool { _, done := deliveryRow(t, b); return done })
		ids, ok := target.snapshot()
		require.Len(t, ids, 3, "two failures, then one success")
		assert.Equal(t, []string{ids[0], ids[0], ids[0]}, ids, "every attempt posts the one event")
		assert.Equal(t, map[string]int{ids[0]: 1}, ok)
		n, _ := deliveryRow(t, b)
		assert.Equal(t, 3, n)
	})

	t.Run("a claim whose lease ran out is taken over, and its late answer settles nothing", func(t *testing.T) {
		dsn := cluster.NewDatabase(t, "lease")
		release := make(chan struct{})
		target := newHookTarget(t, func(n int32, r *http.Request) int {
			if n == 1 {
				select { // the first post hangs, as if its replica had died mid-post
				case <-release:
				case <-r.Context().Done():
				}
			}
			return http.StatusOK
		})
		a := sandboxReplica(t, dsn, func(c *Config) { c.WebhookClient = target.srv.Client() })
		a.webhook(target.srv.URL, nil)
		eventually(t, "a's post", func() bool { return target.posts.Load() >= 1 })
		b := sandboxReplica(t, dsn, func(c *Config) { c.WebhookClient = target.srv.Client() })
		time.Sleep(3 * pgstore.ClaimEvery)
		assert.EqualValues(t, 1, target.posts.Load(), "a claimed row is nobody else's while its lease lasts")
		_, err := b.pgPool().Exec(context.Background(), `UPDATE deliveries SET lease_until = clock_timestamp() - interval '1 second'`)
		require.NoError(t, err)
		eventually(t, "b's post", func() bool { _, done := deliveryRow(t, b); return done })
		close(release)
		eventually(t, "a's post answered", func() bool { _, ok := target.snapshot(); return len(ok) == 1 && sum(ok) == 2 })
		time.Sleep(3 * pgstore.ClaimEvery)
		n, done := deliveryRow(t, b)
		assert.Equal(t, 2, n, "b's claim was the second attempt")
		assert.True(t, done)
		assert.EqualValues(t, 2, target.posts.Load(), "nothing posted after b's 2xx")
	})

	t.Run("each event is delivered once across two replicas", func(t *testing.T) {
		dsn := cluster.NewDatabase(t, "once")
		target := newHookTarget(t, func(int32, *http.Request) int { return http.StatusNoContent })
		a := sandboxReplica(t, dsn, func(c *Config) { c.WebhookClient = target.srv.Client() })
		b := sandboxReplica(t, dsn, func(c *Config) { c.WebhookClient = target.srv.Client() })
		a.webhook(target.srv.URL, nil)
		const n = 40
		for i := range n {
			h := []*harness{a, b}[i%2]
			h.expect(h.call(h.platform(), "POST", "/balance_transfers", map[string]any{"amount": 100 + i, "currency": "USD",
				"description": "x", "source": "OPERATING_ACCOUNT", "destination": "FOR_BENEFIT_OF_ACCOUNT", "processor_type": "LITLE_V1"}), 201, "balance_transfer")
		}
		eventually(t, "every event delivered", func() bool { _, ok := target.snapshot(); return len(ok) == n+1 })
		time.Sleep(5 * pgstore.ClaimEvery)
		ids, ok := target.snapshot()
		assert.Len(t, ids, n+1, "one post per event")
		for id, c := range ok {
			assert.Equal(t, 1, c, "event %s", id)
		}
		var pending int
		require.NoError(t, a.pgPool().QueryRow(context.Background(),
			`SELECT count(*) FROM deliveries WHERE NOT done`).Scan(&pending))
		assert.Zero(t, pending)
	})
}

// leased reports whether the first delivery row is claimed.
func (h *harness) leased(t *testing.T) bool {
	t.Helper()
	var leased bool
	require.NoError(t, h.pgPool().QueryRow(context.Background(),
		`SELECT lease_until IS NOT NULL FROM deliveries ORDER BY seq LIMIT 1`).Scan(&leased))
	return leased
}

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// TestPostgresTakeoverAnswersWhatTheDeadReplicaCommitted: a replica that
// dies between its unit of work's commit and recording the answer leaves
// its claim unfinished; the replica that takes the claim over once the
// lease has passed answers the resource that unit committed (the claim
// names it, written in the unit's transaction) instead of creating a second
// one, and emits no event again. A claim that died before its unit
// committed names nothing, and the takeover creates the resource.
func TestPostgresTakeoverAnswersWhatTheDeadReplicaCommitted(t *testing.T) {
	cluster := pgtest.Start(t)
	dsn := cluster.NewDatabase(t, "takeover")
	target := newHookTarget(t, func(int32, *http.Request) int { return http.StatusNoContent })
	h := sandboxReplica(t, dsn, func(c *Config) { c.WebhookClient = target.srv.Client() })
	h.webhook(target.srv.URL, nil) // the creates emit events
	pool := h.pgPool()
	ctx := context.Background()
	card := h.card()
	// orphan turns the key's finished claim into the one a replica dead
	// after its unit's commit leaves: unfinished, no answer, lease passed.
	orphan := func(t *testing.T, key string, committed bool) {
		t.Helper()
		q := `UPDATE idempotency_keys SET done = false, status = NULL, content_type = NULL, request_id = NULL, body = NULL,
			claimed_at = claimed_at - interval '1 hour'`
		if !committed {
			q += `, resource = NULL`
		}
		tag, err := pool.Exec(ctx, q+` WHERE id = $1`, key)
		require.NoError(t, err)
		require.EqualValues(t, 1, tag.RowsAffected())
	}
	count := func(t *testing.T, kind, key string) int {
		t.Helper()
		var n int
		require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM records WHERE kind = $1 AND doc->>'idempotency_id' = $2`, kind, key).Scan(&n))
		return n
	}
	events := func(t *testing.T) int {
		t.Helper()
		var n int
		require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM outbox`).Scan(&n))
		return n
	}
	for _, tc := range []struct {
		name, path, schema, kind string
		amount                   int
		status                   int
	}{
		{"a sale", "/transfers", "transfer", "transfer", 1500, 201},
		{"a declined sale", "/transfers", "error", "transfer", 102, 402},
		{"an authorization", "/authorizations", "authorization", "authorization", 1600, 201},
		{"a declined authorization", "/authorizations", "error", "authorization", 102, 402},
	} {
		t.Run(tc.name, func(t *testing.T) {
			key := "takeover-" + tc.name
			body := map[string]any{"source": card, "merchant": h.fx.Fixtures.Merchant, "amount": tc.amount, "currency": "USD", "idempotency_id": key}
			first := h.expect(h.call(h.platform(), "POST", tc.path, body), tc.status, tc.schema)
			require.Equal(t, 1, count(t, tc.kind, key))
			var resource *string
			require.NoError(t, pool.QueryRow(ctx, `SELECT resource FROM idempotency_keys WHERE id = $1`, key).Scan(&resource))
			require.NotNil(t, resource, "the unit named what it created in the claim")

			orphan(t, key, true)
			before := events(t)
			again := h.expect(h.call(h.platform(), "POST", tc.path, body), tc.status, tc.schema)
			assert.Equal(t, 1, count(t, tc.kind, key), "the takeover answers the committed resource, creates none")
			assert.Equal(t, before, events(t), "and emits nothing again")
			if tc.status == 201 {
				assert.Equal(t, first.str(t, "id"), again.str(t, "id"))
				assert.Equal(t, *resource, again.str(t, "id"))
			} else {
				assert.Contains(t, string(first.body), *resource, "the refusal names the failed resource")
				assert.Contains(t, string(again.body), *resource, "declined again, naming the one failed resource")
			}
			h.expect(h.call(h.platform(), "POST", tc.path, body), tc.status, tc.schema) // a retry now replays

			// Died before its unit committed: nothing to answer, the takeover creates it.
			_, err := pool.Exec(ctx, `DELETE FROM records WHERE kind = $1 AND doc->>'idempotency_id' = $2`, tc.kind, key)
			require.NoError(t, err)
			orphan(t, key, false)
			h.expect(h.call(h.platform(), "POST", tc.path, body), tc.status, tc.schema)
			assert.Equal(t, 1, count(t, tc.kind, key))
		})
	}
}

// TestPostgresClaimHolderIsFenced: a replica whose claim of a key is taken
// over while it still runs the request (it stalled past the lease, or its
// lease was ended for it) commits nothing: its unit checks, in its own
// transaction, that it still holds the claim. The key is one transfer, and
// both requests answer it. Before, both units committed: two transfers.
//
// The interleaving is made with a lock: the test holds the outbox table, so
// each replica's unit waits at its event's insert, inside its commit. The
// first replica claims the key and waits there; its lease is ended; the
// second takes the key over and waits there too; then the lock goes.
func TestPostgresClaimHolderIsFenced(t *testing.T) {
	cluster := pgtest.Start(t)
	dsn := cluster.NewDatabase(t, "fenced")
	target := newHookTarget(t, func(int32, *http.Request) int { return http.StatusNoContent })
	a := sandboxReplica(t, dsn, func(c *Config) { c.WebhookClient = target.srv.Client() })
	b := sandboxReplica(t, dsn, func(c *Config) { c.WebhookClient = target.srv.Client() })
	a.webhook(target.srv.URL, nil) // the sale emits an event: its unit inserts into the outbox
	pool := a.pgPool()
	ctx := context.Background()
	const key = "fenced-sale"
	body := map[string]any{"source": a.card(), "merchant": a.fx.Fixtures.Merchant, "amount": 1700, "currency": "USD", "idempotency_id": key}

	lock, err := pool.Begin(ctx)
	require.NoError(t, err)
	defer lock.Rollback(ctx) //nolint:errcheck // released below
	_, err = lock.Exec(ctx, `LOCK TABLE outbox IN SHARE MODE`)
	require.NoError(t, err)
	waiting := func(n int) {
		t.Helper()
		require.Eventually(t, func() bool {
			var got int
			require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity
				WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE 'INSERT INTO outbox%'`).Scan(&got))
			return got >= n
		}, 20*time.Second, 5*time.Millisecond, "%d units waiting at the outbox", n)
	}
	answers := make(chan response, 2)
	go func() { answers <- a.call(a.platform(), "POST", "/transfers", body) }()
	waiting(1)
	// The first replica's lease passes while it runs (as the replica
	// killed under load has its leases ended in the database).
	tag, err := pool.Exec(ctx, `UPDATE idempotency_keys SET claimed_at = claimed_at - interval '1 hour' WHERE id = $1 AND NOT done`, key)
	require.NoError(t, err)
	require.EqualValues(t, 1, tag.RowsAffected())
	go func() { answers <- b.call(b.platform(), "POST", "/transfers", body) }()
	waiting(2)
	require.NoError(t, lock.Commit(ctx))

	var ids []string
	for range 2 {
		r := <-answers
		require.Equal(t, 201, r.status, "%s", r.body)
		ids = append(ids, r.str(t, "id"))
	}
	assert.Equal(t, ids[0], ids[1], "both requests answer the one transfer")
	var n int
	require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM records WHERE kind = 'transfer' AND doc->>'idempotency_id' = $1`, key).Scan(&n))
	assert.Equal(t, 1, n, "transfers of the key")
	var resource string
	require.NoError(t, pool.QueryRow(ctx, `SELECT resource FROM idempotency_keys WHERE id = $1 AND done`, key).Scan(&resource))
	assert.Equal(t, ids[0], resource)
}

// TestPostgresCommittedClaimIsNotGivenUp: a request whose unit of work
// committed and which then fails (the commit's answer was lost: the
// connection broke, or the request was cancelled during the commit) gives
// its claim up, but a claim naming a resource is not deleted: the next
// request takes it over at once and answers that resource. Before, the
// claim was deleted and a retry made a second transfer.
func TestPostgresCommittedClaimIsNotGivenUp(t *testing.T) {
	cluster := pgtest.Start(t)
	dsn := cluster.NewDatabase(t, "given_up")
	h := sandboxReplica(t, dsn)
	pool := h.pgPool()
	ctx := context.Background()
	count := func(key string) int {
		var n int
		require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM records WHERE kind = 'transfer' AND doc->>'idempotency_id' = $1`, key).Scan(&n))
		return n
	}
	for _, tc := range []struct {
		name      string
		committed bool
	}{
		{"the unit committed", true},
		{"the unit committed nothing", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			key := "given-up-" + tc.name
			body := map[string]any{"source": h.card(), "merchant": h.fx.Fixtures.Merchant, "amount": 1800, "currency": "USD", "idempotency_id": key}
			first := h.expect(h.call(h.platform(), "POST", "/transfers", body), 201, "transfer").str(t, "id")
			// Back to the claim as it was once the unit's commit was done
			// (or, uncommitted, before it), the request still running.
			q := `UPDATE idempotency_keys SET done = false, status = NULL, content_type = NULL, request_id = NULL, body = NULL`
			if !tc.committed {
				_, err := pool.Exec(ctx, `DELETE FROM records WHERE kind = 'transfer' AND doc->>'idempotency_id' = $1`, key)
				require.NoError(t, err)
				q += `, resource = NULL`
			}
			_, err := pool.Exec(ctx, q+` WHERE id = $1`, key)
			require.NoError(t, err)
			var k ledger.IdemKey
			e := &ledger.IdemEntry{Done: make(chan struct{})}
			require.NoError(t, pool.QueryRow(ctx, `SELECT app, op, id, holder FROM idempotency_keys WHERE id = $1`, key).Scan(&k.App, &k.Op, &k.ID, &e.Holder))
			// The request fails after its commit: it gives the claim up.
			require.NoError(t, h.srv.units.Settle(ctx, k, e, false, ledger.IdemOutcome{}))

			again := h.expect(h.call(h.platform(), "POST", "/transfers", body), 201, "transfer").str(t, "id")
			assert.Equal(t, 1, count(key), "transfers of the key")
			if tc.committed {
				assert.Equal(t, first, again, "the retry answers the transfer committed")
			} else {
				assert.NotEqual(t, first, again, "nothing committed: the retry creates it")
			}
		})
	}
}

// idempotentBurst sends n copies of one idempotent sale at once, spread in
// turn over the replicas, and asserts each was answered 201 with the one
// transfer.
func idempotentBurst(t *testing.T, replicas []*harness, n, round int, body map[string]any) {
	t.Helper()
	ids := make([]string, n)
	statuses := make([]int, n)
	var wg sync.WaitGroup
	for i := range ids {
		h := replicas[i%len(replicas)]
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
}
