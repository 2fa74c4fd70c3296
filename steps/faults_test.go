package steps_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/conform-kit/conform/reference/faults"
	"github.com/conform-kit/conform/steps"
)

// faultRow is one line of the kill table.
type faultRow struct {
	name, expected, actual, caughtBy string
	killed                           bool
}

// runFaulted runs the suite (the scenarios tags selects, all when "") against
// a reference carrying the named faults, over real HTTP.
func runFaulted(t *testing.T, names []string, tags string) steps.Summary {
	t.Helper()
	cfg := startReference(t, names...)
	// The default wait: an event a conformant reference sends arrives in
	// milliseconds on a quiet machine, but 3 s ran out at a load of 25
	// under the race detector (disabled-webhook-still-delivers: the
	// control webhook's event late, the scenario a WARN, the fault missed).
	// A fault that sends nothing costs its scenario the whole wait.
	cfg.WaitTimeout = 10 * time.Second
	sum, err := steps.Run(context.Background(), cfg, steps.Options{Tags: tags, Concurrency: 4})
	if err != nil {
		t.Fatalf("steps.Run(faults=%v, tags=%q): %v", names, tags, err)
	}
	return sum
}

// faultVerdict is the run's verdict: FAIL if any scenario failed or errored, else
// WARN if any warned, else PASS.
func faultVerdict(sum steps.Summary) steps.Outcome {
	switch {
	case sum.Counts[steps.Fail] > 0 || sum.Counts[steps.Error] > 0:
		return steps.Fail
	case sum.Counts[steps.Warn] > 0:
		return steps.Warn
	}
	return steps.Pass
}

// faultCatcher returns the first of catchers that reported want.
func faultCatcher(sum steps.Summary, catchers []string, want steps.Outcome) string {
	for _, r := range sum.Results {
		if r.Outcome == want && slices.Contains(catchers, r.Name) {
			return r.Name
		}
	}
	return ""
}

// faultReport lists the scenarios that did not pass, for a missed fault.
func faultReport(sum steps.Summary) string {
	var out []string
	for _, r := range sum.Results {
		if r.Outcome != steps.Pass && r.Outcome != steps.Skip {
			out = append(out, fmt.Sprintf("%s %q", r.Outcome, r.Name))
		}
	}
	if len(out) <= 3 { // few: with what they said
		out = out[:0]
		for _, r := range sum.Results {
			if r.Outcome != steps.Pass && r.Outcome != steps.Skip {
				out = append(out, fmt.Sprintf("%s %q: %s", r.Outcome, r.Name, strings.Join(r.Messages(), " | ")))
			}
		}
	}
	if len(out) == 0 {
		return "nothing"
	}
	return strings.Join(out, "; ")
}

// TestFaultCatalogIsCaught is the kit testing itself against broken servers:
// the unfaulted reference passes with no FAIL and no WARN, and every fault of
// the catalog is reported with its expected outcome by one of its catchers.
func TestFaultCatalogIsCaught(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the suite once per fault")
	}
	start := time.Now()
	clean := runFaulted(t, nil, "")
	if clean.Counts[steps.Fail]+clean.Counts[steps.Warn]+clean.Counts[steps.Error] > 0 {
		t.Fatalf("unfaulted reference: %s; not passing: %s", clean.Line(), faultReport(clean))
	}
	t.Logf("unfaulted reference: %s", clean.Line())

	catalog := faults.Catalog()
	scenarios := map[string]bool{}
	for _, r := range clean.Results {
		scenarios[r.Name] = true
	}
	for _, f := range catalog {
		for _, c := range f.Catchers {
			if !scenarios[c] {
				t.Errorf("fault %s: catcher %q is not a scenario of the suite", f.Name, c)
			}
		}
	}
	var mu sync.Mutex
	rows := make([]faultRow, 0, len(catalog))
	t.Run("faults", func(t *testing.T) {
		for _, f := range catalog {
			t.Run(f.Name, func(t *testing.T) {
				t.Parallel()
				// A FAIL fault runs the features its tags select; a WARN fault
				// runs the whole suite, since no scenario anywhere may FAIL on it.
				want, tags := steps.Fail, f.Tags
				if f.Expect == faults.ExpectWarn {
					want, tags = steps.Warn, ""
				}
				sum := runFaulted(t, []string{f.Name}, tags)
				row := faultRow{name: f.Name, expected: f.Expect, actual: string(faultVerdict(sum))}
				row.caughtBy = faultCatcher(sum, f.Catchers, want)
				row.killed = faultVerdict(sum) == want && row.caughtBy != "" && warnsNameKeys(t, f.Name, sum)
				mu.Lock()
				rows = append(rows, row)
				mu.Unlock()
				if !row.killed {
					t.Errorf("fault %s (%s) expected %s from one of %q; got %s, reported: %s",
						f.Name, f.Breaks, f.Expect, f.Catchers, row.actual, faultReport(sum))
				}
			})
		}
	})

	slices.SortFunc(rows, func(a, b faultRow) int { return strings.Compare(a.name, b.name) })
	var b strings.Builder
	killed := 0
	fmt.Fprintf(&b, "\n%-44s %-8s %-8s %s\n", "fault", "expected", "actual", "caught by")
	for _, r := range rows {
		if r.killed {
			killed++
		}
		by := r.caughtBy
		if !r.killed {
			by = "MISSED " + by
		}
		fmt.Fprintf(&b, "%-44s %-8s %-8s %s\n", r.name, r.expected, r.actual, by)
	}
	fmt.Fprintf(&b, "kill rate: %d/%d (%.0f%%) in %s", killed, len(catalog), 100*float64(killed)/float64(max(len(catalog), 1)), time.Since(start).Round(time.Millisecond))
	t.Log(b.String())
}

// warnsNameKeys reports whether every failed check of every WARN scenario
// names the profile key of the choice it checked.
func warnsNameKeys(t *testing.T, fault string, sum steps.Summary) bool {
	ok := true
	for _, r := range sum.Results {
		if r.Outcome != steps.Warn {
			continue
		}
		for _, c := range r.Judged() {
			if c.Basis.Normative() || c.Key == "" {
				t.Errorf("fault %s: WARN %q has a check that names no profile key: %+v", fault, r.Name, c)
				ok = false
			}
		}
	}
	return ok
}
