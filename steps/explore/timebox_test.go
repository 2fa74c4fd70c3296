package explore_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/conform-kit/conform/reference"
	"github.com/conform-kit/conform/reference/faults"
	"github.com/conform-kit/conform/steps/explore"
	"github.com/conform-kit/conform/steps/explore/suite"
)

// TestTimeBoxHolds: --time bounds the whole run within a tenth, shrinking
// and clean-up included, against a target that takes 40 ms an answer and
// fails often (a refused capture still captures, multi-byte tags crash it):
// new sequences stop at
// nine tenths, shrinking at the bound, and the findings are kept shrunk as
// far as the time let them. Before, shrinking ran on past the bound (a
// --time 20s run against a fault took 39 s). Under the race detector,
// which slows every request, the time is only logged.
func TestTimeBoxHolds(t *testing.T) {
	ref, h, err := faults.Serve(reference.Config{ReviewDelay: 20 * time.Millisecond, RetryScale: 0.0001}, []string{"refused-capture-still-captures", "crash-on-multibyte-tags"})
	require.NoError(t, err)
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select { // the target's own latency
		case <-time.After(40 * time.Millisecond):
		case <-r.Context().Done():
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(func() {
		slow.Close()
		_ = ref.Close()
	})
	const budget = 10 * time.Second
	begin := time.Now()
	res, err := explore.Run(context.Background(), explore.Options{Target: suite.Target(configOf(slow.URL, ref.Seeded())), Model: model, Seed: 1, Time: budget})
	took := time.Since(begin)
	require.NoError(t, err)
	t.Logf("--time %s: %s wall, %d requests, %d findings", budget, took, res.Requests, len(res.Findings))
	if raceDetector {
		return
	}
	require.NotEmpty(t, res.Findings, "the fault is found")
	assert.LessOrEqual(t, took, budget+budget/10, "the whole run, shrinking and clean-up included")
	assert.LessOrEqual(t, res.Duration, budget+budget/10)
}
