package attest

import (
	"fmt"
	"strings"
)

// The levels of Policy.Require.
const (
	RequirePass   = "pass"   // no FAIL or ERROR: result PASSED or WARNED
	RequireStrict = "strict" // no WARN either: result PASSED
)

// Policy is what a release gate asks of a verified statement.
type Policy struct {
	// Require is RequirePass or RequireStrict.
	Require string
	// MinScenarios is the least number of scenarios judged (passed, warned or
	// failed; skipped ones were not tested).
	MinScenarios int
	// Target, when set, is the URL the run must have tested.
	Target string
}

// Check applies the policy to a statement Verify returned. The result and
// the test lists must agree: a PASSED statement listing a failed test is
// refused, whatever the level.
func (p Policy) Check(st Statement) error {
	pr := st.Predicate
	switch pr.Result {
	case Passed, Warned, Failed:
	default:
		return refuse("result %q is not PASSED, WARNED or FAILED", clipped(pr.Result))
	}
	if pr.Result != Failed && len(pr.FailedTests) > 0 {
		return refuse("result %s, yet %d failed tests", pr.Result, len(pr.FailedTests))
	}
	if pr.Result == Passed && len(pr.WarnedTests) > 0 {
		return refuse("result PASSED, yet %d warned tests", len(pr.WarnedTests))
	}
	switch p.Require {
	case RequirePass:
		if pr.Result == Failed {
			return refuse("the run FAILED (%d failed tests%s); --require pass wants no FAIL or ERROR", len(pr.FailedTests), strictNote(st))
		}
	case RequireStrict:
		if pr.Result != Passed {
			return refuse("the run %s (%d failed, %d warned tests); --require strict wants no FAIL, ERROR or WARN", pr.Result, len(pr.FailedTests), len(pr.WarnedTests))
		}
	default:
		return fmt.Errorf("attest: --require %q: want pass or strict", p.Require)
	}
	if n := len(pr.PassedTests) + len(pr.WarnedTests) + len(pr.FailedTests); n < p.MinScenarios {
		return refuse("%d scenarios judged (%d skipped), --min-scenarios wants %d", n, len(pr.Conform.SkippedTests), p.MinScenarios)
	}
	if p.Target != "" && trimSlash(pr.Conform.Target) != trimSlash(p.Target) {
		return refuse("the run tested %s, --target wants %s", pr.Conform.Target, p.Target)
	}
	return nil
}

func strictNote(st Statement) string {
	if len(st.Predicate.FailedTests) == 0 && len(st.Predicate.WarnedTests) > 0 && st.Predicate.Conform.Strict {
		return fmt.Sprintf(", %d WARN under --strict", len(st.Predicate.WarnedTests))
	}
	return ""
}

func trimSlash(u string) string { return strings.TrimRight(u, "/") }
