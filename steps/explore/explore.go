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
	"strconv"
	"strings"
	"time"

	"github.com/conform-kit/conform/steps"
	"github.com/conform-kit/conform/steps/report"
	"github.com/conform-kit/conform/validate"
	"github.com/conform-kit/conform/validate/judging"
)

// Model gives a fresh conformant server for each sequence: its handler, the
// users and fixtures it seeded (in the suite's config form), and a function
// releasing it.
type Model func() (http.Handler, steps.Config, func(), error)

// Options configure an exploration.
type Options struct {
	// Target is the server under test: base URL, users, fixtures, profile.
	Target steps.Config
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
	// Time bounds the exploration (0: none). With neither bound, DefaultTime.
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
	// FirstFinding stops the exploration at its first finding (a self-test).
	FirstFinding bool
	// Log receives a line per finding as it is found (nil: none).
	Log io.Writer
}

// DefaultTime is the exploration's length when no bound is given.
const DefaultTime = 20 * time.Second

// ErrOptions reports unusable options.
var ErrOptions = errors.New("explore: options")

// Result is what an exploration found and covered.
type Result struct {
	Seed      uint64
	RunID     string
	Requests  int // sent to the target, shrinking included
	Sequences int
	Duration  time.Duration
	Findings  []Finding
	// Coverage is every operation the explorer can reach with the
	// target's answers; Schemas every request schema (and the list query)
	// with the leaves sent and the keyword boundaries reached.
	Coverage []report.ExploredOp
	Schemas  []report.ExploredSchema
}

// Failed reports whether any finding is a FAIL (WARN too under strict).
func (r Result) Failed() bool {
	for _, f := range r.Findings {
		if f.Outcome == report.Fail {
			return true
		}
	}
	return false
}

// Count is the number of findings of an outcome.
func (r Result) Count(o report.Outcome) int {
	n := 0
	for _, f := range r.Findings {
		if f.Outcome == o {
			n++
		}
	}
	return n
}

// Finding is one failed check, shrunk.
type Finding struct {
	Check    string // checkShape, checkEnvelope, ...
	Op       string
	Outcome  report.Outcome
	Basis    judging.Basis
	Message  string
	Expected string
	Observed string
	// Sequence is the index of the sequence (under Seed) that first failed.
	Sequence int
	// Seed is the run's seed; Recipe the shrunk sequence's draws.
	Seed   uint64
	Recipe []uint32
	// Original and Shrunk are the numbers of requests before and after shrinking.
	Original, Shrunk int
	// Occurrences counts the sequences that failed the same way.
	Occurrences int
	// Trace is the shrunk sequence as sent to the target.
	Trace []Exchange
	// Gherkin is the shrunk sequence as a feature in the suite's step
	// vocabulary; Curl a replay script.
	Gherkin, Curl string
	assert        string // the suite step that fails
}

// Key groups findings: the same check on the same basis for one operation.
func (f Finding) Key() string {
	return f.Check + "|" + f.Op + "|" + string(f.Outcome) + "|" + f.Basis.Cites()
}

// Clause is the finding's basis as a report cites it.
func (f Finding) Clause() string { return f.Basis.Cites() }

// Exchange is one request and its answer.
type Exchange struct {
	Step        Step
	User        string
	Method      string
	Path        string // expanded, with query
	ContentType string
	Body        string // expanded
	Status      int
	Response    string
	doc         any
	// Page is set on the pages of a walk after the first, and on the
	// prelude's reads; Probe on the list reads around a refused create.
	Page, Probe bool
}

// Check names.
const (
	checkServerError   = "no 5xx for a request"
	checkShape         = "normative response shape"
	checkEnvelope      = "error envelope on a refusal"
	checkForbidden     = "forbidden request refused"
	checkAllowed       = "allowed request not refused"
	checkChangesNone   = "refused request changes nothing"
	checkReadBack      = "read back as sent"
	checkComputed      = "computed field"
	checkListWalk      = "list pages walk to page.count"
	checkListComplete  = "list holds what the run made"
	checkTenancy       = "another application sees nothing"
	checkSecrets       = "no secret in an answer"
	checkSuccessStatus = "success status"
)

// Run explores the target until the budget or the time is spent, or ctx ends.
func Run(ctx context.Context, opts Options) (Result, error) {
	r, err := newRunner(opts)
	if err != nil {
		return Result{}, err
	}
	return r.run(ctx)
}

type runner struct {
	opts     Options
	v        *validate.Validator
	j        *judging.Judge
	profile  judging.Profile
	defaults judging.Profile
	actions  []action
	client   *http.Client
	start    time.Time
	requests int
	replays  int
	hookBase string // the explorer's own webhook receiver, answering 200 to every delivery
	contract *contract
	coverage *coverage
	deadline time.Time
	shapes   shapes // which fields the normative schemas show
	// judged, when set (a test), sees every step judged with both answers.
	judged func(st Step, expect []expectField, target, model Exchange)
}

func newRunner(opts Options) (*runner, error) {
	if opts.Model == nil {
		return nil, fmt.Errorf("%w: a model is required", ErrOptions)
	}
	if opts.Target.Target == "" {
		return nil, fmt.Errorf("%w: a target URL is required", ErrOptions)
	}
	if opts.Budget < 0 || opts.Time < 0 {
		return nil, fmt.Errorf("%w: budget and time must not be negative", ErrOptions)
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
	if opts.RunID == "" {
		opts.RunID = strconv.FormatInt(time.Now().UnixNano()%1e9, 36)
	}
	if opts.Budget == 0 && opts.Time == 0 {
		opts.Time = DefaultTime
	}
	client := opts.Client
	if client == nil {
		client = &http.Client{Timeout: 10 * time.Second}
	}
	r := &runner{opts: opts, v: v, j: j, profile: prof, defaults: j.DefaultProfile(), client: client}
	if r.contract, err = newContract(j, prof.ListMaxLimit); err != nil {
		return nil, err
	}
	r.coverage = newCoverage(r.contract)
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

func (r *runner) run(ctx context.Context) (Result, error) {
	r.start = time.Now()
	stop, err := r.startReceiver()
	if err != nil {
		return Result{}, err
	}
	defer stop()
	if r.opts.Time > 0 {
		r.deadline = r.start.Add(r.opts.Time)
	}
	res := Result{Seed: r.opts.Seed, RunID: r.opts.RunID}
	byKey := map[string]int{}
	for i := 0; !r.spent(ctx); i++ {
		res.Sequences++
		c := newChoices(sequenceSeed(r.opts.Seed, i))
		out, err := r.sequence(ctx, c, i, true)
		if err != nil {
			return res, err
		}
		if out.finding == nil {
			continue
		}
		f := *out.finding
		if j, ok := byKey[f.Key()]; ok {
			res.Findings[j].Occurrences++
			continue
		}
		f.Sequence, f.Seed, f.Original = i, r.opts.Seed, len(requestsOf(out.trace))
		shrunk := r.shrink(ctx, c.used(), f, i, out.trace)
		byKey[shrunk.Key()] = len(res.Findings)
		if r.opts.Log != nil {
			fmt.Fprintf(r.opts.Log, "explore: %s %s [%s] %s (%d → %d requests)\n", shrunk.Outcome, shrunk.Check, shrunk.Clause(), shrunk.Op, shrunk.Original, shrunk.Shrunk)
		}
		res.Findings = append(res.Findings, shrunk)
		if r.opts.FirstFinding {
			break
		}
	}
	res.Requests, res.Duration = r.requests, time.Since(r.start)
	res.Coverage, res.Schemas = r.coverageRows()
	return res, nil
}

// spent reports whether the budget or the time is used up.
func (r *runner) spent(ctx context.Context) bool {
	if ctx.Err() != nil {
		return true
	}
	if r.opts.Budget > 0 && r.requests >= r.opts.Budget {
		return true
	}
	return !r.deadline.IsZero() && time.Now().After(r.deadline)
}
