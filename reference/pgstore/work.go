package pgstore

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/conform-kit/conform/reference/ledger"
	"github.com/conform-kit/conform/reference/memstore"
	"github.com/jackc/pgx/v5"
)

// A sandbox whose whole state is in PostgreSQL (a Server given a Store as
// its store): its units of work run on pgUnits, the fixtures are
// seeded once for every replica on the database, and the webhook events and
// timers committed by any replica are claimed from the outbox and timers
// tables by one replica each (FOR UPDATE SKIP LOCKED). An event becomes one
// row of deliveries per target webhook, holding that delivery's retry
// state (attempts, next due time, a claim's lease): a replica that stops
// mid-retry, or dies mid-post, leaves the rest of it to the others. The
// store claims and settles; the Server (its worker) runs the timers, builds
// the events and posts them.

// ClaimEvery is how often a replica looks for due timers and events.
const ClaimEvery = 50 * time.Millisecond

// claimLease is how long a claimed timer or webhook delivery belongs to its
// replica; a delivery's post is abandoned after half of it.
const claimLease = 30 * time.Second

// Open puts a Server's whole sandbox in the database: it seeds it once
// (every replica with the same seed has the same fixtures) and starts
// claiming due timers, events and deliveries for the Server's worker.
func (ps *Store) Open(ctx context.Context, env ledger.StoreEnv) (ledger.SandboxStore, ledger.Seeded, error) {
	p := newPgUnits(ps.pool, env.Clock, env.NewID)
	lim := env.Limits
	p.limits = &lim
	p.keys = ps.keys(lim, env.Work.Log)
	fx, err := p.seedOnce(ctx, env.Seed)
	if err != nil {
		return nil, ledger.Seeded{}, fmt.Errorf("pgstore: seed the database: %w", err)
	}
	if !env.Work.Spawn(func() { p.claimDue(env.Work) }) {
		return nil, ledger.Seeded{}, errors.New("pgstore: the server closed while its store opened")
	}
	return p, fx, nil
}

// seedOnce computes the fixtures of seed and, unless the database holds
// them already (seeded by an earlier start or another replica), writes
// them, under the migration lock; a database seeded with another seed is
// refused.
func (p *pgUnits) seedOnce(ctx context.Context, seedValue int64) (ledger.Seeded, error) {
	mem, fx := memstore.NewSeeded(p.newID, p.clock, seedValue)
	err := p.inTx(ctx, func(dbtx pgx.Tx) error {
		if _, err := dbtx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", migrationLock); err != nil {
			return err
		}
		var seeded int64
		switch err := dbtx.QueryRow(ctx, `SELECT seed FROM seeds`).Scan(&seeded); {
		case errors.Is(err, pgx.ErrNoRows):
		case err != nil:
			return err
		case seeded != seedValue:
			return fmt.Errorf("the database was seeded with seed %d, not %d: start every replica with the same --seed", seeded, seedValue)
		default:
			return nil // seeded by an earlier start or another replica
		}
		if _, err := dbtx.Exec(ctx, `INSERT INTO seeds (seed) VALUES ($1)`, seedValue); err != nil {
			return err
		}
		return p.importInto(ctx, dbtx, mem, "")
	})
	return fx, err
}

// claimDue runs, every ClaimEvery until the Server closes, the timers,
// webhook events and webhook deliveries this replica claims.
func (p *pgUnits) claimDue(w ledger.Worker) {
	slots := make(chan struct{}, maxPosts)
	t := time.NewTicker(ClaimEvery)
	defer t.Stop()
	for {
		select {
		case <-w.Ctx.Done():
			return
		case <-t.C:
			if err := p.runDueTimers(w); err != nil && w.Ctx.Err() == nil {
				w.Log.Error("run due timers", "error", err)
			}
			if err := p.publishOutbox(w); err != nil && w.Ctx.Err() == nil {
				w.Log.Error("publish webhook events", "error", err)
			}
			if err := p.deliverDue(w, slots); err != nil && w.Ctx.Err() == nil {
				w.Log.Error("deliver webhook events", "error", err)
			}
		}
	}
}

// runDueTimers claims the due timers, runs each and marks it done.
func (p *pgUnits) runDueTimers(w ledger.Worker) error {
	now := ledger.Stamp(p.clock)
	rows, err := p.pool.Query(w.Ctx, `UPDATE timers SET claimed_ns = $1 WHERE seq IN (
			SELECT seq FROM timers WHERE NOT done AND due_ns <= $1 AND (claimed_ns IS NULL OR claimed_ns < $2)
			ORDER BY due_ns LIMIT 64 FOR UPDATE SKIP LOCKED)
		RETURNING seq, app, kind, resource_id, base`, now.UnixNano(), now.Add(-claimLease).UnixNano())
	if err != nil {
		return err
	}
	type due struct {
		seq           int64
		app, id, base string
		kind          int
	}
	var ds []due
	for rows.Next() {
		var d due
		if err := rows.Scan(&d.seq, &d.app, &d.kind, &d.id, &d.base); err != nil {
			rows.Close()
			return err
		}
		ds = append(ds, d)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	for _, d := range ds {
		w.RunTimer(ledger.TimerKind(d.kind), d.app, d.id, d.base)
		if _, err := p.pool.Exec(w.Ctx, `UPDATE timers SET done = true WHERE seq = $1`, d.seq); err != nil {
			return err
		}
	}
	return nil
}

// publishOutbox takes the undelivered events (FOR UPDATE SKIP LOCKED: one
// replica each) and, in the transaction that marks them delivered, writes
// one delivery row per webhook of the application enabled now that the
// event admits; the posts and their retries are the deliveries' (deliverDue).
func (p *pgUnits) publishOutbox(w ledger.Worker) error {
	dbtx, err := p.pool.Begin(w.Ctx)
	if err != nil {
		return err
	}
	defer dbtx.Rollback(context.WithoutCancel(w.Ctx)) //nolint:errcheck // after Commit it is a no-op
	rows, err := dbtx.Query(w.Ctx, `SELECT seq, app, entity, typ, view::text FROM outbox
		WHERE NOT delivered ORDER BY seq LIMIT 256 FOR UPDATE SKIP LOCKED`)
	if err != nil {
		return err
	}
	type ev struct {
		seq              int64
		app, entity, typ string
		view             string
	}
	var evs []ev
	for rows.Next() {
		var e ev
		if err := rows.Scan(&e.seq, &e.app, &e.entity, &e.typ, &e.view); err != nil {
			rows.Close()
			return err
		}
		evs = append(evs, e)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if len(evs) == 0 {
		return nil
	}
	hooks := map[string][]ledger.Webhook{}
	touched := map[[2]string]bool{} // app, webhook
	seqs := make([]int64, 0, len(evs))
	for _, e := range evs {
		enabled, ok := hooks[e.app]
		if !ok {
			if enabled, err = enabledWebhooksIn(w.Ctx, dbtx, e.app); err != nil {
				return err
			}
			hooks[e.app] = enabled
		}
		targets, evID, body := w.NewEvent(enabled, e.entity, e.typ, json.RawMessage(e.view))
		for _, hook := range targets {
			if _, err := dbtx.Exec(w.Ctx, `INSERT INTO deliveries (app, webhook, event, body) VALUES ($1, $2, $3, $4)`,
				e.app, hook.ID, evID, body); err != nil {
				return err
			}
			touched[[2]string{e.app, hook.ID}] = true
		}
		seqs = append(seqs, e.seq)
	}
	if err := p.boundPending(w, dbtx, touched); err != nil {
		return err
	}
	if _, err := dbtx.Exec(w.Ctx, `UPDATE outbox SET delivered = true WHERE seq = ANY($1)`, seqs); err != nil {
		return err
	}
	return dbtx.Commit(w.Ctx)
}

// boundPending keeps at most Limits.PendingDeliveries pending (not done)
// deliveries for each webhook that was just given new ones, marking the
// oldest beyond it done: dropped as failed, as the memory store drops
// them. Each webhook's count is taken under an advisory lock of its own,
// in the order of the keys (no two publishers wait on each other in a
// circle), so replicas publishing at once never leave more.
func (p *pgUnits) boundPending(w ledger.Worker, dbtx pgx.Tx, touched map[[2]string]bool) error {
	max := p.limits.PendingDeliveries
	if max <= 0 || len(touched) == 0 {
		return nil
	}
	keys := slices.SortedFunc(maps.Keys(touched), func(a, b [2]string) int {
		return cmp.Or(strings.Compare(a[0], b[0]), strings.Compare(a[1], b[1]))
	})
	for _, k := range keys {
		if _, err := dbtx.Exec(w.Ctx, `SELECT pg_advisory_xact_lock(hashtextextended('deliveries ' || $1 || ' ' || $2, 0))`, k[0], k[1]); err != nil {
			return err
		}
		tag, err := dbtx.Exec(w.Ctx, `UPDATE deliveries SET done = true, done_at = clock_timestamp(), lease_until = NULL
			WHERE seq IN (SELECT seq FROM deliveries WHERE app = $1 AND webhook = $2 AND NOT done
				ORDER BY seq DESC OFFSET $3)`, k[0], k[1], max)
		if err != nil {
			return err
		}
		if n := tag.RowsAffected(); n > 0 {
			w.Log.Warn("webhook deliveries dropped: too many pending", "webhook", k[1], "dropped", n, "pending", max)
		}
	}
	return nil
}

// maxPosts bounds the webhook posts one replica has in flight.
const maxPosts = 64

// claimedDelivery is a claimed row of deliveries.
type claimedDelivery struct {
	seq int64
	ledger.DeliveryPost
}

// deliverDue claims the due deliveries this replica has room for, under a
// claimLease lease, and posts each once in its own goroutine (postDelivery).
func (p *pgUnits) deliverDue(w ledger.Worker, slots chan struct{}) error {
	room := cap(slots) - len(slots)
	if room == 0 {
		return nil
	}
	rows, err := p.pool.Query(w.Ctx, `UPDATE deliveries SET attempts = attempts + 1,
			lease_until = clock_timestamp() + $2 * interval '1 microsecond'
		WHERE seq IN (SELECT seq FROM deliveries
			WHERE NOT done AND due_at <= clock_timestamp() AND (lease_until IS NULL OR lease_until < clock_timestamp())
			ORDER BY due_at LIMIT $1 FOR UPDATE SKIP LOCKED)
		RETURNING seq, app, webhook, event, body, attempts`, room, claimLease.Microseconds())
	if err != nil {
		return err
	}
	var ds []claimedDelivery
	for rows.Next() {
		var d claimedDelivery
		if err := rows.Scan(&d.seq, &d.App, &d.Hook, &d.Event, &d.Body, &d.Attempt); err != nil {
			rows.Close()
			return err
		}
		ds = append(ds, d)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	for i, d := range ds {
		slots <- struct{}{}
		posting := w.Spawn(func() {
			defer func() { <-slots }()
			p.postDelivery(w, d)
		})
		if !posting {
			<-slots
			p.release(w, ds[i:])
			return nil
		}
	}
	return nil
}

// release gives back claims made as the Server closed, unposted: due again
// at once for any replica, their attempt not counted.
func (p *pgUnits) release(w ledger.Worker, ds []claimedDelivery) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(w.Ctx), 5*time.Second)
	defer cancel()
	for _, d := range ds {
		if _, err := p.pool.Exec(ctx, `UPDATE deliveries SET lease_until = NULL, attempts = attempts - 1
			WHERE seq = $1 AND attempts = $2`, d.seq, d.Attempt); err != nil {
			w.Log.Error("release a webhook delivery", "webhook", d.Hook, "event", d.Event, "error", err)
			return // the others' leases run out
		}
	}
}

// postDelivery has the worker post a claimed delivery once (abandoned well
// within the lease), then settles it in a new transaction as the worker
// says: done; released (the Server closes: given back for another replica,
// or a restart); or due again after the backoff of its attempt. The
// settlement applies only while the row is still this claim's (its
// attempts unchanged): a claim whose lease ran out and was taken over
// settles nothing. The post itself is made only if, once the webhook is
// read, the row is still this claim's and pending: a delivery the bound
// dropped while its post waited for a goroutine is never posted to a url
// the webhook was given after the drop.
func (p *pgUnits) postDelivery(w ledger.Worker, d claimedDelivery) {
	ctx, cancel := context.WithTimeout(w.Ctx, claimLease/2)
	post := d.DeliveryPost
	post.Claimed = func(ctx context.Context) bool {
		var claimed bool
		err := p.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM deliveries WHERE seq = $1 AND attempts = $2 AND NOT done)`,
			d.seq, d.Attempt).Scan(&claimed)
		return err != nil || claimed // unanswered: posted as claimed, as before the question
	}
	v := w.Post(ctx, post)
	cancel()
	settle, cancel := context.WithTimeout(context.WithoutCancel(w.Ctx), 5*time.Second)
	defer cancel()
	q := `UPDATE deliveries SET done = true, done_at = clock_timestamp(), lease_until = NULL WHERE seq = $1 AND attempts = $2`
	args := []any{d.seq, d.Attempt}
	switch {
	case v.Done:
	case v.Release:
		q = `UPDATE deliveries SET lease_until = NULL WHERE seq = $1 AND attempts = $2`
	default:
		q = `UPDATE deliveries SET lease_until = NULL, due_at = clock_timestamp() + $3 * interval '1 microsecond'
			WHERE seq = $1 AND attempts = $2`
		args = append(args, v.RetryIn.Microseconds())
	}
	if _, err := p.pool.Exec(settle, q, args...); err != nil {
		w.Log.Error("settle a webhook delivery", "webhook", d.Hook, "event", d.Event, "error", err)
	}
}
