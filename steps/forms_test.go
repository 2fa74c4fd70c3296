package steps_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/conform-kit/conform/reference"
	"github.com/conform-kit/conform/reference/faults"
	"github.com/conform-kit/conform/steps"
	"github.com/conform-kit/conform/validate"
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
			keys = append(keys, "authorization requests")
			_, both := body["merchant"]
			if _, mi := body["merchant_identity"]; both && mi {
				keys = append(keys, "authorization both") // the scenario sending both names on purpose
				break
			}
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

// formsFeature holds one scenario per way a request with a merchant form
// may be refused; each runs alone (by its tag) so its requests can be counted.
const formsFeature = `@authorizations @spec-4.1
Feature: Authorization forms
  How the suite writes the merchant of an authorization, and what it judges when a form is refused.

  Background:
    Given I am the platform user

  @created
  Scenario: an authorization is created
    Given a card for the buyer
    When I authorize 1000 cents
    Then the request succeeds

  @no-merchant
  Scenario: an authorization that names no merchant is refused
    Given a card for the buyer
    When I authorize 1000 cents naming no merchant
    Then the request is refused as an invalid field naming the merchant

  @no-amount
  Scenario: an authorization without an amount is refused
    Given a card for the buyer
    When I authorize 1000 cents without the field "amount"
    Then the request is refused as an invalid field "/amount"

  @by-merchant @assumed @profile-authorization_merchant_field
  Scenario: an authorization may name the merchant by its merchant id
    Given a card for the buyer
    When I authorize 1000 cents naming the merchant by its merchant id
    Then the request succeeds

  @unauthenticated @spec-7
  Scenario: an authorization without credentials is refused
    When I call "authorizations.create" without credentials
    Then the request is refused as unauthenticated
`

// refuseMerchantForms refuses an authorization create naming its merchant
// by one of fields, with an item naming the field.
func refuseMerchantForms(next http.Handler, fields ...string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.URL.Path == "/authorizations" {
			raw, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(raw))
			var body map[string]any
			_ = json.Unmarshal(raw, &body)
			for _, f := range fields {
				if body[f] != nil {
					validate.WriteEnvelope(w, r, http.StatusUnprocessableEntity, validate.ErrorItem{Code: "INVALID_FIELD", Field: "/" + f, Message: f + " is not taken"})
					return
				}
			}
		}
		next.ServeHTTP(w, r)
	})
}

// TestRefusedFormIsSentOnceInTheOther: a request refused for its form is
// sent once more in the other; taken, or refused for what the scenario left
// out, the scenario goes on with it and WARNs under the key; a request
// leaving out the merchant is never completed; refused in both forms, the
// declared form's refusal is judged (a FAIL where success is required, and
// still a refusal, judged by what it names, where one is expected). A
// scenario sending the form the target does not declare on purpose is
// skipped when the target refuses it for the form.
func TestRefusedFormIsSentOnceInTheOther(t *testing.T) {
	cases := []struct {
		target    string // variant names (comma-separated, the last one nearest the client), "refuse-both" or "identity-only"
		tag       string
		want      steps.Outcome
		requests  int    // authorization creates sent in the run
		evidence  string // in the scenario's messages
		notInMsgs string
	}{
		{"authorization-merchant-field", "@created", steps.Warn, 2, "authorization_merchant_field (expected merchant_identity, observed merchant)", ""},
		{"authorization-merchant-field", "@no-merchant", steps.Pass, 1, "", ""},
		{"authorization-merchant-field", "@no-amount", steps.Warn, 2, "was refused for another reason (422)", ""},
		{"refuse-both", "@created", steps.Fail, 2, `"field":"/merchant_identity"`, `"field":"/merchant"`},
		{"identity-only", "@by-merchant", steps.Skip, 2, "authorization_merchant_field merchant_identity (whether it takes merchant too is its choice)", ""},
		{"authorization-merchant-field", "@by-merchant", steps.Pass, 1, "", ""},
		{"refuse-both", "@no-amount", steps.Warn, 2, "no error item names field /amount (fields: [/merchant_identity])", ""},
		// The body's field is checked before the media type: the merchant
		// taken, the media type is refused next and tried in the other too.
		{"vnd-api-json-only,authorization-merchant-field", "@unauthenticated", steps.Warn, 3, "request_content_type (expected application/vnd.json+api, observed application/vnd.api+json)", "refusals.unauthenticated"},
	}
	for _, tc := range cases {
		t.Run(tc.target+tc.tag, func(t *testing.T) {
			var (
				h      http.Handler
				seeded reference.Seeded
				closer func() error
			)
			if refused, ok := map[string][]string{"refuse-both": {"merchant_identity", "merchant"}, "identity-only": {"merchant"}}[tc.target]; ok {
				ref, inner, err := faults.Serve(reference.Config{}, nil)
				if err != nil {
					t.Fatal(err)
				}
				h, seeded, closer = refuseMerchantForms(inner, refused...), ref.Seeded(), ref.Close
			} else {
				ref, inner, s, err := faults.ServeVariants(reference.Config{}, strings.Split(tc.target, ",")...)
				if err != nil {
					t.Fatal(err)
				}
				h, seeded, closer = inner, s, ref.Close
			}
			counter := &formCounter{counts: map[string]int{}}
			srv := httptest.NewServer(counter.wrap(h))
			t.Cleanup(func() {
				srv.Close()
				_ = closer()
			})
			tags := tc.tag
			if tc.want == steps.Skip {
				tags += ",@created" // a run that skips everything tested nothing
			}
			opts := steps.Options{Tags: tags, FS: fstest.MapFS{"forms.feature": &fstest.MapFile{Data: []byte(formsFeature)}}}
			sum, err := steps.Run(context.Background(), referenceConfig(srv.URL, seeded), opts)
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			var r steps.ScenarioResult
			for _, res := range sum.Results {
				if slices.Contains(res.Tags, tc.tag) {
					r = res
				}
			}
			if r.Name == "" {
				t.Fatalf("no scenario tagged %s ran", tc.tag)
			}
			msgs := strings.Join(r.Messages(), "\n")
			if r.Outcome != tc.want {
				t.Errorf("%s: %s, want %s; messages:\n%s", r.Name, r.Outcome, tc.want, msgs)
			}
			if got := counter.counts["authorization requests"]; got != tc.requests {
				t.Errorf("%s: %d authorization creates sent, want %d (forms %v)", r.Name, got, tc.requests, counter.counts)
			}
			if tc.evidence != "" && !strings.Contains(msgs, tc.evidence) {
				t.Errorf("%s: messages do not contain %q:\n%s", r.Name, tc.evidence, msgs)
			}
			if tc.notInMsgs != "" && strings.Contains(msgs, tc.notInMsgs) {
				t.Errorf("%s: messages contain %q, the other form's refusal:\n%s", r.Name, tc.notInMsgs, msgs)
			}
		})
	}
}
