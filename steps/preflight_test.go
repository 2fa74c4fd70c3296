package steps_test

import (
	"context"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/conform-kit/conform/reference"
	"github.com/conform-kit/conform/reference/faults"
	"github.com/conform-kit/conform/steps"
)

// plainErrors answers every 4xx of next with its status text as
// text/plain: a server that speaks the API but not its §7 error envelope.
func plainErrors(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := httptest.NewRecorder()
		next.ServeHTTP(rec, r)
		if rec.Code >= 400 && rec.Code <= 499 {
			w.Header().Set("Content-Type", "text/plain")
			w.WriteHeader(rec.Code)
			_, _ = io.WriteString(w, http.StatusText(rec.Code))
			return
		}
		maps.Copy(w.Header(), rec.Header())
		w.WriteHeader(rec.Code)
		_, _ = w.Write(rec.Body.Bytes())
	})
}

// TestPreflightTellsBrokenErrorsFromAnotherAPI: a target whose
// authenticated answers have the API's shapes but whose errors lack the
// §7 envelope is this API breaking §7: the run goes on and its §7 checks
// FAIL. A target answering neither is not this API (ErrTarget).
func TestPreflightTellsBrokenErrorsFromAnotherAPI(t *testing.T) {
	ref, h, err := faults.Serve(reference.Config{ReviewDelay: 20 * time.Millisecond, RetryScale: 0.0001}, nil)
	require.NoError(t, err, "faults.Serve")
	srv := httptest.NewServer(plainErrors(h))
	t.Cleanup(func() {
		srv.Close()
		_ = ref.Close()
	})
	cfg := referenceConfig(srv.URL, ref.Seeded())
	sum, err := steps.Run(context.Background(), cfg, steps.Options{Concurrency: 4, Tags: "@errors", Out: io.Discard, ErrOut: io.Discard})
	require.NoError(t, err, "a server breaking §7 is tested, not refused by the preflight")
	t.Logf("errors outside the envelope: %s", sum.Line())
	assert.Positive(t, sum.Counts[steps.Fail], "its §7 checks FAIL: %s", sum.Line())
	var cites []string
	for _, r := range sum.Results {
		for _, c := range r.Judged() {
			if c.Basis.Normative() {
				cites = append(cites, c.Basis.Cites())
			}
		}
	}
	assert.True(t, slices.ContainsFunc(cites, func(c string) bool { return citesSection(c, "7") }), "a FAIL cites §7: %v", cites)

	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusNotFound)
		_, _ = io.WriteString(w, "<h1>not here</h1>")
	}))
	t.Cleanup(other.Close)
	cfg.Target = other.URL
	_, err = steps.Run(context.Background(), cfg, steps.Options{Concurrency: 1, Tags: "@errors", Out: io.Discard, ErrOut: io.Discard})
	require.ErrorIs(t, err, steps.ErrTarget, "a server answering neither shape is not this API")
	assert.Contains(t, err.Error(), "does not speak the Payments Service API")
}

// citesSection reports whether a rendered basis ("§4.1, §7") cites section.
func citesSection(cites, section string) bool { return citesPart(cites, "§"+section) }

// citesPart reports whether a rendered basis ("§4.3, invariant secrets")
// has part among its comma-separated parts.
func citesPart(cites, part string) bool {
	for _, p := range strings.Split(cites, ",") {
		if strings.TrimSpace(p) == part {
			return true
		}
	}
	return false
}
