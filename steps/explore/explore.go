// Package explore generates request sequences from the contract, sends
// each to a target and to a fresh model (a conformant server answering the
// same sequence in-process), judges every answer by the kit's judging law
// and shrinks a failing sequence to the fewest, simplest requests that fail
// the same check on the same basis. A finding prints as a Gherkin scenario
// in the suite's own step vocabulary, a curl replay script and the seed.
//
// The package never imports the reference: the model is a Model, which the
// CLI wires to the bundled reference.
package explore

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"net/http"
	"path"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/conform-kit/conform/validate"
	"github.com/conform-kit/conform/validate/judging"
)

// Model gives a fresh conformant server for each sequence: its handler, the
// users and fixtures it seeded (its URL is not used), and a function
// releasing it.
type Model func() (http.Handler, Target, func(), error)

// Options configure an exploration.
type Options struct {
	// Target is the server under test: base URL, users, fixtures, profile.
	Target Target
	// Model answers every sequence as a conformant server would.
	Model Model
	// Client sends the target's requests; default a client with a 10s timeout.
	Client *http.Client
	// Seed decides every request; the same seed and RunID send the same requests.
	Seed uint64
	// RunID makes the run's idempotency ids its own, so a run does not
	// replay an earlier run's answers; default derived from the clock.
	RunID string
	// Budget bounds the requests sent to the target (0: none).
	Budget int
	// Time bounds the whole run (0: none), the observation included: new
	// sequences start until 85% of it, and the rest is for the last
	// sequences, shrinking (stopped at 95%, each finding shrunk as far as
	// it got) and clean-up. With neither bound, DefaultTime.
	Time time.Duration
	// Ops selects operations by id with comma-separated path.Match
	// patterns ("authorizations.*,transfers.create"); "" selects all.
	Ops string
	// Strict turns WARN into FAIL.
	Strict bool
	// MaxSteps bounds the actions of a sequence; default 20.
	MaxSteps int
	// ShrinkRuns bounds the replays spent shrinking one finding; default 300.
	ShrinkRuns int
	// FirstFinding stops the exploration at its first FAIL (a self-test):
	// no sequence starts after the first that FAILs, those running finish,
	// and one finding is kept: the FAIL of the lowest sequence, else the
	// WARN of the lowest. A WARN does not stop it: a fault breaking a rule
	// everywhere may first show on an operation the spec does not name
	// (a WARN under extensions) and then on one it names (a FAIL), and a
	// fault expected to WARN is explored to the budget and must FAIL
	// nowhere.
	FirstFinding bool
	// Workers is the number of sequences run at once, each with its own
	// model; default DefaultWorkers.
	Workers int
	// Observe, for a target without a profile, is first run against it,
	// and the exploration judges with the profile it returns (as conform
	// run --write-profile writes it): the target's observed choices. Nil:
	// no observation.
	Observe Observer
	// Log receives a line per finding as it is found (nil: none).
	Log io.Writer
}

// DefaultTime is the exploration's length when no bound is given.
const DefaultTime = 20 * time.Second

// DefaultWorkers is the number of sequences run at once by default: 4 per
// processor, at least 16 (a remote target's round trip, not the processor,
// bounds a sequence) and at most 64.
func DefaultWorkers() int { return min(max(4*runtime.GOMAXPROCS(0), 16), 64) }

// ErrOptions reports unusable options.
var ErrOptions = errors.New("explore: options")

// Run explores the target until the budget or the time is spent, or ctx ends.
func Run(ctx context.Context, opts Options) (Result, error) {
	if _, err := newRunner(opts); err != nil {
		return Result{}, err // the options, checked before the suite runs
	}
	begin := time.Now() // --time bounds the whole run: the observation too
	var observed []string
	if opts.Observe != nil && len(opts.Target.Profile) == 0 {
		profile, keys, err := observe(ctx, opts.Observe, max(opts.Workers, 4))
		if err != nil {
			return Result{}, err
		}
		opts.Target.Profile, observed = profile, keys
	}
	r, err := newRunner(opts)
	if err != nil {
		return Result{}, err
	}
	r.begin = begin
	res, err := r.run(ctx)
	res.Observed = observed
	return res, err
}

type runner struct {
	opts     Options
	v        *validate.Validator
	j        *judging.Judge
	profile  judging.Profile
	defaults judging.Profile
	actions  []action
	selected func(op string) bool // the operations --ops selects
	client   *http.Client
	begin    time.Time // the run's start, its observation included
	start    time.Time // the exploration's start
	// hardDeadline ends shrinking, a replay under way included, at 95% of
	// the time: a finding is kept shrunk as far as it got. deadline (below)
	// ends new sequences at 85%, for the last sequences, their shrinking
	// and clean-up, so the run ends within its time.
	hardDeadline time.Time
	requests     atomic.Int64 // sent to the target, shrinking included
	hookBase     string       // the explorer's own webhook receiver, answering 200 to every delivery
	deliveries   deliveries   // what the receiver took at the questions' urls
	contract     *contract    // the request schemas as leaves and boundaries
	coverage     *coverage    // what the requests reached (safe for concurrent use)
	deadline     time.Time
	// The target's state sequences share: list walks and the writes that
	// could change a list take turns (phases); the mutable fixtures (the
	// merchants' Level 2/3 processing) are changed under fixtures' lock,
	// which counts the updates sent to each.
	phases   kindPhases
	fixtures *sharedFixtures
	shapes   shapes // which fields the normative schemas show
	// sent are the digit strings the run sent outside its secret fields:
	// a short secret equal to one of them in an answer is not a leak.
	sent sentValues
	// held are the run's idempotency ids the target held from an
	// earlier run (replayed.go).
	held heldIDs
	// mintedRunID says the run id is this run's own, minted from the
	// clock: no earlier run sent its idempotency ids (heldBefore).
	mintedRunID bool
	// judged, when set (a test), sees every step judged with both answers.
	judged func(st Step, expect []expectField, target, model Exchange)
}

func newRunner(opts Options) (*runner, error) {
	if opts.Model == nil {
		return nil, fmt.Errorf("%w: a model is required", ErrOptions)
	}
	if opts.Target.URL == "" {
		return nil, fmt.Errorf("%w: a target URL is required", ErrOptions)
	}
	if opts.Budget < 0 || opts.Time < 0 || opts.Workers < 0 {
		return nil, fmt.Errorf("%w: budget, time and workers must not be negative", ErrOptions)
	}
	if opts.Workers == 0 {
		opts.Workers = DefaultWorkers()
	}
	j, err := judging.Default()
	if err != nil {
		return nil, err
	}
	v := j.Validator()
	prof := j.DefaultProfile()
	if len(opts.Target.Profile) > 0 {
		if prof, err = j.MergeProfile(prof, opts.Target.Profile); err != nil {
			return nil, fmt.Errorf("%w: profile: %w", ErrOptions, err)
		}
	}
	if opts.MaxSteps <= 0 {
		opts.MaxSteps = 20
	}
	if opts.ShrinkRuns <= 0 {
		opts.ShrinkRuns = 300
	}
	mintedRunID := opts.RunID == ""
	if mintedRunID {
		opts.RunID = strconv.FormatInt(time.Now().UnixNano()%1e9, 36)
	}
	if opts.Budget == 0 && opts.Time == 0 {
		opts.Time = DefaultTime
	}
	client := opts.Client
	if client == nil {
		// One kept-alive connection per worker.
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.MaxIdleConnsPerHost = opts.Workers
		client = &http.Client{Timeout: 10 * time.Second, Transport: tr}
	}
	r := &runner{opts: opts, v: v, j: j, profile: prof, defaults: j.DefaultProfile(), client: client, mintedRunID: mintedRunID}
	if r.contract, err = newContract(j, prof.ListMaxLimit); err != nil {
		return nil, err
	}
	r.coverage = newCoverage(r.contract)
	r.fixtures = newSharedFixtures(v, r.contract)
	var patterns []string
	for p := range strings.SplitSeq(opts.Ops, ",") {
		if p = strings.TrimSpace(p); p != "" {
			if _, err := path.Match(p, ""); err != nil {
				return nil, fmt.Errorf("%w: --ops pattern %q: %w", ErrOptions, p, err)
			}
			patterns = append(patterns, p)
		}
	}
	selected := func(op string) bool {
		if len(patterns) == 0 {
			return true
		}
		for _, p := range patterns {
			if ok, _ := path.Match(p, op); ok {
				return true
			}
		}
		return false
	}
	r.selected = selected
	r.actions = actionsFor(r.offers, selected)
	if len(r.actions) == 0 {
		return nil, fmt.Errorf("%w: --ops %q selects no operation the target offers", ErrOptions, opts.Ops)
	}
	hasAlways := false
	for _, a := range r.actions {
		if a.ready(&generator{roles: map[string][]string{}, deleted: map[string]bool{}}) {
			hasAlways = true
		}
	}
	if !hasAlways {
		// The selected operations need resources made by others: add their makers.
		for _, a := range actionsFor(r.offers, func(op string) bool {
			return op == "payment_instruments.create" || op == "authorizations.create" || op == "webhooks.create" ||
				op == "files.create" || op == "subscription_schedules.create" || op == "subscription_amounts.create" || op == "subscription_enrollments.create"
		}) {
			r.actions = append(r.actions, a)
		}
	}
	return r, nil
}

// offers reports whether the target offers the operation (its profile's extensions).
func (r *runner) offers(id string) bool {
	op, ok := r.v.Operation(id)
	return ok && r.profile.Offers(op)
}

// sequenceSeed derives the seed of sequence i of a run.
func sequenceSeed(seed uint64, i int) uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%d/%d", seed, i)
	return h.Sum64()
}
