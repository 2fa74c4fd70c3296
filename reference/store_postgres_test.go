package reference

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/conform-kit/conform/reference/ledger"
	"github.com/conform-kit/conform/reference/pgtest"
)

// replica is a Server on a shared PostgresStore, as one conform serve
// process of several on one database.
func replica(t *testing.T, pg *PostgresStore) *harness {
	t.Helper()
	return newHarness(t, func(c *Config) {
		c.Store = PostgresLedger(pg)
		c.NewID = ledger.RandomID // replicas draw ids independently, as separate processes do
	})
}

// seededCard is the card the seed made for the seeded dispute: the same id
// on every replica with the same seed.
func seededCard(t *testing.T, h *harness) string {
	t.Helper()
	app := appOf(t, h, h.fx.Credentials.Platform)
	for _, c := range held(h.srv.memory()).cards.got {
		if c.App == app {
			return c.ID
		}
	}
	t.Fatal("no seeded card")
	return ""
}

func transferCount(h *harness) int {
	return h.srv.memory().Counts()["transfers"]
}

func openPostgres(t *testing.T, dsn string) *PostgresStore {
	t.Helper()
	pg, err := OpenPostgres(context.Background(), dsn)
	require.NoError(t, err)
	t.Cleanup(pg.Close)
	return pg
}

// TestPostgres runs against a real PostgreSQL: a throwaway cluster this
// test creates and removes (reference/pgtest), one database per case. The
// cases of the store alone (migrations, a lease) are pgstore's TestPostgres.
func TestPostgres(t *testing.T) {
	cluster := pgtest.Start(t)

	t.Run("idempotency bursts over two replicas run once", func(t *testing.T) {
		dsn := cluster.NewDatabase(t, "bursts")
		a, b := replica(t, openPostgres(t, dsn)), replica(t, openPostgres(t, dsn))
		card := seededCard(t, a)
		require.Equal(t, card, seededCard(t, b), "replicas with one seed hold the same fixtures")
		before := transferCount(a) + transferCount(b)
		for round := range 10 {
			body := map[string]any{"source": card, "merchant": a.fx.Fixtures.Merchant, "amount": 200 + round, "currency": "USD", "idempotency_id": fmt.Sprint("burst-", round)}
			idempotentBurst(t, []*harness{a, b}, 50, round, body)
		}
		assert.Equal(t, before+10, transferCount(a)+transferCount(b), "one transfer a round across both replicas")
		other := map[string]any{"source": card, "merchant": a.fx.Fixtures.Merchant, "amount": 999, "currency": "USD", "idempotency_id": "burst-0"}
		b.expect(b.call(b.platform(), "POST", "/transfers", other), 422, "error")
	})

	t.Run("a restart keeps every idempotency key", func(t *testing.T) {
		dsn := cluster.NewDatabase(t, "restart")
		pg, err := OpenPostgres(context.Background(), dsn)
		require.NoError(t, err)
		first, err := New(Config{BaseURL: testBase, Seed: 7, Store: PostgresLedger(pg)})
		require.NoError(t, err)
		h := &harness{t: t, srv: first, clock: newClock(), fx: first.Seeded(), v: replica(t, pg).v}
		body := map[string]any{"source": seededCard(t, h), "merchant": h.fx.Fixtures.Merchant, "amount": 4200, "currency": "USD", "idempotency_id": "survives"}
		id := h.expect(h.call(h.platform(), "POST", "/transfers", body), 201, "transfer").str(t, "id")
		require.NoError(t, first.Close())
		pg.Close()

		again := replica(t, openPostgres(t, dsn))
		r := again.expect(again.call(again.platform(), "POST", "/transfers", body), 201, "transfer")
		assert.Equal(t, id, r.str(t, "id"), "the retry after a restart replays the first answer")
		assert.Equal(t, 0, transferCount(again)-transferCount(replica(t, openPostgres(t, dsn))), "the retry created nothing")
	})

	// The store's own test (reference/pgstore) waits out a short lease;
	// here the dead replica's claim is an hour old, its 30 s lease passed.
	t.Run("a claim whose replica died is taken over once its lease has passed", func(t *testing.T) {
		dsn := cluster.NewDatabase(t, "lease")
		h := replica(t, openPostgres(t, dsn))
		body := map[string]any{"source": seededCard(t, h), "merchant": h.fx.Fixtures.Merchant, "amount": 4300, "currency": "USD", "idempotency_id": "orphaned"}
		hash := canonicalHashOf(t, h, body)
		app := appOf(t, h, h.fx.Credentials.Platform)
		// A replica claimed the key and was killed before it answered.
		_, err := testPool(t, dsn).Exec(context.Background(), `INSERT INTO idempotency_keys (app, op, id, hash, created_at, claimed_at)
			VALUES ($1, 'transfers.create', 'orphaned', $2, now(), now() - interval '1 hour')`, app, hash[:])
		require.NoError(t, err)
		before := transferCount(h)
		r := h.expect(h.call(h.platform(), "POST", "/transfers", body), 201, "transfer")
		assert.Equal(t, before+1, transferCount(h), "the retry ran the request")
		replayed := h.expect(h.call(h.platform(), "POST", "/transfers", body), 201, "transfer")
		assert.Equal(t, r.str(t, "id"), replayed.str(t, "id"))
	})
}

// canonicalHashOf is the idempotency hash of a transfer body, as the
// server computes it.
func canonicalHashOf(t *testing.T, h *harness, body map[string]any) [32]byte {
	t.Helper()
	b, err := json.Marshal(body)
	require.NoError(t, err)
	doc, err := h.srv.v.DecodeRequest("transfers.create", b)
	require.NoError(t, err)
	var in ledger.TransferCreate
	require.NoError(t, decodeTree(doc, &in))
	hash, err := canonicalHash((*saleBody)(&in))
	require.NoError(t, err)
	return hash
}

// ledgerHarness makes a harness whose idempotency keys live in one of the
// three ledgers.
type ledgerHarness struct {
	name string
	h    func(t *testing.T) *harness
}

// ledgerHarnesses are the three ledgers of idempotency keys: the memory
// store's, the PostgreSQL ledger beside memory resources, and the PostgreSQL
// sandbox's, each configured by limits.
func ledgerHarnesses(cluster *pgtest.Cluster, limits func(*Config)) []ledgerHarness {
	return []ledgerHarness{
		{"memory", func(t *testing.T) *harness { return newHarness(t, limits) }},
		{"postgres ledger", func(t *testing.T) *harness {
			pg := openPostgres(t, cluster.NewDatabase(t, "ledger"))
			return newHarness(t, limits, func(c *Config) { c.Store = PostgresLedger(pg) })
		}},
		{"postgres sandbox", func(t *testing.T) *harness {
			return sandboxReplica(t, cluster.NewDatabase(t, "sandbox"), limits)
		}},
	}
}

// TestLedgerBoundsKeys: an application holds at most MaxRetained
// idempotency keys in either ledger; one more new key is 429
// QUOTA_EXCEEDED, a retry of a held key still replays, and another
// application is not held back. The requests fail after their key is
// claimed (an unknown source), so only keys count, no resource.
func TestLedgerBoundsKeys(t *testing.T) {
	cluster := pgtest.Start(t)
	limits := func(c *Config) { c.Limits = ledger.Limits{MaxRetained: 3, MaxAge: -1} }
	for _, tc := range ledgerHarnesses(cluster, limits) {
		t.Run(tc.name, func(t *testing.T) {
			h := tc.h(t)
			body := func(key string) map[string]any {
				return map[string]any{"source": "PIxxxxxxxxxxxxxxxxxxxxxx", "merchant": h.fx.Fixtures.Merchant,
					"amount": 100, "currency": "USD", "idempotency_id": key}
			}
			first := h.call(h.platform(), "POST", "/transfers", body("k0"))
			require.Equal(t, 4, first.status/100, "%s", first.body)
			require.NotEqual(t, 429, first.status)
			for _, key := range []string{"k1", "k2"} {
				assert.Equal(t, first.status, h.call(h.platform(), "POST", "/transfers", body(key)).status, key)
			}
			over := h.expect(h.call(h.platform(), "POST", "/transfers", body("k3")), 429, "error")
			assert.Contains(t, string(over.body), "QUOTA_EXCEEDED")
			assert.Contains(t, string(over.body), "idempotency keys")
			again := h.call(h.platform(), "POST", "/transfers", body("k0"))
			assert.Equal(t, first.status, again.status, "a held key still replays")
			assert.Equal(t, first.body, again.body)
			other := h.call(h.fx.Credentials.OtherApplication, "POST", "/transfers", body("k3"))
			assert.NotEqual(t, 429, other.status, "another application holds its own keys")
		})
	}
}

// TestExpiredKeyIsAbsent: an idempotency key older than the age limit is
// absent when it is read, before any sweep: its retry runs afresh, in
// memory and on PostgreSQL alike, and counts once against the
// application's keys.
func TestExpiredKeyIsAbsent(t *testing.T) {
	cluster := pgtest.Start(t)
	limits := func(c *Config) { c.Limits = ledger.Limits{MaxAge: time.Hour, MaxRetained: 2} }
	for _, tc := range ledgerHarnesses(cluster, limits) {
		t.Run(tc.name, func(t *testing.T) {
			h := tc.h(t)
			// A refusal is answered and kept as any answer: its request id
			// tells a replay from a fresh run.
			body := func(key string, amount int) map[string]any {
				return map[string]any{"source": "PIunknown", "merchant": h.fx.Fixtures.Merchant, "amount": amount, "currency": "USD", "idempotency_id": key}
			}
			post := func(key string, amount, status int) string {
				t.Helper()
				r := h.expect(h.call(h.platform(), "POST", "/transfers", body(key, amount)), status, "error")
				return r.header.Get("X-Request-Id")
			}
			first := post("k", 100, 422)
			h.clock.Advance(59 * time.Minute)
			assert.Equal(t, first, post("k", 100, 422), "a key younger than the age limit replays")
			h.clock.Advance(2 * time.Minute)
			again := post("k", 100, 422)
			assert.NotEqual(t, first, again, "the key aged out: its retry runs afresh")
			assert.Equal(t, again, post("k", 100, 422), "and is the key's answer from then on")
			post("k2", 100, 422)
			over := h.expect(h.call(h.platform(), "POST", "/transfers", body("k3", 100)), 429, "error")
			assert.Contains(t, string(over.body), "idempotency keys", "k and k2 held: the aged-out k counted once")
		})
	}
}
