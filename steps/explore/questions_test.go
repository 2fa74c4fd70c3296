package explore_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/conform-kit/conform/reference"
	"github.com/conform-kit/conform/reference/faults"
	"github.com/conform-kit/conform/steps/explore"
	"github.com/conform-kit/conform/steps/explore/suite"
)

// statusCounter counts the answers of a handler by what its test asks.
type statusCounter struct {
	mu     sync.Mutex
	counts map[string]int
	next   http.Handler
	key    func(r *http.Request, status int) string
}

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

func (c *statusCounter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	sw := &statusWriter{ResponseWriter: w}
	c.next.ServeHTTP(sw, r)
	if k := c.key(r, sw.status); k != "" {
		c.mu.Lock()
		c.counts[k]++
		c.mu.Unlock()
	}
}

// TestQuestionVariantsNeverFail: the conformant variants that answer the
// questions otherwise (another application's ids refused 403, a capture
// in flight refusing the second 409), explored long enough for the
// questions to be asked, give no finding; each run shows the variant's
// choice was reached (its 403 to the other application, its 409 to a
// capture sent at once with another).
func TestQuestionVariantsNeverFail(t *testing.T) {
	cases := []struct {
		variant string
		shows   func(r *http.Request, status int) string
	}{
		{"other-application-403", func(r *http.Request, status int) string {
			if status == http.StatusForbidden && r.Method == http.MethodGet {
				return "403"
			}
			return ""
		}},
		{"captures-serialised-409", func(r *http.Request, status int) string {
			if status == http.StatusConflict && r.Method == http.MethodPut {
				return "409"
			}
			return ""
		}},
	}
	for _, tc := range cases {
		t.Run(tc.variant, func(t *testing.T) {
			t.Parallel()
			ref, h, seeded, err := faults.ServeVariants(reference.Config{ReviewDelay: 20 * time.Millisecond, RetryScale: 0.0001}, tc.variant)
			require.NoError(t, err)
			counter := &statusCounter{counts: map[string]int{}, next: h, key: tc.shows}
			srv := httptest.NewServer(counter)
			t.Cleanup(func() {
				srv.Close()
				_ = ref.Close()
			})
			res, err := explore.Run(context.Background(), explore.Options{Target: suite.Target(configOf(srv.URL, seeded)), Model: model, Seed: 7, Budget: 3000, ShrinkRuns: 40})
			require.NoError(t, err)
			assertExplored(t, res, 3000, 5)
			for _, f := range res.Findings {
				t.Errorf("variant %s: %s %s [%s] %s\n%s", tc.variant, f.Outcome, f.Check, f.Clause(), f.Message, f.Gherkin)
			}
			counter.mu.Lock()
			defer counter.mu.Unlock()
			assert.NotZero(t, len(counter.counts), "variant %s: its choice never showed in %d requests", tc.variant, res.Requests)
		})
	}
}
