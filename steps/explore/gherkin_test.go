package explore_test

import (
	"context"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/conform-kit/conform/steps"
	"github.com/conform-kit/conform/steps/explore"
	"github.com/conform-kit/conform/steps/explore/suite"
)

// TestPrintedScenarioRuns: the scenario a finding prints, added to the
// suite as a feature file, fails twice against the same faulted server and
// passes against the reference.
func TestPrintedScenarioRuns(t *testing.T) {
	for _, name := range []string{
		"card-line1-counted-in-bytes", "crash-on-null-line2", "last-four-wrong-for-long-cards",
		"refused-capture-still-captures", "merchant-update-by-merchant-applied", "crash-on-multibyte-tags",
		"security-code-echoed-when-4-digits",
	}[:map[bool]int{true: 2, false: 7}[raceDetector]] {
		t.Run(name, func(t *testing.T) {
			// The default workers: a fault whose state stays on the target
			// (merchant-update-by-merchant-applied) is found by an action
			// that sets the state it would change first, so it shrinks and
			// replays whatever the other sequences did meanwhile.
			cfg := serveFaults(t, name)
			res, err := explore.Run(context.Background(), explore.Options{Target: suite.Target(cfg), Model: model, Seed: 7, Budget: 6000, ShrinkRuns: 120, FirstFinding: true})
			require.NoError(t, err)
			require.NotEmpty(t, res.Findings, "fault %s not found", name)
			feature := res.Findings[0].Gherkin
			fsys := fstest.MapFS{"explore.feature": &fstest.MapFile{Data: []byte(feature)}}
			against := func(c steps.Config) steps.Summary {
				sum, err := steps.Run(context.Background(), c, steps.Options{FS: fsys, Strict: false, Concurrency: 1, Seed: 0})
				require.NoError(t, err, "run the printed scenario:\n%s", feature)
				return sum
			}
			// Twice against one faulted server: the scenario's idempotency
			// ids are each run's own, so the second run is not answered
			// "already used".
			server := serveFaults(t, name)
			for run := range 2 {
				faulted := against(server)
				assert.Equal(t, 1, faulted.Counts[steps.Fail], "run %d against the fault %s: the printed scenario must FAIL:\n%s\n%+v", run+1, name, feature, faulted.Results)
			}
			clean := against(serveFaults(t))
			assert.Equal(t, 1, clean.Counts[steps.Pass], "against the reference the printed scenario must PASS:\n%s\n%+v", feature, clean.Results)
		})
	}
}
