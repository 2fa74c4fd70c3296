package explore_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/conform-kit/conform/reference"
	"github.com/conform-kit/conform/steps/explore"
	"github.com/conform-kit/conform/steps/explore/suite"
	"github.com/conform-kit/conform/steps/report"
)

// TestOwnWorkersNeverFail: a conformant server explored on the operations
// of one collection by several workers at once gives no finding: the
// checks that compare two reads (a refused request changes nothing, a list
// walked to page.count) are not broken by the run's own other workers.
func TestOwnWorkersNeverFail(t *testing.T) {
	for _, tc := range []struct {
		name, ops string
		workers   int
	}{
		{"files", "files.*", 8},
		{"webhooks", "webhooks.*", 8},
		{"files and webhooks", "files.*,webhooks.*", 16},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := serveFaults(t)
			budget := 3000
			if raceDetector {
				budget = 600
			}
			res, err := explore.Run(context.Background(), explore.Options{Target: suite.Target(cfg), Model: model, Seed: 1, Budget: budget,
				Strict: true, Ops: tc.ops, Workers: tc.workers, ShrinkRuns: 20})
			require.NoError(t, err)
			for _, f := range res.Findings {
				assert.Fail(t, "finding on the reference", "%s %s [%s] x%d %s", f.Outcome, f.Check, f.Clause(), f.Occurrences, f.Message)
			}
		})
	}
}

// TestRenameNotStoredFailsOnTheLaterRead: an enrollment update whose answer
// shows the new nickname while a later fetch shows the old one FAILs on
// the fetch (§4.5: both answer the enrollment), although the nickname sent
// reading back in the update's answer is only assumed (§4.5 does not show
// which fields may be updated). A refused update read back after such a
// rename is not blamed for the nickname it did not change.
func TestRenameNotStoredFailsOnTheLaterRead(t *testing.T) {
	// Seeds whose sequences send a refused update carrying a nickname
	// after a rename the target acknowledged and did not keep (seeds 1, 4
	// and 9 did in most runs before the blame was fixed, seed 7 in one of
	// four): the whole budget, so every finding is read.
	for _, seed := range []uint64{1, 4, 7, 9} {
		t.Run("seed "+strconv.FormatUint(seed, 10), func(t *testing.T) {
			cfg := serveFaults(t, "enrollment-rename-not-stored")
			res, err := explore.Run(context.Background(), explore.Options{Target: suite.Target(cfg), Model: model, Seed: seed, Budget: 6000, ShrinkRuns: 60})
			require.NoError(t, err)
			require.NotEmpty(t, res.Findings, "the fault is found")
			i := slices.IndexFunc(res.Findings, func(f explore.Finding) bool {
				return f.Op == "subscription_enrollments.get" && f.Check == "read back as sent"
			})
			require.GreaterOrEqual(t, i, 0, "found on the later read: %v", res.Findings)
			f := res.Findings[i]
			assert.Equal(t, report.Fail, f.Outcome, "%s [%s] %s", f.Check, f.Clause(), f.Message)
			assert.Equal(t, []string{"2.6", "4.5"}, f.Basis.Clauses, "%s [%s] %s", f.Check, f.Clause(), f.Message)
			assert.Contains(t, f.Message, "nickname")
			// The later read shows the nickname the target had before the
			// rename it did not keep, not the one a refused request read
			// back after it sent: no finding blames the refused request.
			for _, f := range res.Findings {
				assert.NotEqual(t, "refused request changes nothing", f.Check, "%s [%s] %s", f.Check, f.Clause(), f.Message)
			}
		})
	}
}

// shortPages wraps h: a list page asked for more than max items holds at
// most max, while page.limit still says what was asked (the largest page
// of a list is not shown, §8).
func shortPages(h http.Handler, max int) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		limit, _ := strconv.Atoi(r.URL.Query().Get("limit"))
		if r.Method != http.MethodGet || limit <= max {
			h.ServeHTTP(w, r)
			return
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		var doc map[string]any
		if rec.Code != http.StatusOK || json.Unmarshal(rec.Body.Bytes(), &doc) != nil {
			maps.Copy(w.Header(), rec.Header())
			w.WriteHeader(rec.Code)
			_, _ = w.Write(rec.Body.Bytes())
			return
		}
		if emb, ok := doc["_embedded"].(map[string]any); ok {
			for k, v := range emb {
				if items, ok := v.([]any); ok && len(items) > max {
					emb[k] = items[:max]
				}
			}
		}
		out, err := json.Marshal(doc)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		maps.Copy(w.Header(), rec.Header())
		w.Header().Del("Content-Length")
		w.WriteHeader(rec.Code)
		_, _ = w.Write(out)
	})
}

// TestShortPageOverTheDefaultIsAssumed: a page asked for more than the
// default 20 items holding fewer than page.count allows is judged under
// list_max_limit (the largest page is not shown), never a FAIL; pages of
// 20 or fewer are still §2.12's.
func TestShortPageOverTheDefaultIsAssumed(t *testing.T) {
	ref, err := reference.New(reference.Config{ReviewDelay: 20 * time.Millisecond, RetryScale: 0.0001, Seed: 1})
	require.NoError(t, err)
	srv := httptest.NewServer(shortPages(ref, 30))
	t.Cleanup(func() { srv.Close(); _ = ref.Close() })
	budget := 3000
	if raceDetector {
		budget = 1000
	}
	res, err := explore.Run(context.Background(), explore.Options{Target: suite.Target(configOf(srv.URL, ref.Seeded())), Model: model, Seed: 2, Budget: budget,
		Ops: "files.*", Workers: 4, ShrinkRuns: 10})
	require.NoError(t, err)
	var short int
	for _, f := range res.Findings {
		assert.NotEqual(t, report.Fail, f.Outcome, "%s [%s] %s", f.Check, f.Clause(), f.Message)
		if f.Basis.Assumed == "list_max_limit" {
			short++
		}
	}
	assert.Positive(t, short, "a short page over the default was walked (findings: %d)", len(res.Findings))
}

// lateWrites is a client transport: every nth create of a file (at most
// max) is answered at once with an error, as a client that gave up
// waiting, and sent to the target only after the next hold requests went
// through, as a slow target finishing a write after the client's timeout
// does. Counted in requests, not time, so a loaded machine changes nothing.
type lateWrites struct {
	next          http.RoundTripper
	n, max, hold  int
	mu            sync.Mutex
	creates, late int
	held          []chan struct{} // each released when its countdown ends
	countdown     []int
	wg            sync.WaitGroup
}

var errGaveUp = errors.New("the client gave up waiting")

func (l *lateWrites) RoundTrip(r *http.Request) (*http.Response, error) {
	l.mu.Lock()
	for i := range l.countdown {
		if l.countdown[i]--; l.countdown[i] == 0 {
			close(l.held[i])
		}
	}
	delay := false
	if r.Method == http.MethodPost && r.URL.Path == "/files" {
		l.creates++
		delay = l.creates%l.n == 0 && l.late < l.max
	}
	if !delay {
		l.mu.Unlock()
		return l.next.RoundTrip(r)
	}
	l.late++
	release := make(chan struct{})
	l.held, l.countdown = append(l.held, release), append(l.countdown, l.hold)
	l.mu.Unlock()
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return nil, err
	}
	again := r.Clone(context.Background())
	again.Body = io.NopCloser(bytes.NewReader(body))
	l.wg.Add(1)
	go func() {
		defer l.wg.Done()
		<-release
		if resp, err := l.next.RoundTrip(again); err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			_ = resp.Body.Close()
		}
	}()
	return nil, errGaveUp
}

// flush sends the writes still held and waits for them.
func (l *lateWrites) flush() {
	l.mu.Lock()
	for i := range l.countdown {
		if l.countdown[i] > 0 {
			l.countdown[i] = 0
			close(l.held[i])
		}
	}
	l.mu.Unlock()
	l.wg.Wait()
}

// TestLateWriteOfAnotherWorkerIsNoFinding: a file create the target
// carries out after the client gave up on it lands while other workers
// walk the files or count them around a refused create: their checks do
// not blame the target for it.
func TestLateWriteOfAnotherWorkerIsNoFinding(t *testing.T) {
	ref, err := reference.New(reference.Config{ReviewDelay: 20 * time.Millisecond, RetryScale: 0.0001, Seed: 1})
	require.NoError(t, err)
	srv := httptest.NewServer(ref)
	t.Cleanup(func() { srv.Close(); _ = ref.Close() })
	budget := 3000
	if raceDetector {
		budget = 800
	}
	late := &lateWrites{next: http.DefaultTransport, n: 25, max: 5, hold: 8}
	t.Cleanup(late.flush)
	res, err := explore.Run(context.Background(), explore.Options{Target: suite.Target(configOf(srv.URL, ref.Seeded())), Model: model, Client: &http.Client{Transport: late}, Seed: 1, Budget: budget,
		Strict: true, Ops: "files.*", Workers: 8, ShrinkRuns: 10})
	require.NoError(t, err)
	require.NotEmpty(t, res.Unanswered, "some creates went unanswered")
	for _, e := range res.Unanswered {
		assert.ErrorIs(t, e, errGaveUp, "only the held creates go unanswered")
	}
	for _, f := range res.Findings {
		assert.Fail(t, "finding from a late write", "%s %s [%s] x%d %s", f.Outcome, f.Check, f.Clause(), f.Occurrences, f.Message)
	}
}
