package reference

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// A Server whose whole sandbox is in PostgreSQL (Config.PostgresSandbox):
// its units of work run on pgUnits, the fixtures are seeded once for every
// replica on the database, and the webhook events and timers committed by
// any replica are claimed from the outbox and timers tables by one replica
// each (FOR UPDATE SKIP LOCKED), so a replica that stops leaves them to the
// others once its claim's lease has run out.

// claimEvery is how often a replica looks for due timers and events.
const claimEvery = 50 * time.Millisecond

// claimLease is how long a claimed timer or event belongs to its replica.
const claimLease = 30 * time.Second

// openPostgresSandbox puts the Server's state on cfg.Postgres: it seeds the
// database once (every replica with the same seed has the same fixtures)
// and starts claiming due timers and events.
func (s *Server) openPostgresSandbox(ctx context.Context, cfg Config) error {
	p := newPgUnits(cfg.Postgres.pool, cfg.Now, cfg.NewID)
	lim := cfg.Limits.withDefaults()
	p.limits = &lim
	mem := newStore(cfg.NewID, cfg.Now)
	s.fixtures = seed(mem, cfg.Seed, stamp(cfg.Now))
	err := p.inTx(ctx, func(dbtx pgx.Tx) error {
		if _, err := dbtx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", migrationLock); err != nil {
			return err
		}
		var seeded int64
		switch err := dbtx.QueryRow(ctx, `SELECT seed FROM seeds`).Scan(&seeded); {
		case errors.Is(err, pgx.ErrNoRows):
		case err != nil:
			return err
		case seeded != cfg.Seed:
			return fmt.Errorf("the database was seeded with seed %d, not %d: start every replica with the same --seed", seeded, cfg.Seed)
		default:
			return nil // seeded by an earlier start or another replica
		}
		if _, err := dbtx.Exec(ctx, `INSERT INTO seeds (seed) VALUES ($1)`, cfg.Seed); err != nil {
			return err
		}
		return p.importInto(ctx, dbtx, mem, "")
	})
	if err != nil {
		return fmt.Errorf("reference: seed the database: %w", err)
	}
	s.units, s.limits = p, lim
	s.claimDue(p)
	return nil
}

// claimDue runs, every claimEvery until the Server closes, the timers and
// webhook events this replica claims.
func (s *Server) claimDue(p *pgUnits) {
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		t := time.NewTicker(claimEvery)
		defer t.Stop()
		for {
			select {
			case <-s.ctx.Done():
				return
			case <-t.C:
				if err := s.runDueTimers(p); err != nil && s.ctx.Err() == nil {
					s.log.Error("run due timers", "error", err)
				}
				if err := s.publishOutbox(p); err != nil && s.ctx.Err() == nil {
					s.log.Error("publish webhook events", "error", err)
				}
			}
		}
	}()
}

// runDueTimers claims the due timers, runs each and marks it done.
func (s *Server) runDueTimers(p *pgUnits) error {
	now := s.now()
	rows, err := p.pool.Query(s.ctx, `UPDATE timers SET claimed_ns = $1 WHERE seq IN (
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
		switch timerKind(d.kind) {
		case timerDisputeStep:
			s.disputeStep(d.base, d.app, d.id)
		case timerFileReview:
			s.fileReview(d.base, d.app, d.id)
		}
		if _, err := p.pool.Exec(s.ctx, `UPDATE timers SET done = true WHERE seq = $1`, d.seq); err != nil {
			return err
		}
	}
	return nil
}

// publishOutbox claims undelivered events, publishes each to its
// application's enabled webhooks and marks it delivered.
func (s *Server) publishOutbox(p *pgUnits) error {
	now := s.now()
	rows, err := p.pool.Query(s.ctx, `UPDATE outbox SET claimed_ns = $1 WHERE seq IN (
			SELECT seq FROM outbox WHERE NOT delivered AND (claimed_ns IS NULL OR claimed_ns < $2)
			ORDER BY seq LIMIT 256 FOR UPDATE SKIP LOCKED)
		RETURNING seq, app, entity, typ, view::text`, now.UnixNano(), now.Add(-claimLease).UnixNano())
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
	for _, e := range evs {
		var hooks []webhook
		if err := p.View(s.ctx, e.app, func(u tx) error {
			hooks = u.(*pgTx).enabledWebhooks()
			return nil
		}); err != nil {
			return err
		}
		s.publish(hooks, e.entity, e.typ, json.RawMessage(e.view))
		if _, err := p.pool.Exec(s.ctx, `UPDATE outbox SET delivered = true WHERE seq = $1`, e.seq); err != nil {
			return err
		}
	}
	return nil
}
