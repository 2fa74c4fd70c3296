package reference

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/conform-kit/conform/reference/ledger"
	"github.com/conform-kit/conform/reference/pgstore"
	"github.com/conform-kit/conform/reference/pgtest"
)

// cardTarget is a webhook endpoint answering every post with status, and
// recording the card each delivered event is about.
type cardTarget struct {
	srv   *httptest.Server
	posts atomic.Int32
	mu    sync.Mutex
	cards []string
}

func newCardTarget(t *testing.T, status int) *cardTarget {
	t.Helper()
	c := &cardTarget{}
	c.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		c.posts.Add(1)
		var ev struct {
			Embedded struct {
				Cards []struct {
					ID string `json:"id"`
				} `json:"payment_instruments"`
			} `json:"_embedded"`
		}
		if json.Unmarshal(body, &ev) == nil && len(ev.Embedded.Cards) == 1 && status/100 == 2 {
			c.mu.Lock()
			c.cards = append(c.cards, ev.Embedded.Cards[0].ID)
			c.mu.Unlock()
		}
		w.WriteHeader(status)
	}))
	t.Cleanup(c.srv.Close)
	return c
}

func (c *cardTarget) delivered() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.cards)
}

// TestPendingDeliveriesAreBounded: a webhook whose target fails holds at
// most Limits.PendingDeliveries pending deliveries, in memory and in
// PostgreSQL; each one more drops the oldest pending, which makes no
// attempt after that, so a target that comes back (here: the webhook's url
// updated between the first attempt and the retry) gets the newest events
// and none of the dropped ones.
func TestPendingDeliveriesAreBounded(t *testing.T) {
	const bound, cards = 3, 10
	// The server's warnings and errors (a dropped delivery, a settlement
	// that failed) are said when the deliveries do not settle.
	var logMu sync.Mutex
	var logs bytes.Buffer
	configure := func(c *Config) {
		c.Logger = slog.New(slog.NewTextHandler(&lockedWriter{mu: &logMu, w: &logs}, &slog.HandlerOptions{Level: slog.LevelWarn}))
		c.Limits.PendingDeliveries = bound
		// The first retry 18 s after the first attempt, the fifth 246 s
		// after it: the webhook's deliveries are still pending when its
		// url changes, however slowly a loaded machine made the cards (at
		// 0.05 the five retries, 61.5 s, were spent before the url changed
		// at a load of 10 on PostgreSQL under the race detector).
		c.RetryScale = 0.2
	}
	var cluster *pgtest.Cluster
	stores := []struct {
		name    string
		open    func(t *testing.T) *harness
		pending func(t *testing.T, h *harness, app, hook string) int
		// published: every event of app made so far is a delivery (the
		// PostgreSQL outbox is published in batches, after the request).
		published func(t *testing.T, h *harness, app string) bool
	}{
		{"memory",
			func(t *testing.T) *harness { return newHarness(t, configure) },
			func(_ *testing.T, h *harness, app, hook string) int { return h.srv.pendingCount(app, hook) },
			func(*testing.T, *harness, string) bool { return true }}, // published within the request
		{"postgres",
			func(t *testing.T) *harness {
				if cluster == nil {
					cluster = pgtest.Start(t)
				}
				return sandboxReplica(t, cluster.NewDatabase(t, "pending"), configure)
			},
			func(t *testing.T, h *harness, app, hook string) int {
				var n int
				require.NoError(t, h.pgPool().QueryRow(context.Background(),
					`SELECT count(*) FROM deliveries WHERE app = $1 AND webhook = $2 AND NOT done`, app, hook).Scan(&n))
				return n
			},
			func(t *testing.T, h *harness, app string) bool {
				var left bool
				require.NoError(t, h.pgPool().QueryRow(context.Background(),
					`SELECT EXISTS (SELECT 1 FROM outbox WHERE app = $1 AND NOT delivered)`, app).Scan(&left))
				return !left
			}},
	}
	for _, st := range stores {
		t.Run(st.name, func(t *testing.T) {
			h := st.open(t)
			gone, back := newCardTarget(t, http.StatusServiceUnavailable), newCardTarget(t, http.StatusOK)
			wh := h.webhook(gone.srv.URL, map[string]any{"enabled_events": []any{map[string]any{"entity": "payment_instrument", "types": []any{"created"}}}})
			app, hook := wh["application"].(string), wh["id"].(string)
			var ids []string
			for range cards {
				ids = append(ids, h.card())
				require.LessOrEqual(t, st.pending(t, h, app, hook), bound)
			}
			// Every card's event a delivery, the oldest beyond the bound
			// dropped: only then does the url change, or a delivery of a
			// batch published later could be posted to the new url
			// before the bound drops it (a test that once waited only for
			// the count saw 5 or 6 deliveries there, the dropped ones too).
			eventually(t, "the deliveries beyond the bound dropped", func() bool {
				return st.published(t, h, app) && st.pending(t, h, app, hook) == bound
			})
			// The target comes back: the retries (and any first attempt not
			// made yet) go to the url as it is now.
			h.expect(h.call(h.platform(), "PUT", "/webhooks/"+hook, map[string]any{"url": back.srv.URL}), 200, "webhook")
			var pending int
			settled := within(5*time.Minute, func() bool {
				pending = st.pending(t, h, app, hook)
				return pending == 0 && len(back.delivered()) >= bound
			})
			if !settled {
				logMu.Lock()
				t.Log(logs.String())
				logMu.Unlock()
			}
			require.True(t, settled, "the pending deliveries settled: %d still pending, %d posts to the failing url, delivered %v (want %v)",
				pending, gone.posts.Load(), back.delivered(), ids[cards-bound:])
			assert.ElementsMatch(t, ids[cards-bound:], back.delivered(), "the newest events are delivered, once each, the dropped ones never")
		})
	}
}

// TestExpiredWebhookDropsItsPendingDeliveries: on PostgreSQL the sweep
// drops the pending deliveries of a webhook that aged out (and of one that
// is gone however it went), instead of leaving them until each one's next
// retry finds the webhook gone (here hours on); another webhook's pending
// deliveries stay.
func TestExpiredWebhookDropsItsPendingDeliveries(t *testing.T) {
	cluster := pgtest.Start(t)
	h := sandboxReplica(t, cluster.NewDatabase(t, "expired_hooks"), func(c *Config) {
		c.Limits = ledger.Limits{MaxAge: time.Hour, PendingDeliveries: 100}
		c.RetryScale = 100 // the first retry hours after the first attempt
	})
	gone := newCardTarget(t, http.StatusServiceUnavailable)
	pool := h.pgPool()
	pending := func(app, hook string) int {
		var n int
		require.NoError(t, pool.QueryRow(context.Background(),
			`SELECT count(*) FROM deliveries WHERE app = $1 AND webhook = $2 AND NOT done`, app, hook).Scan(&n))
		return n
	}
	old := h.webhook(gone.srv.URL, nil)
	app, oldHook := old["application"].(string), old["id"].(string)
	for range 3 {
		h.card()
	}
	h.clock.Advance(30 * time.Minute)
	young := h.webhook(gone.srv.URL, nil)["id"].(string)
	h.card()
	// Events reach the deliveries table from the outbox, a moment after
	// their create.
	eventually(t, "every event published", func() bool {
		var n int
		require.NoError(t, pool.QueryRow(context.Background(), `SELECT count(*) FROM outbox WHERE NOT delivered`).Scan(&n))
		return n == 0 && pending(app, oldHook) >= 4 && pending(app, young) >= 1
	})
	oldBefore, youngBefore := pending(app, oldHook), pending(app, young)

	h.clock.Advance(31 * time.Minute) // the older webhook and its cards are over an hour old
	h.card()                          // a create expires what has aged out
	h.expect(h.call(h.platform(), "GET", "/webhooks/"+oldHook, nil), 404, "error")
	// A delivery published to the webhook as it expired (the publisher read
	// it before the expiry committed and inserted after it).
	_, err := pool.Exec(context.Background(), `INSERT INTO deliveries (app, webhook, event, body) VALUES ($1, $2, 'EVlate', '{}')`, app, oldHook)
	require.NoError(t, err)
	h.srv.units.Sweep(context.Background(), h.clock.Now(), 0)
	assert.Zero(t, pending(app, oldHook), "an expired webhook's pending deliveries after the sweep (%d before)", oldBefore)
	eventually(t, "the younger webhook keeps its pending deliveries and gets the new card's", func() bool {
		return pending(app, young) > youngBefore
	})
	assert.Zero(t, pending(app, oldHook), "no delivery of the new card to the expired webhook")
}

// TestSweepKeepsASettledDeliveryTenMinutes: on PostgreSQL a delivery that
// settled stays readable beside its event for pgstore.SettledKept, whatever sweeps
// run meanwhile (a sweep once a minute dropped the deliveries a replica
// test was still comparing with what its receiver got), and goes after it.
func TestSweepKeepsASettledDeliveryTenMinutes(t *testing.T) {
	cluster := pgtest.Start(t)
	h := sandboxReplica(t, cluster.NewDatabase(t, "settled_kept"))
	target := newCardTarget(t, http.StatusOK)
	hook := h.webhook(target.srv.URL, nil)["id"].(string)
	h.card()
	pool := h.pgPool()
	count := func(cond string) int {
		var n int
		require.NoError(t, pool.QueryRow(context.Background(), `SELECT count(*) FROM deliveries WHERE webhook = $1 AND `+cond, hook).Scan(&n))
		return n
	}
	eventually(t, "the card's delivery settled", func() bool { return count("done") > 0 })
	var settled []int64 // the deliveries settled before the sweep (others may settle meanwhile)
	rows, err := pool.Query(context.Background(), `SELECT seq FROM deliveries WHERE webhook = $1 AND done`, hook)
	require.NoError(t, err)
	settled, err = pgx.CollectRows(rows, pgx.RowTo[int64])
	require.NoError(t, err)
	h.srv.units.Sweep(context.Background(), h.clock.Now(), 0)
	var kept int
	require.NoError(t, pool.QueryRow(context.Background(), `SELECT count(*) FROM deliveries WHERE seq = ANY($1)`, settled).Scan(&kept))
	assert.Equal(t, len(settled), kept, "settled deliveries right after a sweep")

	rows, err = pool.Query(context.Background(), `UPDATE deliveries SET done_at = done_at - $1 * interval '1 microsecond' WHERE done RETURNING seq`,
		(pgstore.SettledKept + time.Second).Microseconds())
	require.NoError(t, err)
	aged, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	require.NoError(t, err)
	require.NotEmpty(t, aged)
	h.srv.units.Sweep(context.Background(), h.clock.Now(), 0)
	require.NoError(t, pool.QueryRow(context.Background(), `SELECT count(*) FROM deliveries WHERE seq = ANY($1)`, aged).Scan(&kept))
	assert.Zero(t, kept, "settled deliveries older than %s after a sweep", pgstore.SettledKept)
}
