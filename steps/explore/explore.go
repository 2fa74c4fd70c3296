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
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/conform-kit/conform/steps/report"
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

// Result is what an exploration found and covered.
type Result struct {
	Seed      uint64
	RunID     string
	Requests  int // sent to the target, shrinking included
	Sequences int
	Duration  time.Duration
	Findings  []Finding
	// Observed are the target's choices explore observed and judged with
	// (Options.Observe), as "key value"; none when a profile was given or
	// the target chose as the reference.
	Observed []string
	// Unanswered are the requests the target never answered (each ended
	// its sequence): a *NoAnswerError each, or the error that ended the
	// sequence.
	Unanswered []error
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
	// Occurrences counts the sequences that failed with the finding's
	// cause (Group); Examples are the first of them, as they failed before
	// shrinking, the one shrunk among them.
	Occurrences int
	Examples    []Example
	// Trace is the shrunk sequence as sent to the target.
	Trace []Exchange
	// Gherkin is the shrunk sequence as a feature in the suite's step
	// vocabulary; Curl a replay script.
	Gherkin, Curl string
	// Ops are the operations the finding's cause failed on, Op's first.
	Ops    []string
	assert string // the suite step that fails
	// cause is the message with the request, operation, roles, ids,
	// numbers and generated text replaced by their kinds (normalise).
	cause string
	// reproduced is set when a replay of the recipe failed alike, so the
	// finding was shrunk (as far as the replays and the time let it).
	reproduced bool
	replays    int // the replays spent shrinking it
}

// Key is how a finding fails: the same check on the same basis for one
// operation.
func (f Finding) Key() string {
	return f.Check + "|" + f.Op + "|" + string(f.Outcome) + "|" + f.Basis.Cites()
}

// Group is the finding's cause: the same check failing on the same basis
// with the same message once its request, operation, roles, ids, numbers
// and generated text are replaced by their kinds, whatever the operation (a
// crash on multi-byte tags on five operations is one finding listing the
// five; a refused capture that still captured, read back in seventeen
// sequences with seventeen transfer ids, is one finding counting
// seventeen). A shrunk sequence keeps its group.
func (f Finding) Group() string {
	return f.Check + "|" + string(f.Outcome) + "|" + f.Basis.Cites() + "|" + f.cause
}

// Cause is the finding's message as its group knows it: with its
// request, operation, roles, ids, numbers and generated text replaced by
// their kinds ("{request}", "{id}", ...).
func (f Finding) Cause() string { return f.cause }

// Clause is the finding's basis as a report cites it.
func (f Finding) Clause() string { return f.Basis.Cites() }

// Says is the spec's words a FAIL rests on ("" for a WARN).
func (f Finding) Says() string {
	if !f.Basis.Normative() {
		return ""
	}
	return f.Basis.Says
}

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
	if opts.RunID == "" {
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
	r := &runner{opts: opts, v: v, j: j, profile: prof, defaults: j.DefaultProfile(), client: client}
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

func (r *runner) run(ctx context.Context) (Result, error) {
	r.start = time.Now()
	if r.begin.IsZero() {
		r.begin = r.start
	}
	stop, err := r.startReceiver()
	if err != nil {
		return Result{}, err
	}
	defer stop()
	if r.opts.Time > 0 {
		r.deadline = r.begin.Add(r.opts.Time * 85 / 100)
		r.hardDeadline = r.begin.Add(r.opts.Time * 95 / 100)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	x := &exploration{groups: map[string]int{}, stopAt: -1}
	var wg sync.WaitGroup
	for range r.opts.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.work(ctx, cancel, x)
		}()
	}
	wg.Wait()
	res := Result{Seed: r.opts.Seed, RunID: r.opts.RunID, Sequences: x.next, Findings: x.kept(r.opts.FirstFinding), Unanswered: x.unanswered}
	res.Requests, res.Duration = int(r.requests.Load()), time.Since(r.begin)
	res.Coverage, res.Schemas = r.coverageRows()
	return res, x.err
}

// exploration is the state the workers of a run share.
type exploration struct {
	mu       sync.Mutex
	next     int            // the index of the next sequence to run
	stopAt   int            // with FirstFinding, the first failing sequence (-1: none yet)
	groups   map[string]int // Finding.Group → index in findings and state
	findings []Finding
	state    []causeState
	err      error
	// unanswered are the requests that got no answer (a timeout, a
	// connection reset): each ends its sequence; over maxUnanswered, the run.
	unanswered []error
}

// causeState is whether a cause's finding is being shrunk, and how many
// of its sequences were.
type causeState struct {
	busy  bool
	tries int
}

// maxUnanswered is how many requests without an answer a run bears.
const maxUnanswered = 5

// kept are the findings in the order of their sequences; with first, only
// the first.
func (x *exploration) kept(first bool) []Finding {
	var out []Finding
	for _, f := range x.findings {
		if f.Check != "" {
			out = append(out, f)
		}
	}
	slices.SortStableFunc(out, func(a, b Finding) int { return a.Sequence - b.Sequence })
	if first && len(out) > 1 {
		// The first FAIL if any: a WARN another sequence met first may be
		// the FAIL's effect (a refused update that was applied).
		i := max(slices.IndexFunc(out, func(f Finding) bool { return f.Outcome == report.Fail }), 0)
		out = out[i : i+1]
	}
	return out
}

// work runs sequences until the run is spent, shrinking each new finding
// itself while the other workers go on.
func (r *runner) work(ctx context.Context, cancel func(), x *exploration) {
	for {
		x.mu.Lock()
		if x.err != nil || r.spent(ctx) || (x.stopAt >= 0 && x.next > x.stopAt) {
			x.mu.Unlock()
			return
		}
		i := x.next
		x.next++
		x.mu.Unlock()
		c := newChoices(sequenceSeed(r.opts.Seed, i))
		out, err := r.sequence(ctx, c, i, 0, nil)
		if err != nil {
			x.mu.Lock()
			x.unanswered = append(x.unanswered, err)
			if x.err == nil && ctx.Err() == nil && len(x.unanswered) > maxUnanswered {
				x.err = fmt.Errorf("%w (and %d more requests without an answer)", err, maxUnanswered)
			}
			stop := x.err != nil
			x.mu.Unlock()
			if stop {
				cancel()
				return
			}
			continue // one request without an answer ends its sequence, not the run
		}
		for _, fd := range out.found {
			r.found(ctx, x, c, i, fd)
		}
	}
}

// maxShrinkTries is how many sequences of one cause are shrunk at most:
// the first, and the next ones while none replayed alike (a sequence that
// rested on what another sequence did meanwhile).
const maxShrinkTries = 3

// found takes in a finding of sequence i: a new cause is shrunk here while
// the other workers go on; a known one is counted, its operation and
// example listed, and shrunk instead when its first sequence did not
// replay alike.
func (r *runner) found(ctx context.Context, x *exploration, c *choices, i int, fd found) {
	f := *fd.finding
	ex := Example{Sequence: i, Op: f.Op, Message: f.Message}
	x.mu.Lock()
	if r.opts.FirstFinding && f.Outcome == report.Fail && (x.stopAt < 0 || i < x.stopAt) {
		x.stopAt = i // no sequence starts after it; those running finish
	}
	j, known := x.groups[f.Group()]
	if !known {
		j = len(x.findings)
		x.groups[f.Group()] = j
		x.findings = append(x.findings, Finding{})
		x.state = append(x.state, causeState{})
	}
	g, st := &x.findings[j], &x.state[j]
	g.Occurrences++
	g.Ops = addOp(g.Ops, f.Op)
	if len(g.Examples) < maxExamples {
		g.Examples = append(g.Examples, ex)
	}
	if st.busy || g.reproduced || st.tries >= maxShrinkTries {
		x.mu.Unlock()
		return
	}
	st.busy = true
	st.tries++
	x.mu.Unlock()
	f.Sequence, f.Seed, f.Original = i, r.opts.Seed, len(requestsOf(fd.trace))
	shrunk := r.shrink(ctx, c.used(), f, i, fd.trace)
	x.mu.Lock()
	g, st = &x.findings[j], &x.state[j]
	st.busy = false
	if g.Check == "" || shrunk.reproduced {
		// The first of the cause, or one shrunk where the first was not.
		shrunk.Occurrences, shrunk.Ops, shrunk.Examples = g.Occurrences, addOp(slices.Clone(g.Ops), shrunk.Op), g.Examples
		*g = shrunk
	}
	x.mu.Unlock()
	if r.opts.Log != nil {
		how := fmt.Sprintf("%d → %d requests in %d replays", shrunk.Original, shrunk.Shrunk, shrunk.replays)
		if !shrunk.reproduced {
			how = fmt.Sprintf("%d requests, not shrunk: a replay did not fail alike", shrunk.Original)
		}
		fmt.Fprintf(r.opts.Log, "explore: %s %s [%s] %s (%s)\n", shrunk.Outcome, shrunk.Check, shrunk.Clause(), shrunk.Op, how)
	}
}

// addOp is ops with op, each once.
func addOp(ops []string, op string) []string {
	if slices.Contains(ops, op) {
		return ops
	}
	return append(ops, op)
}

// overTime reports whether the run's whole time is used up: shrinking
// stops there and keeps the shortest failing sequence found so far.
func (r *runner) overTime() bool {
	return !r.hardDeadline.IsZero() && time.Now().After(r.hardDeadline)
}

// spent reports whether the budget or the time is used up.
func (r *runner) spent(ctx context.Context) bool {
	if ctx.Err() != nil {
		return true
	}
	if r.opts.Budget > 0 && r.requests.Load() >= int64(r.opts.Budget) {
		return true
	}
	return !r.deadline.IsZero() && time.Now().After(r.deadline)
}
