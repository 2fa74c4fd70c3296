package steps_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/conform-kit/conform/reference"
	"github.com/conform-kit/conform/reference/faults"
	"github.com/conform-kit/conform/steps"
)

// TestNormativeCheckInAnAssumedScenarioFails: accepting a 19-digit card is
// an assumed choice (card_number_check), but once a card is accepted its
// last_four is §2.3's and its number is a secret: a wrong last_four or the
// number returned FAILs, with no profile and with the key declared
// unchecked, which drops only the scenario's assumed checks (the scenario
// runs; it is not skipped).
func TestNormativeCheckInAnAssumedScenarioFails(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the card scenarios four times")
	}
	normativeInAssumed(t, "last-four-wrong", "§2.3", startReference(t, "last-four-wrong"))
	normativeInAssumed(t, "number in a tag", "invariant secrets", startWrapped(t, numberInTag))
}

// startWrapped serves the reference behind wrap and returns the suite
// config for it.
func startWrapped(t *testing.T, wrap func(http.Handler) http.Handler) steps.Config {
	t.Helper()
	ref, h, err := faults.Serve(reference.Config{ReviewDelay: 20 * time.Millisecond, RetryScale: 0.0001}, nil)
	require.NoError(t, err, "faults.Serve")
	srv := httptest.NewServer(wrap(h))
	t.Cleanup(func() {
		srv.Close()
		_ = ref.Close()
	})
	return referenceConfig(srv.URL, ref.Seeded())
}

// numberInTag returns a created card's number in a tag, where the schema
// allows any string: only the secrets invariant catches it.
func numberInTag(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/payment_instruments" {
			next.ServeHTTP(w, r)
			return
		}
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		var in struct {
			Number string `json:"number"`
		}
		_ = json.Unmarshal(body, &in)
		rec := httptest.NewRecorder()
		next.ServeHTTP(rec, r)
		var out map[string]any
		if rec.Code == http.StatusCreated && json.Unmarshal(rec.Body.Bytes(), &out) == nil && in.Number != "" {
			tags, _ := out["tags"].(map[string]any)
			if tags == nil {
				tags = map[string]any{}
			}
			tags["card"] = in.Number
			out["tags"] = tags
			b, _ := json.Marshal(out)
			maps.Copy(w.Header(), rec.Header())
			w.Header().Del("Content-Length")
			w.WriteHeader(rec.Code)
			_, _ = w.Write(b)
			return
		}
		maps.Copy(w.Header(), rec.Header())
		w.WriteHeader(rec.Code)
		_, _ = w.Write(rec.Body.Bytes())
	})
}

// normativeInAssumed runs the card scenarios against cfg's server (the
// reference behind fault), with no profile and with card_number_check unchecked: the 19-digit
// card scenario FAILs citing cites.
func normativeInAssumed(t *testing.T, fault, cites string, cfg steps.Config) {
	t.Helper()
	const name = "a card number of 19 digits is accepted"
	for _, profile := range []string{"", `{"card_number_check": "unchecked"}`} {
		c := cfg
		if profile != "" {
			c.Profile = json.RawMessage(profile)
		}
		sum, err := steps.Run(context.Background(), c, steps.Options{Concurrency: 4, Tags: "@payment_instruments"})
		require.NoError(t, err, "profile %q", profile)
		found := false
		for _, r := range sum.Results {
			if r.Name != name {
				continue
			}
			found = true
			assert.Equal(t, steps.Fail, r.Outcome, "%s, profile %q: %s: %v", fault, profile, name, r.Messages())
			cited := false
			for _, c := range r.Judged() {
				cited = cited || c.Basis.Normative() && citesPart(c.Basis.Cites(), cites)
			}
			assert.True(t, cited, "%s, profile %q: the FAIL cites %s: %+v", fault, profile, cites, r.Judged())
		}
		assert.True(t, found, "%s, profile %q: no scenario %q", fault, profile, name)
	}
}

// TestUncheckedRunsTheScenario: a key declared unchecked skips nothing: the
// reference with card_number_check unchecked runs every card scenario,
// PASS (its normative checks hold), none SKIP.
func TestUncheckedRunsTheScenario(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the card scenarios")
	}
	cfg := startReference(t)
	cfg.Profile = json.RawMessage(`{"card_number_check": "unchecked", "reference_rules": "unchecked", "idempotency_replay": "unchecked"}`)
	sum, err := steps.Run(context.Background(), cfg, steps.Options{Concurrency: 4, Tags: "@payment_instruments,@idempotency,@level3"})
	require.NoError(t, err)
	assert.Zero(t, sum.Counts[steps.Skip], "nothing skipped for a key declared unchecked: %s: %s", sum.Line(), faultReport(sum))
	assert.Zero(t, sum.Counts[steps.Fail]+sum.Counts[steps.Warn]+sum.Counts[steps.Error], "%s: %s", sum.Line(), faultReport(sum))
}
