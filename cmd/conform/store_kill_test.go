package main

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

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/conform-kit/conform/reference/pgtest"
)

// TestPostgresReplicaKilledUnderLoad: two conform serve --store replicas
// under load (authorizations, two captures of each at once through both
// replicas, idempotent sales whose two copies go one to each replica and
// sales sent to the first alone, every event delivered to a webhook
// receiver); the first is killed with SIGKILL mid-load, the load goes on
// through the second, the first is started again and takes its share of
// the load. The kill lands while the first runs a sale it alone was sent
// (its key claimed, unfinished) and while the receiver holds the posts it
// gets (received, unanswered), so the dead replica leaves claims of both
// kinds. Then the ledger:
//
//   - every create answered 2xx is readable through both replicas;
//   - no authorization has captures over its amount (two captures of 800 of
//     1,000 would be), and at most one capture answered 200;
//   - every idempotency key is one resource: every 2xx of a key named the
//     same transfer, the database holds one transfer per key, and a retry
//     of every key after the load (also of the keys the killed replica held
//     unfinished, once their lease has passed) answers that transfer;
//   - every event is delivered, and delivered once, as far as "once" is
//     true of a delivery that is at least once.
//
// What "once" means here. A replica claims a delivery, posts it, then marks
// it done in another transaction. Killed between the post and the mark, its
// claim stays until the lease (30 s) passes, and then any replica posts the
// event again: the receiver sees it twice, and nothing can tell it that the
// first post arrived. So the test asserts the strongest thing that is true:
// every event id arrives at least once; an event arrives twice only if its
// delivery was one the killed replica held claimed when it died (none of
// any live replica, none of an event published twice); and nothing arrives
// three times. Instead of waiting out the 30 s lease, the test ends the
// killed replica's leases in the database once everything the live
// replicas claimed is settled: the claims left are the dead one's (a live
// replica settles its claim within milliseconds of the receiver's answer,
// and every claim a live replica makes after the kill has a lease ending
// after the kill's time plus the lease, which tells them apart). Under
// load the run may outlast the lease: a dead claim then passes to a live
// replica before the test ends it, so the deliveries claimed at the kill are
// noted with their posts started, and one posted again since counts as the
// dead replica's.
func TestPostgresReplicaKilledUnderLoad(t *testing.T) {
	bin := conformBinary(t)
	dsn := pgtest.Start(t).NewDatabase(t, "killed")
	a, b := startReplica(t, bin, dsn), startReplica(t, bin, dsn)
	recv := newEventReceiver(t)
	setup := newAPI(t, a.cfg)
	st, v := setup.do("POST", a.cfg.Target+"/webhooks", map[string]any{"url": recv.srv.URL})
	require.Equal(t, 201, st, "%v", v)
	card := setup.card(a.cfg.Target)
	merchant := a.cfg.Fixtures.Merchant

	// The load: workers, each round an authorization, two captures of it at
	// once (one through each replica) and an idempotent sale sent twice at
	// once (one copy to each replica). A request that gets no answer (its
	// replica died, or it waited on a key the dead replica holds) is not
	// acknowledged and proves nothing.
	var (
		targetsMu sync.Mutex
		targets   = [2]string{a.cfg.Target, b.cfg.Target}
		led       = newLoadLedger()
		rounds    atomic.Int64
	)
	target := func(i int) string {
		targetsMu.Lock()
		defer targetsMu.Unlock()
		return targets[i%2]
	}
	client := &api{t: t, cfg: a.cfg, http: &http.Client{Timeout: 4 * time.Second}}
	ctx, stopLoad := context.WithCancel(context.Background())
	defer stopLoad()
	const workers = 6
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ctx.Err() == nil; i++ {
				via := target(w + i)
				st, v, err := client.send(ctx, "POST", via+"/authorizations", map[string]any{"source": card, "merchant": merchant, "amount": 1000, "currency": "USD"})
				if err == nil && st == 201 {
					auth := str(v["id"])
					led.created("/authorizations/" + auth)
					var cw sync.WaitGroup
					for r := range 2 {
						cw.Add(1)
						go func() {
							defer cw.Done()
							st, v, err := client.send(ctx, "PUT", target(r)+"/authorizations/"+auth, map[string]any{"capture_amount": 800})
							if err == nil && st == 200 {
								led.captured(auth, str(v["transfer"]))
							}
						}()
					}
					cw.Wait()
				}
				// Every third sale goes to the first replica alone (its retry
				// through the other comes after the load): the kill waits
				// for one of these to be running there.
				key, copies := fmt.Sprintf("pair-%d-%d", w, i), []int{0, 1}
				if i%3 == 0 {
					key, copies = fmt.Sprintf("solo-%d-%d", w, i), []int{0}
				}
				body := map[string]any{"source": card, "merchant": merchant, "amount": 2000 + i, "currency": "USD", "idempotency_id": key}
				led.sent(key, body)
				var sw sync.WaitGroup
				for _, r := range copies {
					sw.Add(1)
					go func() {
						defer sw.Done()
						st, v, err := client.send(ctx, "POST", target(r)+"/transfers", body)
						if err == nil && st == 201 {
							led.sale(key, str(v["id"]))
						}
					}()
				}
				sw.Wait()
				rounds.Add(1)
			}
		}()
	}
	waitRounds := func(n int64, what string) {
		t.Helper()
		want := rounds.Load() + n
		eventually(t, 30*time.Second, what, func() bool { return rounds.Load() >= want })
	}
	waitRounds(60, "the load through both replicas")
	// Killed while posts it made are held at the receiver (received, not
	// answered: its claims die with it) and while it runs a sale it alone
	// was sent (a key it claimed and had not finished).
	recv.hold()
	eventually(t, 10*time.Second, "posts held at the receiver", func() bool { return recv.waiting.Load() >= 4 })
	watch := connect(t, dsn)
	for until := time.Now().Add(10 * time.Second); ; { // no pause: the sale runs for milliseconds
		var n int
		require.NoError(t, watch.QueryRow(context.Background(), `SELECT count(*) FROM idempotency_keys WHERE NOT done AND id LIKE 'solo-%'`).Scan(&n))
		if n > 0 {
			break
		}
		require.True(t, time.Now().Before(until), "no sale running on the first replica within 10s")
	}
	a.kill(t)
	var killedAt time.Time
	require.NoError(t, queryRow(t, dsn, `SELECT clock_timestamp()`).Scan(&killedAt))
	// The deliveries claimed when it died, with their posts started: the
	// live replica's settle without another post once the receiver answers;
	// the dead one's are posted again once their lease passes, which under
	// load may come before the test ends the leases itself.
	rows, err := watch.Query(context.Background(), `SELECT event, attempts FROM deliveries WHERE NOT done AND lease_until IS NOT NULL`)
	require.NoError(t, err)
	claimedAtKill := map[string]int{}
	for rows.Next() {
		var ev string
		var n int
		require.NoError(t, rows.Scan(&ev, &n))
		claimedAtKill[ev] = n
	}
	require.NoError(t, rows.Err())
	recv.release()
	waitRounds(60, "the load through the second replica alone")
	again := startReplica(t, bin, dsn)
	targetsMu.Lock()
	targets[0] = again.cfg.Target
	targetsMu.Unlock()
	waitRounds(60, "the load through both replicas again")
	stopLoad()
	wg.Wait()

	db := connect(t, dsn)
	replicas := []string{again.cfg.Target, b.cfg.Target}
	check := newAPI(t, a.cfg)

	t.Run("every acknowledged create is readable", func(t *testing.T) {
		require.NotEmpty(t, led.acked)
		for _, path := range led.acked {
			for _, r := range replicas {
				st, _ := check.do("GET", r+path, nil)
				assert.Equal(t, 200, st, "GET %s through %s", path, r)
			}
		}
	})

	t.Run("no capture over its authorization", func(t *testing.T) {
		for auth, transfers := range led.captures {
			assert.Len(t, transfers, 1, "authorization %s: captures answered 200", auth)
		}
		rows, err := db.Query(context.Background(), `SELECT a.id, (a.doc->>'amount')::bigint, count(t.id), coalesce(sum((t.doc->>'amount')::bigint), 0)
			FROM records a LEFT JOIN records t ON t.kind = 'transfer' AND t.doc->>'trace_id' = a.doc->>'trace_id'
			WHERE a.kind = 'authorization' GROUP BY a.id, a.doc->>'amount'`)
		require.NoError(t, err)
		type captured struct {
			id           string
			amount, n, s int64
		}
		all, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (captured, error) {
			var c captured
			return c, r.Scan(&c.id, &c.amount, &c.n, &c.s)
		})
		require.NoError(t, err)
		require.GreaterOrEqual(t, len(all), len(led.captures))
		for _, c := range all {
			assert.LessOrEqual(t, c.n, int64(1), "authorization %s: capture transfers", c.id)
			assert.LessOrEqual(t, c.s, c.amount, "authorization %s: captured total over its amount", c.id)
		}
	})

	// The killed replica's unfinished claims of keys: their lease passed.
	tag, err := db.Exec(context.Background(), `UPDATE idempotency_keys SET claimed_at = claimed_at - interval '1 hour'
		WHERE NOT done AND claimed_at <= $1`, killedAt)
	require.NoError(t, err)
	t.Logf("%d rounds, %d creates acknowledged, %d idempotency keys (%d left unfinished by the killed replica)",
		rounds.Load(), len(led.acked), len(led.bodies), tag.RowsAffected())

	t.Run("each idempotency key is one resource", func(t *testing.T) {
		require.NotEmpty(t, led.bodies)
		i := 0
		for key, body := range led.bodies {
			ids := led.sales[key]
			for _, id := range ids {
				assert.Equal(t, ids[0], id, "key %s: every 2xx names one transfer", key)
			}
			st, v := check.do("POST", replicas[i%2]+"/transfers", body)
			i++
			if assert.Equal(t, 201, st, "key %s retried after the load: %v", key, v) && len(ids) > 0 {
				assert.Equal(t, ids[0], str(v["id"]), "key %s retried after the load", key)
			}
			var n int
			require.NoError(t, db.QueryRow(context.Background(),
				`SELECT count(*) FROM records WHERE kind = 'transfer' AND doc->>'idempotency_id' = $1`, key).Scan(&n))
			assert.Equal(t, 1, n, "key %s: transfers in the database", key)
		}
	})

	t.Run("every event delivered, twice only if its claim died with the replica", func(t *testing.T) {
		// Everything the live replicas claimed is settled; what is left
		// claimed is the dead replica's (leases ending by its death + 30 s).
		deadline := killedAt.Add(30 * time.Second)
		eventually(t, 30*time.Second, "the live replicas settle every delivery", func() bool {
			var pending int
			require.NoError(t, db.QueryRow(context.Background(), `SELECT
				(SELECT count(*) FROM outbox WHERE NOT delivered) +
				(SELECT count(*) FROM deliveries WHERE NOT done AND (lease_until IS NULL OR lease_until > $1))`, deadline).Scan(&pending))
			return pending == 0
		})
		rows, err := db.Query(context.Background(), `UPDATE deliveries SET lease_until = clock_timestamp() - interval '1 second'
			WHERE NOT done RETURNING event`)
		require.NoError(t, err)
		dead, err := pgx.CollectRows(rows, pgx.RowTo[string])
		require.NoError(t, err)
		t.Logf("%d deliveries claimed by the killed replica, taken over (of %d claimed at the kill)", len(dead), len(claimedAtKill))
		eventually(t, 30*time.Second, "every delivery done", func() bool {
			var pending int
			require.NoError(t, db.QueryRow(context.Background(), `SELECT
				(SELECT count(*) FROM outbox WHERE NOT delivered) + (SELECT count(*) FROM deliveries WHERE NOT done)`).Scan(&pending))
			return pending == 0
		})

		rows, err = db.Query(context.Background(), `SELECT event, count(*), max(attempts) FROM deliveries GROUP BY event`)
		require.NoError(t, err)
		published := map[string]int{}
		died := map[string]bool{}
		for _, ev := range dead {
			died[ev] = true
		}
		for rows.Next() {
			var ev string
			var n, attempts int
			require.NoError(t, rows.Scan(&ev, &n, &attempts))
			published[ev] = n
			if before, ok := claimedAtKill[ev]; ok && attempts > before {
				died[ev] = true // claimed at the kill, posted again: its lease passed
			}
		}
		require.NoError(t, rows.Err())
		got, resources := recv.snapshot()
		twice := 0
		for ev, n := range published {
			assert.Equal(t, 1, n, "event %s: one delivery to the one webhook", ev)
			if got[ev] == 2 {
				twice++
			}
			switch {
			case got[ev] == 0:
				t.Errorf("event %s published, never received", ev)
			case got[ev] == 2 && !died[ev]:
				t.Errorf("event %s received twice, its delivery not one the killed replica held", ev)
			case got[ev] > 2:
				t.Errorf("event %s received %d times", ev, got[ev])
			}
		}
		for ev := range got {
			assert.Contains(t, published, ev, "event %s received, never published", ev)
		}
		t.Logf("%d events published, %d received twice (posted by the killed replica, then again)", len(published), twice)
		for _, path := range led.acked {
			assert.True(t, resources[path], "no event received about %s", path)
		}
	})
}

// loadLedger is what the load was answered: the creates acknowledged (2xx),
// the captures answered 200, the transfers each idempotency key named.
type loadLedger struct {
	mu       sync.Mutex
	acked    []string            // paths of acknowledged creates
	captures map[string][]string // authorization id → capture transfers answered 200
	sales    map[string][]string // idempotency key → transfer ids answered 201
	bodies   map[string]map[string]any
}

func newLoadLedger() *loadLedger {
	return &loadLedger{captures: map[string][]string{}, sales: map[string][]string{}, bodies: map[string]map[string]any{}}
}

func (l *loadLedger) created(path string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.acked = append(l.acked, path)
}

func (l *loadLedger) captured(auth, transfer string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.captures[auth] = append(l.captures[auth], transfer)
	l.acked = append(l.acked, "/transfers/"+transfer)
}

func (l *loadLedger) sent(key string, body map[string]any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.bodies[key] = body
}

func (l *loadLedger) sale(key, id string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.sales[key] = append(l.sales[key], id)
	l.acked = append(l.acked, "/transfers/"+id)
}

// eventReceiver is a webhook target answering 200, counting the posts of
// each event id and noting the resources the events embed.
type eventReceiver struct {
	srv       *httptest.Server
	mu        sync.Mutex
	posts     map[string]int
	resources map[string]bool // "/transfers/ID", "/authorizations/ID"
	gate      chan struct{}   // while not nil, posts wait for it to close
	waiting   atomic.Int32    // posts waiting at the gate
}

// hold makes every post wait, counted but unanswered, until release (or
// until its sender goes away).
func (e *eventReceiver) hold() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.gate = make(chan struct{})
}

// release answers the posts held and lets the next ones through.
func (e *eventReceiver) release() {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.gate != nil {
		close(e.gate)
		e.gate = nil
	}
}

func newEventReceiver(t *testing.T) *eventReceiver {
	t.Helper()
	e := &eventReceiver{posts: map[string]int{}, resources: map[string]bool{}}
	e.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var ev struct {
			ID       string                      `json:"id"`
			Embedded map[string][]map[string]any `json:"_embedded"`
		}
		_ = json.Unmarshal(body, &ev)
		e.mu.Lock()
		e.posts[ev.ID]++
		for plural, views := range ev.Embedded {
			for _, v := range views {
				e.resources["/"+plural+"/"+str(v["id"])] = true
			}
		}
		gate := e.gate
		e.mu.Unlock()
		if gate != nil {
			e.waiting.Add(1)
			select {
			case <-gate:
			case <-r.Context().Done():
			}
			e.waiting.Add(-1)
		}
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(e.release)
	t.Cleanup(e.srv.Close)
	return e
}

func (e *eventReceiver) snapshot() (map[string]int, map[string]bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	posts := make(map[string]int, len(e.posts))
	for k, v := range e.posts {
		posts[k] = v
	}
	res := make(map[string]bool, len(e.resources))
	for k, v := range e.resources {
		res[k] = v
	}
	return posts, res
}

// eventually polls cond every 20 ms until it holds, failing after limit.
func eventually(t *testing.T, limit time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s", what, limit)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// connect opens a connection to the database, closed when the test ends.
func connect(t *testing.T, dsn string) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), dsn)
	require.NoError(t, err)
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}
