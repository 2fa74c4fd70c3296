// Package campaign shares one exploration between processes through
// PostgreSQL: a campaign is a seed cut into a fixed number of work units
// (the sequences [first, first+size) of the seed), each a River job. Any
// number of processes on any number of hosts join a campaign and take its
// units; a unit's findings and coverage are written in the unit's own
// transaction with its job's completion, so a unit counts once. A unit a
// dead process held is taken again after its lease by River's rescuer, and
// a campaign stopped part way is continued by joining it again.
//
// Findings are kept by fingerprint (Fingerprint: the finding's cause,
// Finding.Group), with their count, first and last seen, and their
// shortest shrunk scenario; the coverage of every unit merges into the
// campaign's. A report can leave out the fingerprints a baseline campaign
// has (pull-request mode).
package campaign

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"regexp"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/conform-kit/conform/steps/explore"
)

// Defaults of a campaign and of a process taking part in one.
const (
	// DefaultUnits is the number of units of a campaign made without one.
	DefaultUnits = 64
	// DefaultUnitSize is the number of sequences of a unit: several times
	// explore's default workers, so that a unit's last sequences (the
	// longest, run while the other workers wait) are a small part of it.
	DefaultUnitSize = 64
	// DefaultMaxSteps bounds the actions of a sequence, as explore's.
	DefaultMaxSteps = 20
	// DefaultLease is how long a unit may be held before it is taken
	// again: a process that died holding it never completes it.
	DefaultLease = 10 * time.Minute
	// DefaultRetention is how long a campaign is kept after its last unit
	// was done (or, never worked, after it was made).
	DefaultRetention = 30 * 24 * time.Hour
)

// ErrSpec reports a campaign spec that cannot be made or joined.
var ErrSpec = errors.New("campaign: spec")

// ErrNotFound reports a campaign the database does not hold.
var ErrNotFound = errors.New("campaign: not found")

// Spec is a campaign as made: what every process that joins it runs.
type Spec struct {
	Name     string
	Seed     uint64
	Units    int // units of the campaign, fixed when it is made
	UnitSize int // sequences of each unit
	MaxSteps int // actions of a sequence at most
	Ops      string
}

// withDefaults fills the zero fields.
func (s Spec) withDefaults() Spec {
	if s.Units == 0 {
		s.Units = DefaultUnits
	}
	if s.UnitSize == 0 {
		s.UnitSize = DefaultUnitSize
	}
	if s.MaxSteps == 0 {
		s.MaxSteps = DefaultMaxSteps
	}
	if s.Name == "" {
		s.Name = "seed-" + strconv.FormatUint(s.Seed, 10)
	}
	return s
}

// queue is the River queue of a campaign's units: a process joining a
// campaign takes only its units.
func (s Spec) queue() string {
	sum := sha256.Sum256([]byte(s.Name))
	return "conform_campaign_" + hex.EncodeToString(sum[:8])
}

// Fingerprint is the identity of a finding across units, processes and
// campaigns: its cause (Cause), hashed. Every comparison of findings goes
// through it.
func Fingerprint(f explore.Finding) string {
	sum := sha256.Sum256([]byte(Cause(f)))
	return hex.EncodeToString(sum[:12])
}

// Cause is a finding's cause as campaigns compare it: explore's
// Finding.Group (check, outcome, basis and cause), with the values that
// differ from run to run in the cause (resource ids, numbers) written as
// {id} and {n}: the same bug met on another resource, or on a longer
// list, is one fingerprint.
func Cause(f explore.Finding) string { return normalise(f.Group()) }

// normalise writes a cause's ids as {id} and its numbers as {n}.
func normalise(group string) string {
	return volatileNumber.ReplaceAllString(volatileID.ReplaceAllString(group, "{id}"), "${1}{n}")
}

var (
	// volatileID is a resource id: two capitals and 22 letters or digits.
	volatileID = regexp.MustCompile(`\b[A-Z]{2}[A-Za-z0-9]{22}\b`)
	// volatileNumber is a number that is not part of a word (§4.10 stays).
	volatileNumber = regexp.MustCompile(`(^|[^\w.§])\d+\b`)
)

// Store is a database holding campaigns.
type Store struct {
	pool *pgxpool.Pool
}

// Open connects to the database at dsn and migrates it (River's tables,
// then the campaign's), which every process may do at once.
func Open(ctx context.Context, dsn string) (*Store, error) {
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		return nil, fmt.Errorf("campaign: %w", err)
	}
	if err := migrate(ctx, pool); err != nil {
		pool.Close()
		return nil, err
	}
	return &Store{pool: pool}, nil
}

// Close closes the store's connections.
func (s *Store) Close() { s.pool.Close() }

// Expire deletes the campaigns whose retention ended (their units, findings
// and any job left of them), and returns how many it deleted.
func (s *Store) Expire(ctx context.Context) (int, error) {
	rows, err := s.pool.Query(ctx, `DELETE FROM conform_campaign WHERE expires_at < now() RETURNING queue`)
	if err != nil {
		return 0, fmt.Errorf("campaign: expire: %w", err)
	}
	queues, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return 0, fmt.Errorf("campaign: expire: %w", err)
	}
	if len(queues) > 0 {
		if _, err := s.pool.Exec(ctx, `DELETE FROM river_job WHERE queue = ANY($1)`, queues); err != nil {
			return 0, fmt.Errorf("campaign: expire jobs: %w", err)
		}
	}
	return len(queues), nil
}

// Options configure a process taking part in a campaign.
type Options struct {
	// Explore is how units run: the target, the model, the sequences at
	// once in a unit (Workers), strictness and shrinking. Its Seed,
	// MaxSteps and Ops are the campaign's.
	Explore explore.Options
	// Time bounds this process's part: no unit starts after it, and the
	// units running then are cut and left to be done again (0: until
	// every unit of the campaign is done).
	Time time.Duration
	// Lease is how long a unit may run before it is taken again
	// (River's RescueStuckJobsAfter); default DefaultLease.
	Lease time.Duration
	// Retention is how long the campaign is kept after its last unit;
	// default DefaultRetention.
	Retention time.Duration
	// Worker names this process in the units it completes; default host/pid.
	Worker string
	// Log receives a line per unit started and done, and River's warnings
	// (nil: none).
	Log io.Writer
}

// Progress is what a process's part in a campaign came to.
type Progress struct {
	Spec    Spec
	Created bool // this process made the campaign
	Done    int  // units done by this process
	// Finished is set when every unit of the campaign is done.
	Finished bool
}

// Join makes the campaign of spec, or reads it when it exists: the one made
// first wins, and a spec naming another seed is refused.
func (s *Store) Join(ctx context.Context, spec Spec, retention time.Duration) (Spec, bool, error) {
	return s.join(ctx, spec, retention, nil)
}

func (s *Store) join(ctx context.Context, spec Spec, retention time.Duration, insert func(context.Context, pgx.Tx, Spec) error) (Spec, bool, error) {
	spec = spec.withDefaults()
	if spec.Units < 0 || spec.UnitSize < 0 || spec.MaxSteps < 0 {
		return spec, false, fmt.Errorf("%w: units, unit size and steps must not be negative", ErrSpec)
	}
	if retention <= 0 {
		retention = DefaultRetention
	}
	if _, err := s.Expire(ctx); err != nil {
		return spec, false, err
	}
	joinSeed := spec.Seed
	if spec.Seed == 0 {
		// Made now without a seed: one from the clock (a campaign that
		// exists keeps its own).
		spec.Seed = uint64(time.Now().UnixNano()) & (1<<53 - 1)
	}
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return spec, false, fmt.Errorf("campaign: %w", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx)) //nolint:errcheck // after Commit, nothing to roll back
	tag, err := tx.Exec(ctx, `INSERT INTO conform_campaign (name, seed, units, unit_size, max_steps, ops, queue, expires_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, now() + $8 * interval '1 second') ON CONFLICT (name) DO NOTHING`,
		spec.Name, int64(spec.Seed), spec.Units, spec.UnitSize, spec.MaxSteps, spec.Ops, spec.queue(), retention.Seconds())
	if err != nil {
		return spec, false, fmt.Errorf("campaign: make %s: %w", spec.Name, err)
	}
	created := tag.RowsAffected() == 1
	if created {
		if insert != nil {
			if err := insert(ctx, tx, spec); err != nil {
				return spec, false, err
			}
		}
		if err := tx.Commit(ctx); err != nil {
			return spec, false, fmt.Errorf("campaign: make %s: %w", spec.Name, err)
		}
		return spec, true, nil
	}
	got, err := readSpec(ctx, tx, spec.Name)
	if err != nil {
		return spec, false, err
	}
	if joinSeed != 0 && got.Seed != joinSeed {
		return got, false, fmt.Errorf("%w: campaign %s has seed %d, not %d", ErrSpec, got.Name, got.Seed, joinSeed)
	}
	return got, false, tx.Commit(ctx)
}

// querier is a connection, a pool or a transaction.
type querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

func readSpec(ctx context.Context, q querier, name string) (Spec, error) {
	var spec Spec
	var seed int64
	err := q.QueryRow(ctx, `SELECT name, seed, units, unit_size, max_steps, ops FROM conform_campaign WHERE name = $1`, name).
		Scan(&spec.Name, &seed, &spec.Units, &spec.UnitSize, &spec.MaxSteps, &spec.Ops)
	if errors.Is(err, pgx.ErrNoRows) {
		return spec, fmt.Errorf("%w: %s", ErrNotFound, name)
	}
	if err != nil {
		return spec, fmt.Errorf("campaign: read %s: %w", name, err)
	}
	spec.Seed = uint64(seed)
	return spec, nil
}

// Work makes or joins the campaign of spec and takes its units until every
// one is done or opts.Time ends.
func (s *Store) Work(ctx context.Context, spec Spec, opts Options) (Progress, error) {
	opts = opts.withDefaults()
	if opts.Explore.Client == nil {
		// One client for the process's units: their connections are kept.
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.MaxIdleConnsPerHost = max(opts.Explore.Workers, explore.DefaultWorkers())
		opts.Explore.Client = &http.Client{Timeout: 10 * time.Second, Transport: tr}
	}
	w := &unitWorker{store: s, opts: opts}
	workers := river.NewWorkers()
	river.AddWorker(workers, w)
	spec = spec.withDefaults()
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	if opts.Log != nil {
		logger = slog.New(slog.NewTextHandler(opts.Log, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	client, err := river.NewClient(riverpgxv5.New(s.pool), &river.Config{
		Logger: logger,
		// One unit at a time: the sequences of a unit run Explore.Workers at
		// once and take turns on the target's lists (explore's phases);
		// two units at once in one process would not, and a list walk
		// would meet the other unit's resources.
		Queues:  map[string]river.QueueConfig{spec.queue(): {MaxWorkers: 1}},
		Workers: workers,
		// The lease: a unit held longer may be taken again (see
		// unitWorker.Work); the rescuer looks for such units every 30 s.
		JobTimeout:           opts.Lease,
		RescueStuckJobsAfter: opts.Lease + time.Second,
		MaxAttempts:          maxAttempts,
		// A process asks for its next unit soon after its last: River's
		// default second between fetches was a tenth of a unit's time.
		FetchCooldown:     20 * time.Millisecond,
		FetchPollInterval: 100 * time.Millisecond,
	})
	if err != nil {
		return Progress{Spec: spec}, fmt.Errorf("campaign: %w", err)
	}
	insert := func(ctx context.Context, tx pgx.Tx, spec Spec) error {
		var batch []river.InsertManyParams
		flush := func() error {
			if len(batch) == 0 {
				return nil
			}
			if _, err := client.InsertManyTx(ctx, tx, batch); err != nil {
				return fmt.Errorf("campaign: enqueue units: %w", err)
			}
			batch = batch[:0]
			return nil
		}
		for u := range spec.Units {
			batch = append(batch, river.InsertManyParams{Args: unitArgs{Campaign: spec.Name, Unit: u, First: u * spec.UnitSize, N: spec.UnitSize},
				InsertOpts: &river.InsertOpts{Queue: spec.queue()}})
			if len(batch) == insertBatch {
				if err := flush(); err != nil {
					return err
				}
			}
		}
		return flush()
	}
	spec, created, err := s.join(ctx, spec, opts.Retention, insert)
	if err != nil {
		return Progress{Spec: spec}, err
	}
	p := Progress{Spec: spec, Created: created}
	w.spec = spec
	verb := "joined"
	if created {
		verb = "made"
	}
	logf(opts.Log, "campaign %s: %s: seed %d, %d units of %d sequences (at most %d steps each)\n", spec.Name, verb, spec.Seed, spec.Units, spec.UnitSize, spec.MaxSteps)
	if done, err := s.unitsDone(ctx, spec.Name); err == nil && done == spec.Units {
		p.Finished = true
		return p, s.finish(ctx, spec.Name, opts.Retention)
	}
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	w.run = runCtx
	if err := client.Start(ctx); err != nil {
		return p, fmt.Errorf("campaign: start: %w", err)
	}
	var deadline <-chan time.Time
	if opts.Time > 0 {
		t := time.NewTimer(opts.Time)
		defer t.Stop()
		deadline = t.C
	}
	tick := time.NewTicker(pollEvery)
	defer tick.Stop()
	var waitErr error
wait:
	for {
		select {
		case <-ctx.Done():
			waitErr = ctx.Err()
			break wait
		case <-deadline:
			break wait
		case <-tick.C:
			done, err := s.unitsDone(ctx, spec.Name)
			if err != nil {
				waitErr = err
				break wait
			}
			if done == spec.Units {
				p.Finished = true
				break wait
			}
			if lost, err := s.unitsGivenUp(ctx, spec); err != nil || lost > 0 {
				waitErr = cmp.Or(err, fmt.Errorf("campaign %s: %d units failed %d times (a target that stopped answering?) and are given up: the campaign cannot finish", spec.Name, lost, maxAttempts))
				break wait
			}
		}
	}
	// Units running now are cut (their work is not written: they are done
	// again later, by whichever process takes them).
	cancel()
	stopCtx, stopCancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer stopCancel()
	if err := client.StopAndCancel(stopCtx); err != nil && waitErr == nil {
		waitErr = fmt.Errorf("campaign: stop: %w", err)
	}
	p.Done = int(w.done.Load())
	if p.Finished {
		if err := s.finish(context.WithoutCancel(ctx), spec.Name, opts.Retention); err != nil && waitErr == nil {
			waitErr = err
		}
	}
	return p, waitErr
}

const (
	// insertBatch is how many units are enqueued per statement.
	insertBatch = 500
	// pollEvery is how often a process looks whether the campaign is done.
	pollEvery = 250 * time.Millisecond
	// maxAttempts is how often a unit that fails (a target that stopped
	// answering) is tried before it is left undone.
	maxAttempts = 10
)

func (o Options) withDefaults() Options {
	if o.Lease <= 0 {
		o.Lease = DefaultLease
	}
	if o.Retention <= 0 {
		o.Retention = DefaultRetention
	}
	if o.Worker == "" {
		host, _ := os.Hostname()
		o.Worker = fmt.Sprintf("%s/%d", host, os.Getpid())
	}
	return o
}

// unitsGivenUp counts the units River gave up after their last attempt.
func (s *Store) unitsGivenUp(ctx context.Context, spec Spec) (int, error) {
	var n int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM river_job WHERE queue = $1 AND state IN ('discarded', 'cancelled')`, spec.queue()).Scan(&n); err != nil {
		return 0, fmt.Errorf("campaign: %w", err)
	}
	return n, nil
}

func (s *Store) unitsDone(ctx context.Context, name string) (int, error) {
	var n int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM conform_campaign_unit WHERE campaign = $1`, name).Scan(&n); err != nil {
		return 0, fmt.Errorf("campaign: %w", err)
	}
	return n, nil
}

// finish marks the campaign finished and starts its retention.
func (s *Store) finish(ctx context.Context, name string, retention time.Duration) error {
	_, err := s.pool.Exec(ctx, `UPDATE conform_campaign SET finished_at = coalesce(finished_at, now()), expires_at = now() + $2 * interval '1 second' WHERE name = $1`, name, retention.Seconds())
	if err != nil {
		return fmt.Errorf("campaign: finish %s: %w", name, err)
	}
	return nil
}

func logf(w io.Writer, format string, args ...any) {
	if w != nil {
		fmt.Fprintf(w, format, args...)
	}
}
