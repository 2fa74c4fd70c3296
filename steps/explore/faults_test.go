package explore_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/conform-kit/conform/reference"
	"github.com/conform-kit/conform/reference/faults"
	"github.com/conform-kit/conform/steps"
	"github.com/conform-kit/conform/steps/explore"
	"github.com/conform-kit/conform/steps/explore/suite"
	"github.com/conform-kit/conform/steps/report"
)

// TestExploreCatchesEachFault: every fault of the explore catalog, served
// alone, is found by an exploration (a FAIL for a FAIL fault, a WARN at
// least for a WARN fault), shrunk, with its scenario and replay script.
func TestExploreCatchesEachFault(t *testing.T) {
	catalog := faults.ExploreCatalog()
	require.GreaterOrEqual(t, len(catalog), 15, "explore faults")
	if raceDetector {
		// Under the race detector every request costs several times more:
		// three faults here; make test runs all of them again without it.
		catalog = []faults.Fault{catalog[0], catalog[8], catalog[14]}
	}
	var mu sync.Mutex
	var rows []string
	var lengths []int
	t.Run("faults", func(t *testing.T) {
		for _, f := range catalog {
			t.Run(f.Name, func(t *testing.T) {
				t.Parallel()
				cfg := serveFaults(t, f.Name)
				res, err := explore.Run(context.Background(), explore.Options{Target: suite.Target(cfg), Model: model, Seed: 7, Budget: 6000, ShrinkRuns: 120, FirstFinding: true})
				require.NoError(t, err)
				require.NotEmpty(t, res.Findings, "fault %s (%s) not found in %d requests", f.Name, f.Breaks, res.Requests)
				got := res.Findings[0]
				want := report.Fail
				if f.Expect == faults.ExpectWarn {
					want = report.Warn
				}
				assert.Equal(t, want, got.Outcome, "fault %s: %s [%s] %s", f.Name, got.Check, got.Clause(), got.Message)
				if got.Outcome == report.Fail {
					assert.NotEmpty(t, got.Says(), "fault %s: a FAIL names the spec's words it rests on: %s [%s]", f.Name, got.Check, got.Clause())
				}
				assert.Contains(t, got.Gherkin, "Scenario:", "fault %s", f.Name)
				assert.Contains(t, got.Curl, "$CONFORM_PASSWORD", "fault %s", f.Name)
				assert.LessOrEqual(t, got.Shrunk, got.Original, "fault %s", f.Name)
				// Whether the fixed suite sees it: the features of its tags, not strict.
				sum, err := steps.Run(context.Background(), serveFaults(t, f.Name), steps.Options{Tags: f.Tags, Concurrency: 2})
				require.NoError(t, err, "suite against %s", f.Name)
				suite := "missed"
				if sum.Counts[steps.Fail] > 0 {
					suite = "FAIL"
				} else if sum.Counts[steps.Warn] > 0 {
					suite = "WARN"
				}
				mu.Lock()
				rows = append(rows, fmt.Sprintf("%-40s explore %-4s %-36s %2d → %2d requests; suite %s", f.Name, got.Outcome, got.Check, got.Original, got.Shrunk, suite))
				lengths = append(lengths, got.Shrunk)
				mu.Unlock()
			})
		}
	})
	sort.Strings(rows)
	slices.Sort(lengths)
	if len(lengths) > 0 {
		t.Logf("explore faults:\n%s\nmedian shrunk length %d requests", strings.Join(rows, "\n"), lengths[len(lengths)/2])
	}
}

// TestSeedReplaysAndShrinkKeepsVerdict: the same seed finds the same
// finding with the same shrunk recipe and byte-identical scenario (the
// requests as the suite writes them), and the shrunk recipe, replayed,
// fails the same check on the same basis.
func TestSeedReplaysAndShrinkKeepsVerdict(t *testing.T) {
	run := func() explore.Finding {
		cfg := serveFaults(t, "card-line1-counted-in-bytes")
		res, err := explore.Run(context.Background(), explore.Options{Target: suite.Target(cfg), Model: model, Seed: 11, RunID: "replay", Budget: 4000, ShrinkRuns: 120, FirstFinding: true})
		require.NoError(t, err)
		require.NotEmpty(t, res.Findings, "fault not found")
		return res.Findings[0]
	}
	a, b := run(), run()
	// The shrunk recipe, replayed on a fresh faulted server, fails the same
	// check on the same basis, in as many requests.
	again, err := explore.Replay(context.Background(), explore.Options{Target: suite.Target(serveFaults(t, "card-line1-counted-in-bytes")), Model: model, Seed: 11, RunID: "replay"}, a.Sequence, a.Recipe)
	require.NoError(t, err)
	require.NotNil(t, again, "the shrunk recipe no longer fails")
	assert.Equal(t, a.Key(), again.Key(), "verdict and basis of the replayed shrunk recipe")
	assert.Equal(t, a.Shrunk, again.Shrunk, "requests of the replayed shrunk recipe")
	assert.Equal(t, a.Recipe, b.Recipe, "recipes of the same seed")
	assert.Equal(t, a.Gherkin, b.Gherkin, "scenarios of the same seed")
	assert.Equal(t, a.Key(), b.Key(), "findings of the same seed")
	assert.Equal(t, report.Fail, a.Outcome)
	assert.Contains(t, a.Clause(), "§8", "the shrunk finding keeps its basis")
}

// recorder keeps every request a client sends, as bytes.
type recorder struct {
	mu   sync.Mutex
	reqs []string
	base http.RoundTripper
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil {
		body, _ = io.ReadAll(req.Body)
		req.Body = io.NopCloser(bytes.NewReader(body))
	}
	user, _, _ := req.BasicAuth()
	r.mu.Lock()
	r.reqs = append(r.reqs, fmt.Sprintf("%s %s %s %s\n%s", req.Method, req.URL.RequestURI(), req.Header.Get("Content-Type"), user, body))
	r.mu.Unlock()
	return r.base.RoundTrip(req)
}

// TestSeedSendsByteIdenticalRequests: two runs of one seed and run id
// against two identical fresh targets send the same requests, byte for byte
// (one worker: with several, each sequence sends the same requests, in an
// order the workers interleave).
func TestSeedSendsByteIdenticalRequests(t *testing.T) {
	send := func() []string {
		n := 0
		ref, err := reference.New(reference.Config{Seed: 3, ReviewDelay: time.Hour, RetryScale: 0.0001,
			NewID: func(prefix string) string { n++; return fmt.Sprintf("%s%022d", prefix, n) }})
		require.NoError(t, err)
		srv := httptest.NewServer(ref)
		t.Cleanup(func() {
			srv.Close()
			_ = ref.Close()
		})
		cfg := configOf(srv.URL, ref.Seeded())
		cfg.WebhookReceiver.PublicURL = "http://127.0.0.1:9"
		rec := &recorder{base: http.DefaultTransport}
		_, err = explore.Run(context.Background(), explore.Options{Target: suite.Target(cfg), Model: model, Seed: 99, RunID: "same", Budget: 400, Workers: 1,
			Client: &http.Client{Transport: rec, Timeout: 10 * time.Second}})
		require.NoError(t, err)
		return rec.reqs
	}
	a, b := send(), send()
	require.NotEmpty(t, a)
	require.Equal(t, len(a), len(b), "the two runs sent different numbers of requests")
	for i := range a {
		require.Equal(t, a[i], b[i], "request %d differs", i)
	}
}
