package steps_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/conform-kit/conform/reference"
	"github.com/conform-kit/conform/reference/faults"
	"github.com/conform-kit/conform/steps"
)

// formCounter counts the requests of each form the suite sends: JSON bodies
// by media type, authorization creates by the field naming the merchant,
// amount updates by where the amount is.
type formCounter struct {
	mu     sync.Mutex
	counts map[string]int
}

func (c *formCounter) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(raw))
		var body map[string]any
		_ = json.Unmarshal(raw, &body)
		var keys []string
		if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err == nil && strings.Contains(mt, "json") {
			keys = append(keys, mt)
		}
		switch {
		case r.Method == http.MethodPost && r.URL.Path == "/authorizations":
			for _, f := range []string{"merchant_identity", "merchant"} {
				if _, ok := body[f]; ok {
					keys = append(keys, "authorization "+f)
				}
			}
		case r.Method == http.MethodPatch && strings.Contains(r.URL.Path, "/subscription_amounts/"):
			if _, ok := body["amount"]; ok {
				keys = append(keys, "amount top_level")
			}
			if fee, _ := body["fee_amount_data"].(map[string]any); fee["amount"] != nil {
				keys = append(keys, "amount fee_amount_data")
			}
		}
		c.mu.Lock()
		for _, k := range keys {
			c.counts[k]++
		}
		c.mu.Unlock()
		next.ServeHTTP(w, r)
	})
}

// TestDeclaredFormsAreSentAndNothingElse: against the reference, which takes
// every form, the suite writes each request in the form the profile
// declares and never sends it again in another: a target that keeps its
// profile pays no second request. The other forms appear only where a
// scenario names them (the media type outline, the merchant id scenario).
func TestDeclaredFormsAreSentAndNothingElse(t *testing.T) {
	cases := []struct {
		name, profile string
		want, none    []string // forms sent at least once; forms never sent
		once          []string // forms sent exactly once, by the scenario that names them
	}{
		{
			name: "default", profile: `{}`,
			want: []string{"application/vnd.json+api", "authorization merchant_identity", "amount fee_amount_data"},
			none: []string{"amount top_level"},
			once: []string{"application/vnd.api+json", "authorization merchant"},
		},
		{
			name:    "other forms",
			profile: `{"request_content_type": "application/vnd.api+json", "authorization_merchant_field": "merchant", "subscription_amount_update_form": "top_level"}`,
			want:    []string{"application/vnd.api+json", "authorization merchant", "amount top_level"},
			none:    []string{"authorization merchant_identity", "amount fee_amount_data"},
			once:    []string{"application/vnd.json+api"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ref, h, err := faults.Serve(reference.Config{ReviewDelay: 20 * time.Millisecond, RetryScale: 0.0001}, nil)
			if err != nil {
				t.Fatal(err)
			}
			counter := &formCounter{counts: map[string]int{}}
			srv := httptest.NewServer(counter.wrap(h))
			t.Cleanup(func() {
				srv.Close()
				_ = ref.Close()
			})
			cfg := referenceConfig(srv.URL, ref.Seeded())
			cfg.Profile = json.RawMessage(tc.profile)
			sum, err := steps.Run(context.Background(), cfg, steps.Options{Strict: true, Concurrency: 4, Tags: "@authorizations,@errors,@subscriptions,@level3"})
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if sum.Counts[steps.Pass] != sum.Total() {
				t.Errorf("profile %s: %s; not passing: %s", tc.profile, sum.Line(), faultReport(sum))
			}
			t.Logf("%s: %s; forms sent %v", tc.name, sum.Line(), counter.counts)
			for _, k := range tc.want {
				if counter.counts[k] == 0 {
					t.Errorf("profile %s: no request sent as %q; counts %v", tc.profile, k, counter.counts)
				}
			}
			for _, k := range tc.none {
				if n := counter.counts[k]; n != 0 {
					t.Errorf("profile %s: %d requests sent as %q, want none; counts %v", tc.profile, n, k, counter.counts)
				}
			}
			for _, k := range tc.once {
				if n := counter.counts[k]; n != 1 {
					t.Errorf("profile %s: %d requests sent as %q, want 1 (the scenario naming it); counts %v", tc.profile, n, k, counter.counts)
				}
			}
		})
	}
}
