package explore

import (
	"context"
	"slices"
)

// shrink reduces a failing recipe to the fewest actions and the simplest
// draws that fail with the same key (check, operation, outcome, basis):
// every candidate is run again against the target and the model and judged
// anew, and only one failing the same way is kept, so a shrunk finding
// never changes its verdict or its basis.
func (r *runner) shrink(ctx context.Context, recipe []uint32, f Finding, index int, trace []Exchange) Finding {
	best := slices.Clone(recipe)
	runs := 0
	// Every replay starts from the merchants the sequence started from.
	start := startFlags(trace)
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
		// Not reproduced (a target that changes on its own): keep it as found.
		f.Recipe = best
		return r.render(f, trace)
	}
	try := func(cand []uint32) bool {
		if runs >= r.opts.ShrinkRuns || ctx.Err() != nil || r.overTime() {
			return false
		}
		runs++
		out, same := r.replaySame(ctx, cand, f, index, runs+1, start)
		if same {
			best, bestOut = cand, out
		}
		return same
	}
	for improved := true; improved && runs < r.opts.ShrinkRuns; {
		improved = false
		// Fewer actions first, until no action can go: a shorter sequence
		// has fewer draws to lower.
		for again := true; again && runs < r.opts.ShrinkRuns; {
			again = r.shrinkActions(&best, &bestOut, try)
			improved = improved || again
		}
		// Simpler values: each draw to 0, else halved.
		for i := 1; i < len(best); i++ {
			if best[i] == 0 {
				continue
			}
			cand := slices.Clone(best)
			cand[i] = 0
			if try(cand) {
				improved = true
				continue
			}
			if best[i] > 1 {
				cand[i] = best[i] / 2
				if try(cand) {
					improved = true
				}
			}
		}
	}
	orig := f.Original
	fd, _ := bestOut.has(f.Key())
	f = *fd.finding
	f.Sequence, f.Seed, f.Original, f.Recipe = index, r.opts.Seed, orig, best
	return r.render(f, fd.trace)
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
// it fails with f's key.
func (r *runner) replaySame(ctx context.Context, recipe []uint32, f Finding, index, n int, start map[string]bool) (outcome, bool) {
	out, err := r.sequence(ctx, replay(recipe), index, n, start)
	if err != nil {
		return out, false
	}
	_, ok := out.has(f.Key())
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
