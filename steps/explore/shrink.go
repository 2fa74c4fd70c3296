package explore

import (
	"context"
	"fmt"
	"slices"
)

// shrink reduces a failing recipe to the fewest requests and the simplest
// draws that fail with the same cause (Group: check, basis and normalised
// message): every candidate is run again against the target and the model
// and judged anew, and only one failing the same way in no more requests
// is kept, so a shrunk finding never changes its verdict, its basis or
// what its message says. Actions go first (fewer actions have fewer draws
// to lower), then values: each action's draws at 0 (its simplest
// alternative; for a probe, not sending it), all at once, else by halves
// down to single draws, then each draw left halved; over again until
// nothing changes, the replays (ShrinkRuns) run out or the run's time
// does. No candidate runs twice.
func (r *runner) shrink(ctx context.Context, recipe []uint32, f Finding, index int, trace []Exchange) Finding {
	best := slices.Clone(recipe)
	runs := 0
	// Every replay starts from the merchants the sequence started from.
	start := r.fixtures.startState(trace)
	if !r.hardDeadline.IsZero() {
		// A replay under way at the run's end is cut: the best so far stays.
		var cancel func()
		ctx, cancel = context.WithDeadline(ctx, r.hardDeadline)
		defer cancel()
	}
	if r.overTime() {
		// The run's time is spent: the finding as found.
		f.Recipe = best
		return r.render(f, trace)
	}
	bestOut, ok := r.replaySame(ctx, best, f, index, 1, start)
	if !ok {
		// Not reproduced (a target that changes on its own, or a sequence
		// that rested on what another did meanwhile): kept as found.
		f.Recipe = best
		return r.render(f, trace)
	}
	bestLen := failingLength(bestOut, f)
	tried := map[string]bool{} // candidates run already: none twice
	var last outcome           // what the last candidate run did
	try := func(cand []uint32) bool {
		last = outcome{}
		if runs >= r.opts.ShrinkRuns || ctx.Err() != nil || r.overTime() {
			return false
		}
		key := fmt.Sprint(cand)
		if tried[key] {
			return false
		}
		tried[key] = true
		runs++
		out, same := r.replaySame(ctx, cand, f, index, runs+1, start)
		last = out
		if !same || failingLength(out, f) > bestLen {
			return false
		}
		best, bestOut, bestLen = cand, out, failingLength(out, f)
		return true
	}
	for improved := true; improved && runs < r.opts.ShrinkRuns; {
		improved = false
		// Fewer actions first, until no action can go: a shorter sequence
		// has fewer draws to lower.
		for again := true; again && runs < r.opts.ShrinkRuns; {
			again = r.shrinkActions(&best, &bestOut, try)
			improved = improved || again
		}
		// The plainest values: each action's draws at 0, halves of them
		// at once and down to one (a replay per needed draw and halving,
		// not one per draw), the two choosing the action alone; then
		// each draw left halved.
		for k := len(bestOut.marks) - 1; k >= 0; k-- {
			if k >= len(bestOut.marks) {
				continue // a kept candidate made fewer actions
			}
			m := bestOut.marks[k]
			if m.end > len(best) || m.start >= m.end {
				continue
			}
			if from, to := m.start+2, m.end; from < to && slices.ContainsFunc(best[from:to], func(d uint32) bool { return d != 0 }) {
				cand := slices.Clone(best)
				clear(cand[from:to])
				if try(cand) {
					improved = true
					continue
				}
				// The action took fewer draws at 0 (no tags, no items): the
				// next actions read the rest of its draws and meant
				// something else. Those draws go, so the next actions read
				// their own.
				if k < len(last.marks) && last.marks[k].start == m.start && last.marks[k].end < to {
					aligned := append(slices.Clone(cand[:last.marks[k].end]), cand[to:]...)
					if try(aligned) {
						improved = true
						continue
					}
				}
			}
			improved = zeroRange(best, m.start+2, m.end, try) || improved
			for i := m.start; i < min(m.start+2, m.end); i++ {
				improved = zeroRange(best, i, i+1, try) || improved
			}
		}
		for i := 1; i < len(best); i++ {
			for best[i] > 1 && best[i] < seedDraw {
				cand := slices.Clone(best)
				cand[i] = best[i] / 2
				if !try(cand) {
					break
				}
				improved = true
			}
		}
	}
	orig := f.Original
	fd, _ := bestOut.has(f.Group())
	f = *fd.finding
	f.Sequence, f.Seed, f.Original, f.Recipe, f.reproduced, f.replays = index, r.opts.Seed, orig, best, true, runs+1
	return r.render(f, fd.trace)
}

// seedDraw is the least draw taken for a seed of a stream of its own (a
// probe's, a value's): halving one does not make its stream simpler.
const seedDraw = 1 << 20

// zeroRange tries the draws of best in [from, to) at 0 (try keeps the
// candidate in best when it fails alike): all at once, else each half in
// turn, down to single draws. It reports whether any was kept. best is
// read anew after each try, which replaces it when kept.
func zeroRange(best []uint32, from, to int, try func([]uint32) bool) bool {
	to = min(to, len(best))
	for from < to && best[from] == 0 {
		from++
	}
	for to > from && best[to-1] == 0 {
		to--
	}
	if from >= to {
		return false
	}
	cand := slices.Clone(best)
	clear(cand[from:to])
	if try(cand) {
		copy(best, cand)
		return true
	}
	if to-from == 1 {
		return false
	}
	mid := (from + to) / 2
	a := zeroRange(best, from, mid, try)
	b := zeroRange(best, mid, to, try)
	return a || b
}

// failingLength is the number of requests of an outcome up to its finding
// of f's cause.
func failingLength(out outcome, f Finding) int {
	fd, _ := out.has(f.Group())
	return len(requestsOf(fd.trace))
}

// shrinkActions tries sequences of fewer actions once each, keeping those
// that fail alike (try): the length draw, searched by halves (a sequence
// stops at its failure, so every length past the shortest failing one
// fails too); blocks of whole actions, largest first; then each action,
// last first. It reports whether any was kept.
func (r *runner) shrinkActions(best *[]uint32, bestOut *outcome, try func([]uint32) bool) bool {
	kept := false
	if len(*best) > 0 {
		lo, hi := 0, int((*best)[0])
		for lo < hi {
			mid := (lo + hi) / 2
			cand := slices.Clone(*best)
			cand[0] = uint32(mid)
			if try(cand) {
				hi, kept = mid, true
			} else {
				lo = mid + 1
			}
		}
	}
	// Blocks: actions that only set up each other (a file and its links
	// before an unrelated sale) go together, where deleting one alone
	// would leave the others making what it made, with draws meaning
	// something else.
	for k := len(bestOut.marks) - 1; k >= 2; k /= 2 {
		for lo := 0; lo+k <= len(bestOut.marks); lo += k {
			m := bestOut.marks
			first, last := m[lo], m[lo+k-1]
			if first.start >= last.end || last.end > len(*best) {
				continue
			}
			cand := append(slices.Clone((*best)[:first.start]), (*best)[last.end:]...)
			if len(cand) > 0 {
				cand[0] = uint32(max(int(cand[0])-k, 0))
			}
			if try(cand) {
				kept = true
				lo -= k // the same place now holds the next actions
			}
		}
	}
	marks := bestOut.marks
	for i := len(marks) - 1; i >= 0; i-- {
		m := marks[i]
		if m.end <= m.start || m.end > len(*best) {
			continue
		}
		cand := append(slices.Clone((*best)[:m.start]), (*best)[m.end:]...)
		if len(cand) > 0 && cand[0] > 0 {
			cand[0]--
		}
		if try(cand) {
			kept = true
			marks = bestOut.marks
			i = min(i, len(marks))
		}
	}
	return kept
}

// replaySame runs a recipe (replay n of the sequence) and reports whether
// it fails with f's cause.
func (r *runner) replaySame(ctx context.Context, recipe []uint32, f Finding, index, n int, start map[string]map[string]any) (outcome, bool) {
	out, err := r.sequence(ctx, replay(recipe), index, n, start)
	if err != nil {
		return out, false
	}
	_, ok := out.has(f.Group())
	return out, ok
}

// requestsOf is the requests of a trace that the scenario sends itself.
func requestsOf(trace []Exchange) []Exchange {
	var out []Exchange
	for _, ex := range trace {
		if isRequest(ex) {
			out = append(out, ex)
		}
	}
	return out
}

// isRequest reports whether an exchange is one of the scenario's own requests.
func isRequest(ex Exchange) bool { return ex.Step.Method != "" && !(ex.Page && ex.Step.Walk == nil) }
