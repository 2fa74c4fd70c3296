package campaign

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertype"

	"github.com/conform-kit/conform/steps/explore"
)

// unitArgs is a unit's River job: the sequences [First, First+N) of the
// campaign's seed.
type unitArgs struct {
	Campaign string `json:"campaign"`
	Unit     int    `json:"unit"`
	First    int    `json:"first"`
	N        int    `json:"n"`
}

// Kind names the job kind of a campaign's units.
func (unitArgs) Kind() string { return "conform_campaign_unit" }

// runID is the tag of the idempotency ids of a unit's attempt.
func (s Spec) runID(attempt int) string {
	return fmt.Sprintf("%s-a%d", s.queue()[len("conform_campaign_"):], attempt)
}

// unitWorker runs a campaign's units in one process.
type unitWorker struct {
	river.WorkerDefaults[unitArgs]
	store *Store
	opts  Options
	spec  Spec // set before the client starts
	// run ends the process's part (set before the client starts): a unit
	// runs under it, not under its job's timeout (below).
	run  context.Context
	done atomic.Int64 // units this process completed
}

// Work runs a unit, then writes its requests, findings and coverage in
// one transaction with the job's completion: a unit cut before (its
// process killed, its part ended) wrote nothing, and is done again.
//
// The job's timeout is the lease: past it, River's rescuer lets another
// process take the unit again (a process that died holding it never
// completes it). A live unit is not cut there: it runs under the process's
// context, and whichever process writes the unit first counts it.
func (w *unitWorker) Work(jobCtx context.Context, job *river.Job[unitArgs]) error {
	ctx := w.run
	a := job.Args
	if a.Campaign != w.spec.Name {
		return fmt.Errorf("campaign: unit of %s taken by a process of %s", a.Campaign, w.spec.Name)
	}
	logf(w.opts.Log, "campaign %s: unit %d (sequences %d-%d) started, attempt %d\n", a.Campaign, a.Unit, a.First, a.First+a.N-1, job.Attempt)
	eo := w.opts.Explore
	eo.Seed, eo.MaxSteps, eo.Ops, eo.Log = w.spec.Seed, w.spec.MaxSteps, w.spec.Ops, nil
	// The campaign's idempotency ids, the same in every process; a unit
	// done again sends fresh ones (the target keeps the cut attempt's).
	eo.RunID = w.spec.runID(job.Attempt)
	u, err := explore.RunUnit(ctx, eo, a.First, a.N)
	if err != nil {
		return fmt.Errorf("campaign %s: unit %d: %w", a.Campaign, a.Unit, err)
	}
	// The job's context holds the River client that completes it; its
	// deadline (the lease) may have passed.
	counted, err := w.store.complete(context.WithoutCancel(jobCtx), job, w.opts, u)
	if err != nil {
		return err
	}
	if counted {
		w.done.Add(1)
		logf(w.opts.Log, "campaign %s: unit %d done: %d requests, %d findings\n", a.Campaign, a.Unit, u.Requests, len(u.Findings))
	}
	return nil
}

// complete writes a unit done and completes its job in one transaction.
// A unit already written (its job taken again after its lease while it
// still ran) is not written twice: counted is false.
func (s *Store) complete(ctx context.Context, job *river.Job[unitArgs], opts Options, u explore.Unit) (counted bool, err error) {
	a := job.Args
	cov, err := json.Marshal(u.Coverage)
	if err != nil {
		return false, fmt.Errorf("campaign: coverage: %w", err)
	}
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return false, fmt.Errorf("campaign: %w", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx)) //nolint:errcheck // after Commit, nothing to roll back
	tag, err := tx.Exec(ctx, `INSERT INTO conform_campaign_unit (campaign, unit, first_sequence, sequences, requests, unanswered, coverage, worker, attempt)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (campaign, unit) DO NOTHING`,
		a.Campaign, a.Unit, a.First, a.N, u.Requests, u.Unanswered, cov, opts.Worker, job.Attempt)
	if err != nil {
		return false, fmt.Errorf("campaign: unit %d: %w", a.Unit, err)
	}
	counted = tag.RowsAffected() == 1
	if counted {
		for _, f := range u.Findings {
			if err := addFinding(ctx, tx, a.Campaign, f); err != nil {
				return false, err
			}
		}
		if _, err := tx.Exec(ctx, `UPDATE conform_campaign SET expires_at = greatest(expires_at, now() + $2 * interval '1 second') WHERE name = $1`,
			a.Campaign, opts.Retention.Seconds()); err != nil {
			return false, fmt.Errorf("campaign: unit %d: %w", a.Unit, err)
		}
	}
	if _, err := river.JobCompleteTx[*riverpgxv5.Driver](ctx, tx, job); err != nil && !errors.Is(err, rivertype.ErrNotFound) {
		// ErrNotFound: the job is no longer this process's (taken again
		// after its lease); the unit row decides who counted it.
		return false, fmt.Errorf("campaign: complete unit %d: %w", a.Unit, err)
	}
	if err := tx.Commit(ctx); err != nil {
		return false, fmt.Errorf("campaign: unit %d: %w", a.Unit, err)
	}
	return counted, nil
}

// addFinding counts a unit's finding under its fingerprint, keeping the
// shortest shrunk scenario (on a tie, the lowest sequence's): the same
// whichever unit is written first.
func addFinding(ctx context.Context, tx pgx.Tx, campaign string, f explore.Finding) error {
	rec, err := json.Marshal(f.Record())
	if err != nil {
		return fmt.Errorf("campaign: finding: %w", err)
	}
	_, err = tx.Exec(ctx, `INSERT INTO conform_campaign_finding AS f (campaign, fingerprint, cause, outcome, count, first_seen, last_seen, shrunk, sequence, ops, record)
		VALUES ($1, $2, $3, $4, $5, now(), now(), $6, $7, $8, $9)
		ON CONFLICT (campaign, fingerprint) DO UPDATE SET
			count = f.count + excluded.count,
			last_seen = now(),
			record = CASE WHEN (excluded.shrunk, excluded.sequence) < (f.shrunk, f.sequence) THEN excluded.record ELSE f.record END,
			sequence = CASE WHEN (excluded.shrunk, excluded.sequence) < (f.shrunk, f.sequence) THEN excluded.sequence ELSE f.sequence END,
			shrunk = least(f.shrunk, excluded.shrunk),
			ops = ARRAY(SELECT DISTINCT o FROM unnest(f.ops || excluded.ops) AS o ORDER BY o)`,
		campaign, Fingerprint(f), f.Group(), string(f.Outcome), f.Occurrences, f.Shrunk, f.Sequence, f.Ops, rec)
	if err != nil {
		return fmt.Errorf("campaign: finding: %w", err)
	}
	return nil
}
