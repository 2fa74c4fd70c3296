package explore

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/conform-kit/conform/steps/report"
)

// The workers: each runs sequences until the run is spent and shrinks the
// findings of causes not met before while the others go on.

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
	res := Result{Seed: r.opts.Seed, RunID: r.opts.RunID, Sequences: x.next, Findings: x.kept(r.opts.FirstFinding), Unanswered: x.unanswered, Held: r.held.list()}
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
