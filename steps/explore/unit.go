package explore

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/conform-kit/conform/steps/report"
	"github.com/conform-kit/conform/validate/judging"
)

// Units: the hook of a campaign (package campaign), which shares the
// sequences of one seed between processes. A unit is the sequences
// [First, First+N) of a seed: they send the same requests whichever process
// runs them, and a unit's findings and coverage merge with any other's.

// Unit is what the sequences [First, First+N) of a seed found and covered.
type Unit struct {
	First, N int
	// Requests are those sent to the target, shrinking included.
	Requests int
	// Findings are one per Finding.Group, each the finding of the lowest
	// sequence of its group, shrunk, with Occurrences the unit's sequences
	// that failed so and Ops their operations.
	Findings []Finding
	// Unanswered counts the sequences a request without an answer ended.
	Unanswered int
	Coverage   Coverage
}

// RunUnit runs the sequences [first, first+n) of opts.Seed, opts.Workers of
// them at once (opts.Budget, opts.Time, opts.Observe and opts.FirstFinding
// do not apply: a unit runs whole), then shrinks the first finding of each
// group. The findings do not depend on the number of workers: each group
// keeps its lowest sequence's. More than a few requests without an answer
// fail the unit (its work is then to be done again).
func RunUnit(ctx context.Context, opts Options, first, n int) (Unit, error) {
	if first < 0 || n <= 0 {
		return Unit{}, fmt.Errorf("%w: a unit needs a first sequence >= 0 and at least one sequence", ErrOptions)
	}
	opts.Budget, opts.Observe, opts.FirstFinding = 0, nil, false
	r, err := newRunner(opts)
	if err != nil {
		return Unit{}, err
	}
	stop, err := r.startReceiver()
	if err != nil {
		return Unit{}, err
	}
	defer stop()
	r.begin, r.start = time.Now(), time.Now()
	// What a sequence leaves: its findings (with their traces) and its
	// draws, only when it found something; its whole trace is dropped as
	// it ends, as Run drops it (a unit of hundreds of traces held to its
	// end cost the collector more than the requests did).
	type ran struct {
		recipe []uint32
		found  []found
		err    error
	}
	runs := make([]ran, n)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(r.opts.Workers, n) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < n && ctx.Err() == nil; i = int(next.Add(1) - 1) {
				c := newChoices(sequenceSeed(r.opts.Seed, first+i))
				out, err := r.sequence(ctx, c, first+i, 0, nil)
				runs[i] = ran{found: out.found, err: err}
				if len(out.found) > 0 {
					runs[i].recipe = c.used()
				}
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return Unit{}, err
	}
	u := Unit{First: first, N: n}
	type group struct {
		index    int
		recipe   []uint32
		fd       found
		count    int
		ops      []string
		examples []Example
	}
	var groups []*group
	byKey := map[string]*group{}
	for i, run := range runs {
		if run.err != nil {
			u.Unanswered++
			if u.Unanswered > maxUnanswered {
				return Unit{}, fmt.Errorf("explore: unit %d+%d: %w (and %d more sequences ended without an answer)", first, n, run.err, maxUnanswered)
			}
			continue
		}
		for _, fd := range run.found {
			g := byKey[fd.finding.Group()]
			if g == nil {
				g = &group{index: first + i, recipe: run.recipe, fd: fd}
				byKey[fd.finding.Group()] = g
				groups = append(groups, g)
			}
			g.count++
			g.ops = addOp(g.ops, fd.finding.Op)
			if len(g.examples) < maxExamples {
				g.examples = append(g.examples, Example{Sequence: first + i, Op: fd.finding.Op, Message: fd.finding.Message})
			}
		}
	}
	u.Findings = make([]Finding, len(groups))
	var sw sync.WaitGroup
	sem := make(chan struct{}, max(r.opts.Workers, 1))
	for k, g := range groups {
		sw.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			f := *g.fd.finding
			f.Sequence, f.Seed, f.Original = g.index, r.opts.Seed, len(requestsOf(g.fd.trace))
			shrunk := r.shrink(ctx, g.recipe, f, g.index, g.fd.trace)
			shrunk.Occurrences = g.count
			shrunk.Ops = addOp(slices.Clone(g.ops), shrunk.Op)
			shrunk.Examples = g.examples
			u.Findings[k] = shrunk
		})
	}
	sw.Wait()
	if err := ctx.Err(); err != nil {
		return Unit{}, err // shrinking cut: the unit is to be done again
	}
	u.Requests = int(r.requests.Load())
	u.Coverage = r.coverage.snapshot()
	return u, nil
}

// Coverage is what requests reached, as data that merges: per operation
// the target's answers, per request schema the leaves sent and the
// boundaries reached. Merging two units' coverage is their union.
type Coverage struct {
	Ops    map[string]OpCount  `json:"ops,omitempty"`
	Leaves map[string][]string `json:"leaves,omitempty"` // schema → leaf paths sent
	Bounds map[string][]string `json:"bounds,omitempty"` // schema → "path: boundary" reached
}

// OpCount is an operation's answers by class; Unknown counts those of
// them answered as an unknown route (404, 405).
type OpCount struct {
	Accepted int `json:"accepted,omitempty"`
	Refused  int `json:"refused,omitempty"`
	Errored  int `json:"errored,omitempty"`
	Unknown  int `json:"unknown,omitempty"`
}

// Merge adds o to c: answers summed, leaves and boundaries united.
func (c *Coverage) Merge(o Coverage) {
	if c.Ops == nil {
		c.Ops = map[string]OpCount{}
	}
	for id, n := range o.Ops {
		m := c.Ops[id]
		m.Accepted, m.Refused, m.Errored, m.Unknown = m.Accepted+n.Accepted, m.Refused+n.Refused, m.Errored+n.Errored, m.Unknown+n.Unknown
		c.Ops[id] = m
	}
	union := func(dst *map[string][]string, src map[string][]string) {
		if *dst == nil {
			*dst = map[string][]string{}
		}
		for k, vs := range src {
			merged := append(slices.Clone((*dst)[k]), vs...)
			slices.Sort(merged)
			(*dst)[k] = slices.Compact(merged)
		}
	}
	union(&c.Leaves, o.Leaves)
	union(&c.Bounds, o.Bounds)
}

// snapshot is the coverage as mergeable data.
func (cv *coverage) snapshot() Coverage {
	cv.mu.Lock()
	defer cv.mu.Unlock()
	out := Coverage{Ops: map[string]OpCount{}, Leaves: map[string][]string{}, Bounds: map[string][]string{}}
	for id, c := range cv.ops {
		out.Ops[id] = OpCount{Accepted: c.Accepted, Refused: c.Refused, Errored: c.Errored, Unknown: cv.unknown[id]}
	}
	set := func(m map[string]map[string]bool, into map[string][]string) {
		for schema, keys := range m {
			into[schema] = slices.Sorted(maps.Keys(keys))
		}
	}
	set(cv.leaves, out.Leaves)
	set(cv.bounds, out.Bounds)
	return out
}

// restore sets the coverage to data a snapshot (or a merge of them) holds.
func (cv *coverage) restore(c Coverage) {
	cv.mu.Lock()
	defer cv.mu.Unlock()
	for id, n := range c.Ops {
		cv.ops[id] = &report.ExploredOp{ID: id, Accepted: n.Accepted, Refused: n.Refused, Errored: n.Errored}
		cv.unknown[id] = n.Unknown
	}
	set := func(from map[string][]string, into map[string]map[string]bool) {
		for schema, keys := range from {
			into[schema] = map[string]bool{}
			for _, k := range keys {
				into[schema][k] = true
			}
		}
	}
	set(c.Leaves, cv.leaves)
	set(c.Bounds, cv.bounds)
}

// Merged is the Result of units run under opts: their findings (one per
// group, merged by the caller), sequences, requests and merged coverage,
// as Run's Result is, for the console and the reports.
func Merged(opts Options, findings []Finding, cov Coverage, sequences, requests int, took time.Duration) (Result, error) {
	r, err := newRunner(opts)
	if err != nil {
		return Result{}, err
	}
	r.coverage.restore(cov)
	res := Result{Seed: r.opts.Seed, RunID: r.opts.RunID, Sequences: sequences, Requests: requests, Duration: took, Findings: findings}
	res.Coverage, res.Schemas = r.coverageRows()
	return res, nil
}

// Record is a finding as data a store keeps: every field but the trace,
// which keeps only the request that failed.
type Record struct {
	Check       string            `json:"check"`
	Op          string            `json:"op"`
	Outcome     report.Outcome    `json:"outcome"`
	Basis       judging.Basis     `json:"basis"`
	Message     string            `json:"message"`
	Expected    string            `json:"expected,omitempty"`
	Observed    string            `json:"observed,omitempty"`
	Sequence    int               `json:"sequence"`
	Seed        uint64            `json:"seed"`
	Recipe      []uint32          `json:"recipe,omitempty"`
	Original    int               `json:"original"`
	Shrunk      int               `json:"shrunk"`
	Occurrences int               `json:"occurrences"`
	Gherkin     string            `json:"gherkin"`
	Curl        string            `json:"curl"`
	Ops         []string          `json:"ops,omitempty"`
	Assert      string            `json:"assert,omitempty"`
	Cause       string            `json:"cause,omitempty"`
	Examples    []Example         `json:"examples,omitempty"`
	Failed      *RecordedExchange `json:"failed,omitempty"`
}

// RecordedExchange is the failing request of a Record and its answer.
type RecordedExchange struct {
	User     string `json:"user,omitempty"`
	Method   string `json:"method"`
	Path     string `json:"path"`
	Body     string `json:"body,omitempty"`
	Status   int    `json:"status"`
	Response string `json:"response,omitempty"`
}

// Record is the finding as data a store keeps.
func (f Finding) Record() Record {
	rec := Record{Check: f.Check, Op: f.Op, Outcome: f.Outcome, Basis: f.Basis, Message: f.Message, Expected: f.Expected, Observed: f.Observed,
		Sequence: f.Sequence, Seed: f.Seed, Recipe: f.Recipe, Original: f.Original, Shrunk: f.Shrunk, Occurrences: f.Occurrences,
		Gherkin: f.Gherkin, Curl: f.Curl, Ops: f.Ops, Assert: f.assert, Cause: f.cause, Examples: f.Examples}
	if reqs := requestsOf(f.Trace); len(reqs) > 0 {
		ex := reqs[len(reqs)-1]
		rec.Failed = &RecordedExchange{User: ex.User, Method: ex.Method, Path: ex.Path, Body: ex.Body, Status: ex.Status, Response: ex.Response}
	}
	return rec
}

// Finding is the finding a Record keeps: its Group and its reports are the
// finding's own.
func (rec Record) Finding() Finding {
	f := Finding{Check: rec.Check, Op: rec.Op, Outcome: rec.Outcome, Basis: rec.Basis, Message: rec.Message, Expected: rec.Expected, Observed: rec.Observed,
		Sequence: rec.Sequence, Seed: rec.Seed, Recipe: rec.Recipe, Original: rec.Original, Shrunk: rec.Shrunk, Occurrences: rec.Occurrences,
		Gherkin: rec.Gherkin, Curl: rec.Curl, Ops: rec.Ops, assert: rec.Assert, cause: rec.Cause, Examples: rec.Examples}
	if ex := rec.Failed; ex != nil {
		f.Trace = []Exchange{{Step: Step{Method: ex.Method}, User: ex.User, Method: ex.Method, Path: ex.Path, Body: ex.Body, Status: ex.Status, Response: ex.Response}}
	}
	return f
}
