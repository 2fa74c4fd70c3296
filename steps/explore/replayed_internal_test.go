package explore

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHeldBeforeOnlyForARunIDThatWasGiven: a create the target refused is
// sent again under an id of its own only where the run id may be an
// earlier run's (given, or from the seed). A run id the run minted from
// the clock is nobody else's, so the refusal stays the target's to answer
// for (a target that confuses ids of its own), and nothing is sent again.
func TestHeldBeforeOnlyForARunIDThatWasGiven(t *testing.T) {
	create := Step{Op: "transfers.create", Method: "POST", Path: "/transfers", Body: `{"amount":100,"idempotency_id":"explore-s7-7-3-1"}`}
	for _, tc := range []struct {
		name   string
		minted bool
		body   string // what a step carries
		sent   int    // requests sent again
		held   bool
	}{
		{"a run id that was given", false, create.Body, 1, true},
		{"a run id this run minted", true, create.Body, 0, false},
		{"no idempotency id", false, `{"amount":100}`, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var bodies []string
			target := newSide(func(req *http.Request) (*http.Response, error) {
				b, err := io.ReadAll(req.Body)
				require.NoError(t, err)
				bodies = append(bodies, string(b))
				return &http.Response{StatusCode: http.StatusCreated, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(`{"id":"TR1"}`))}, nil
			}, "http://target.test", Target{}, "application/json")
			r := &runner{mintedRunID: tc.minted}
			st := create
			st.Body = tc.body
			_, held, err := r.heldBefore(context.Background(), st, target)
			require.NoError(t, err)
			assert.Equal(t, tc.held, held)
			require.Len(t, bodies, tc.sent)
			if tc.sent > 0 {
				assert.Contains(t, bodies[0], `"idempotency_id":"explore-s7-7-3-1-`, "the same request under an id of its own")
				assert.Equal(t, []string{"explore-s7-7-3-1"}, r.held.list())
			}
		})
	}
}
