package explore_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/conform-kit/conform/steps/explore"
	"github.com/conform-kit/conform/steps/explore/suite"
)

// TestEarlierRunsIdempotencyIDsAreNamed: explored again with the same
// seed and run id, a target that keeps the first run's idempotency ids
// refuses this run's creates as ids reused with another body. That is
// said in one line naming --run-id, with no finding "allowed request not
// refused"; another run id sends fresh ids, and nothing is held.
func TestEarlierRunsIdempotencyIDsAreNamed(t *testing.T) {
	cfg := serveFaults(t)
	for _, tc := range []struct {
		name  string
		runID string
		held  bool
	}{
		{"first run", "twice", false},
		{"the same run id again", "twice", true},
		{"another run id", "other", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := explore.Run(context.Background(), explore.Options{Target: suite.Target(cfg), Model: model, Seed: 7, RunID: tc.runID, Budget: 1500, Strict: true, ShrinkRuns: 20})
			require.NoError(t, err)
			for _, f := range res.Findings {
				assert.Fail(t, "finding on the reference", "%s %s [%s] %s", f.Outcome, f.Check, f.Clause(), f.Message)
			}
			var lines []string
			for _, n := range res.Notes() {
				if strings.Contains(n, "--run-id") {
					lines = append(lines, n)
				}
			}
			if !tc.held {
				assert.Empty(t, res.Held)
				assert.Empty(t, lines)
				return
			}
			require.NotEmpty(t, res.Held, "the first run's ids held")
			assert.True(t, strings.HasPrefix(res.Held[0], "explore-twice-7-"), res.Held[0])
			require.Len(t, lines, 1)
			assert.Contains(t, lines[0], `earlier run with the same run id "twice"`)
		})
	}
}
