package explore_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestReferenceHasNoFindings: the bundled reference, explored strict, gives
// no finding, and every operation the explorer knows is answered 2xx.
func TestReferenceHasNoFindings(t *testing.T) {
	cfg := serveFaults(t)
	budget := 8000
	if raceDetector {
		budget = 1500 // make test runs it again without the race detector, at full budget
	}
	res := exploreRun(t, cfg, 1, budget, true)
	for _, f := range res.Findings {
		t.Errorf("finding on the reference: %s %s [%s] %s\n%s", f.Outcome, f.Check, f.Clause(), f.Message, f.Gherkin)
	}
	if raceDetector {
		return
	}
	for _, c := range res.Coverage {
		assert.Positive(t, c.Accepted, "operation %s never answered 2xx", c.ID)
	}
	t.Logf("%d requests, %d sequences in %s", res.Requests, res.Sequences, res.Duration)
}
