package explore

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/conform-kit/conform/reference"
	"github.com/conform-kit/conform/validate"
	"github.com/conform-kit/conform/validate/judging"
)

// referenceConfig is the explorer's target of a reference's seeded users and fixtures.
func referenceConfig(url string, s reference.Seeded) Target {
	user := func(c reference.Credential) *User {
		return &User{Username: c.Username, Password: c.Password}
	}
	f := s.Fixtures
	return Target{
		URL: url,
		Users: Users{Platform: user(s.Credentials.Platform), Merchant: user(s.Credentials.Merchant),
			OtherApplication: user(s.Credentials.OtherApplication)},
		Fixtures: [][2]string{{"buyer_identity", f.BuyerIdentity}, {"merchant", f.Merchant}, {"merchant_identity", f.MerchantIdentity},
			{"plain_merchant", f.PlainMerchant}, {"plain_merchant_identity", f.PlainMerchantIdentity},
			{"subscription_schedule", f.SubscriptionSchedule}, {"subscription_amount", f.SubscriptionAmount},
			{"dispute", f.Dispute}, {"balance_transfer", f.BalanceTransfer}},
		Receiver: Receiver{Listen: "127.0.0.1:0"},
	}
}

func referenceModel() (http.Handler, Target, func(), error) {
	srv, err := reference.New(reference.Config{BaseURL: modelBase, ReviewDelay: time.Hour, RetryScale: 0.0001, Seed: 1})
	if err != nil {
		return nil, Target{}, nil, err
	}
	return srv, referenceConfig(modelBase, srv.Seeded()), func() { _ = srv.Close() }, nil
}

// TestKnownFalseFailsAreAssumed: the two false FAILs explore made against
// a conformant server now rest on an assumed basis: an external link's
// duration bound (the spec shows no payload of the file endpoints) and
// webhook tags read back (§2.10 shows no tags on a webhook).
func TestKnownFalseFailsAreAssumed(t *testing.T) {
	r, err := newRunner(Options{Target: Target{URL: "http://127.0.0.1:1"}, Model: referenceModel})
	require.NoError(t, err)
	link := Step{Op: "files.external_links.create", AtLimit: []string{"duration"}}
	_, ok := r.v.Operation(link.Op)
	require.True(t, ok, "operation %s", link.Op)
	b := r.basisFor(checkAllowed, link, basisOf("8", "4.8"))
	assert.Equal(t, "file_payloads", b.Assumed, "a refused duration of 10080: %s", b.Cites())

	get, ok := r.v.Operation("webhooks.get")
	require.True(t, ok)
	assert.Equal(t, keyFieldNotShown, r.fieldBasis(basisOf("2.10"), get, Step{}, "tags.explore").Assumed, "webhook tags")
	assert.True(t, r.fieldBasis(basisOf("2.10"), get, Step{}, "url").Normative(), "a webhook's url is shown by §2.10")
	card, _ := r.v.Operation("payment_instruments.get")
	assert.True(t, r.fieldBasis(basisOf("2.3"), card, Step{}, "tags.explore").Normative(), "a card's tags are shown by §2.3")
	assert.True(t, r.fieldBasis(basisOf("2.3"), card, Step{}, "address.line1").Normative())
}

// TestEveryBasisFromTheData walks every check explore makes in a run
// against the reference and compares each basis it would give with the
// suite's for the same fact, derived here from the data independently:
// the operation's basis (judging.OperationBasis, as the suite's opBasis),
// the request and response schemas' bases (judging.json, as checkSchema),
// and for a field read back whether the normative schema constrains it at
// all (a value of no type a schema allows there breaks it only if it does).
func TestEveryBasisFromTheData(t *testing.T) {
	srv, err := reference.New(reference.Config{ReviewDelay: 20 * time.Millisecond, RetryScale: 0.0001, Seed: 1})
	require.NoError(t, err)
	hs := httptest.NewServer(srv)
	t.Cleanup(func() { hs.Close(); _ = srv.Close() })
	r, err := newRunner(Options{Target: referenceConfig(hs.URL, srv.Seeded()), Model: referenceModel, Seed: 3, Budget: 1500})
	require.NoError(t, err)
	j := r.j
	var mu sync.Mutex
	seen := map[string]bool{}
	checked, bodies, ruled := 0, 0, 0
	r.judged = func(st Step, expect []expectField, tex, mex Exchange) {
		mu.Lock()
		defer mu.Unlock()
		op, ok := r.v.Operation(st.Op)
		require.True(t, ok, st.Op)
		// An operation assumed only for its route (§4.9: the webhook
		// create and update) is the spec's once the target answered the
		// route: anything but 404 or 405.
		st.routeAnswered = judging.RouteAnswered(tex.Status)
		opNormative := judging.OperationBasis(op).Normative() ||
			(op.Assumed == "webhook_routes" && tex.Status != http.StatusNotFound && tex.Status != http.StatusMethodNotAllowed)
		reqNormative := opNormative
		if op.HasJSONBody() && op.Request != "" {
			sb, _ := j.SchemaBasis(op.Request)
			reqNormative = reqNormative && sb.Normative()
		}
		for _, check := range []string{checkForbidden, checkAllowed} {
			for _, b := range []judging.Basis{st.Basis, basisOf("8"), basisOf(op.Clauses...)} {
				got := r.basisFor(check, st, b)
				key := fmt.Sprintf("%s|%s|%s", check, st.Op, b.Cites())
				if seen[key] {
					continue
				}
				seen[key] = true
				checked++
				assert.Equal(t, b.Normative() && reqNormative, got.Normative(), "%s on %s from %s: %s", check, st.Op, b.Cites(), got.Cites())
			}
		}
		if st.Refuse && strings.HasPrefix(st.Rule, "the body breaks the request schema") {
			// A body refused for its schema (its "{role}" placeholders
			// standing for ids of their form, as drawn): each violation's
			// basis from judging.json, its schema's row or the assumed rule
			// of it the violation breaks.
			body, err := decodeTestBody(st.Body)
			require.NoError(t, err, st.Body)
			verr := r.contract.check(st.Op, r.contract.schemas[op.Request], body)
			var ve *validate.Error
			require.ErrorAs(t, verr, &ve, "%s %s", st.Op, st.Body)
			want := reqNormative && ve.Omitted > 0
			keys := []string{}
			for _, vi := range ve.Violations {
				vb, ok := j.RequestBodyBasis(op.Request, vi)
				require.True(t, ok, op.Request)
				want = want || (reqNormative && vb.Normative())
				keys = append(keys, vi.Rule+" "+vi.Pointer+" "+vb.Cites())
			}
			got := r.basisFor(checkForbidden, st, st.Basis)
			key := "body|" + st.Op + "|" + strings.Join(keys, ";")
			if !seen[key] {
				seen[key] = true
				checked++
				bodies++
				if strings.Contains(key, "assumed: request_rules") {
					ruled++
				}
				assert.Equal(t, want, got.Normative(), "%s refused for %s: %s", st.Op, keys, got.Cites())
			}
		}
		doc, _ := tex.doc.(map[string]any)
		if !is2xx(tex.Status) || doc == nil || op.Response == "" || strings.HasSuffix(op.Response, "_list") {
			return
		}
		role := st.Save
		if role == "" {
			role = st.Of
		}
		sb, _ := j.SchemaBasis(op.Response)
		for _, e := range expect {
			key := "field|" + op.ID + "|" + e.Path
			if seen[key] || !e.Basis.Normative() {
				continue
			}
			seen[key] = true
			checked++
			// A member of an open object the schema shows (a tag) reads back
			// as sent though no value of it breaks the schema.
			want := opNormative && sb.Normative() && (constrains(t, j, op.Response, doc, e.Path) || openMember(r, op.Response, e.Path))
			got := r.fieldBasis(e.Basis, op, st, e.Path)
			assert.Equal(t, want, got.Normative(), "%s of the %s (%s): %s", e.Path, role, op.Response, got.Cites())
		}
	}
	res, err := r.run(context.Background())
	require.NoError(t, err)
	require.Greater(t, res.Requests, 500, "requests sent")
	assert.Greater(t, checked, 40, "facts compared")
	assert.Greater(t, bodies, 20, "refused bodies compared")
	assert.Positive(t, ruled, "bodies refused by an assumed rule of judging.json (an unknown field, an amount past 2^63−1)")
	t.Logf("%d facts compared (%d refused bodies, %d by an assumed rule) over %d requests", checked, bodies, ruled, res.Requests)
	assert.Empty(t, res.Findings, "the reference")
}

// constrains reports whether the normative schema says anything of the
// field at path of doc: a value no schema type admits there (an object
// holding an array under an unlikely key) breaks the schema only then.
// openMember reports whether path is a member of an object the normative
// schema shows with any value (tags.x of a resource's open tags).
func openMember(r *runner, schema, path string) bool {
	parent, _, ok := strings.Cut(path, ".")
	return ok && strings.Count(path, ".") == 1 && parent == "tags" && r.shapes.declares(r.v, schema, path)
}

func constrains(t *testing.T, j *judging.Judge, schema string, doc map[string]any, path string) bool {
	t.Helper()
	bad := map[string]any{"\x01explore": []any{[]any{}}}
	cp := deepCopy(doc).(map[string]any)
	parts := strings.Split(path, ".")
	cur := cp
	for _, p := range parts[:len(parts)-1] {
		next, ok := cur[p].(map[string]any)
		if !ok {
			next = map[string]any{}
			cur[p] = next
		}
		cur = next
	}
	cur[parts[len(parts)-1]] = bad
	return j.ValidateNormativeValue(schema, cp) != nil
}

func deepCopy(v any) any {
	switch d := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(d))
		for k, x := range d {
			out[k] = deepCopy(x)
		}
		return out
	case []any:
		out := make([]any, len(d))
		for i, x := range d {
			out[i] = deepCopy(x)
		}
		return out
	}
	return v
}

// decodeTestBody decodes a drawn body as the generator holds it (numbers
// as json.Number).
func decodeTestBody(body string) (map[string]any, error) {
	dec := json.NewDecoder(strings.NewReader(body))
	dec.UseNumber()
	var doc map[string]any
	err := dec.Decode(&doc)
	return doc, err
}

// TestBodyBasisFromTheData: the basis of refusing a body that breaks its
// request schema is judging.json's for each violation: an enrollment
// without merchant, or an update naming one, is the reference's rule
// (request_rules, as subscriptions.feature tags its scenario), the same
// body with a field of the wrong type is normative, a sale without
// merchant is normative with §4.2's words (its table requires it), a file
// payload is assumed as a whole.
func TestBodyBasisFromTheData(t *testing.T) {
	r, err := newRunner(Options{Target: Target{URL: "http://127.0.0.1:1"}, Model: referenceModel})
	require.NoError(t, err)
	sale := []string{"4.2", "2.13", "8"}
	tests := []struct {
		name, op, body string
		want           judging.Basis // Says: the words of the rule, "" for any
	}{
		{"enrollment without merchant", "subscription_enrollments.create", `{"nickname":"n"}`,
			judging.Basis{Assumed: "request_rules", Clauses: []string{"4.5"}}},
		{"enrollment without merchant, nickname of the wrong type", "subscription_enrollments.create", `{"nickname":5}`,
			judging.Basis{Clauses: []string{"4.5"}}},
		{"enrollment with an unknown field: no sentence refuses it", "subscription_enrollments.create", `{"merchant":"MU1","color":"red"}`,
			judging.Basis{Assumed: "request_rules", Clauses: []string{"4.5"}}},
		{"enrollment update naming a merchant", "subscription_enrollments.update", `{"merchant":"MU1"}`,
			judging.Basis{Assumed: "request_rules", Clauses: []string{"4.5"}}},
		{"enrollment update nickname of the wrong type: the update's fields are not shown", "subscription_enrollments.update", `{"nickname":5,"merchant":"MU1"}`,
			judging.Basis{Assumed: "request_rules", Clauses: []string{"4.5"}}},
		{"sale of an amount past 2^63−1", "transfers.create", `{"source":"PI1","merchant":"MU1","amount":9223372036854775808,"currency":"USD"}`,
			judging.Basis{Assumed: "request_rules", Clauses: sale}},
		{"sale past 2^63−1 with an order year past 9999", "transfers.create", `{"source":"PI1","merchant":"MU1","amount":9223372036854775808,"currency":"USD","additional_purchase_data":{"customer_reference_number":"1","customs_duty_amount":0,"discount_amount":0,"shipping_amount":0,"order_date":{"day":1,"month":1,"year":10000}}}`,
			judging.Basis{Clauses: sale, Says: "order_date: day 1-31, month 1-12, year 4 digits"}},
		{"sale without merchant", "transfers.create", `{"source":"PI1","amount":5,"currency":"USD"}`,
			judging.Basis{Clauses: sale, Says: "body table: source, merchant, amount, currency: required yes"}},
		{"file of no known type", "files.create", `{"display_name":"x","linked_to":"MU1","type":"NOPE"}`,
			judging.Basis{Assumed: "file_payloads", Clauses: []string{"4.8"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			op, ok := r.v.Operation(tt.op)
			require.True(t, ok)
			err := r.v.Validate(op.Request, []byte(tt.body))
			require.Error(t, err)
			got := r.contract.bodyBasis(tt.op, err)
			assert.Equal(t, tt.want.Assumed, got.Assumed, got.Cites())
			assert.Subset(t, got.Clauses, tt.want.Clauses, got.Cites())
			if tt.want.Says != "" {
				assert.Equal(t, tt.want.Says, got.Says)
			}
		})
	}
}

// TestWebhookRouteAnsweredIsNormative: the webhook create and update are
// assumed only for their method and path (§4.9); once the target answered
// the declared route (not 404 or 405), a url rule (§4.9, §8), the answer's
// shape and the fields read back (§2.10) are the spec's; before, they rest
// on webhook_routes.
func TestWebhookRouteAnsweredIsNormative(t *testing.T) {
	r, err := newRunner(Options{Target: Target{URL: "http://127.0.0.1:1"}, Model: referenceModel})
	require.NoError(t, err)
	tests := []struct {
		name   string
		op     string
		status int
		check  string
		basis  judging.Basis
		want   string // "" for normative, else the assumed key
	}{
		{"a url over 120 accepted", "webhooks.create", 201, checkForbidden, basisOf("8", "4.9"), ""},
		{"a url at 120 refused with 422", "webhooks.create", 422, checkAllowed, basisOf("8", "4.9"), ""},
		{"a url at 120 refused as an unknown route", "webhooks.create", 404, checkAllowed, basisOf("8", "4.9"), keyRoutes},
		{"a url at 120 refused as a wrong method", "webhooks.update", 405, checkAllowed, basisOf("8", "4.9"), keyRoutes},
		{"the update's answer shape", "webhooks.update", 200, checkShape, basisOf("2.10"), ""},
		{"the create's answer shape, route unknown", "webhooks.create", 404, checkShape, basisOf("2.10"), keyRoutes},
		{"an assumed rule stays assumed", "webhooks.create", 201, checkForbidden, assumed("reference_rules", "4.9"), "reference_rules"},
		{"an extension stays assumed", "subscription_schedules.create", 201, checkForbidden, basisOf("8"), "extensions"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := Step{Op: tt.op, routeAnswered: judging.RouteAnswered(tt.status)}
			got := r.basisFor(tt.check, st, tt.basis)
			assert.Equal(t, tt.want, got.Assumed, "%s: %s", tt.name, got.Cites())
			assert.Equal(t, tt.want == "", got.Normative(), "%s: %s", tt.name, got.Cites())
		})
	}
	op, ok := r.v.Operation("webhooks.create")
	require.True(t, ok)
	assert.True(t, r.fieldBasis(basisOf("2.10"), op, Step{Op: op.ID, routeAnswered: true}, "url").Normative(), "a webhook's url read back once the route answered")
	assert.Equal(t, keyRoutes, r.fieldBasis(basisOf("2.10"), op, Step{Op: op.ID}, "url").Assumed, "before the route answered")
	assert.Equal(t, keyFieldNotShown, r.fieldBasis(basisOf("2.10"), op, Step{Op: op.ID, routeAnswered: true}, "tags.x").Assumed, "§2.10 shows no tags")
}

// TestRefusedForItsBodyJudgesByTheBody: a step drawn for a normative rule
// (Level 2/3 data for a merchant not enabled, §1 and §7) whose body also
// breaks a rule of its schema the spec does not state (a negative item
// cost) is refused by the model for the body, before the merchant's
// processing is ever asked: a target taking it (the merchant enabled by
// then, negative amounts taken) is judged by the body's basis, not FAILed
// for a rule the model never applied. A body breaking nothing keeps the
// step's rule.
func TestRefusedForItsBodyJudgesByTheBody(t *testing.T) {
	r, err := newRunner(Options{Target: Target{URL: "http://127.0.0.1:1"}, Model: referenceModel})
	require.NoError(t, err)
	invalid := Exchange{Status: 422, doc: map[string]any{"_embedded": map[string]any{"errors": []any{map[string]any{"code": "INVALID_FIELD"}}}}}
	unprocessable := Exchange{Status: 422, doc: map[string]any{"_embedded": map[string]any{"errors": []any{map[string]any{"code": "UNPROCESSABLE_ENTITY"}}}}}
	item := `{"amount_excluding_sales_tax":1,"amount_including_sales_tax":1,"commodity_code":"123","cost_per_unit":%s,"item_description":"d","item_discount_amount":0,"merchant_product_code":"m","quantity":1,"unit_of_measure":"EA"}`
	body := func(cost string) string {
		return `{"source":"{card}","merchant":"{fixture:plain_merchant}","amount":1000,"currency":"USD","additional_purchase_data":{"customer_reference_number":"c","customs_duty_amount":0,"discount_amount":0,"shipping_amount":0,"item_data":[` + fmt.Sprintf(item, cost) + `]}}`
	}
	st := Step{Op: "authorizations.create", Method: "POST", Path: "/authorizations", Body: body("-1"), Refuse: true,
		Rule: "Level 2/3 data for a merchant not enabled is refused", Basis: basisOf("1", "7"), StateRule: true}
	b, ok := r.refusedForItsBody(st, invalid)
	require.True(t, ok, "a negative item cost breaks the schema")
	assert.Equal(t, "request_rules", b.Assumed, b.Cites())
	_, ok = r.refusedForItsBody(st, unprocessable)
	assert.False(t, ok, "refused for a business rule: the step's rule judges")
	st.Body = body("1")
	_, ok = r.refusedForItsBody(st, invalid)
	assert.False(t, ok, "a valid body: the step's rule judges")
	st.Body, st.StateRule = body("-1"), false
	_, ok = r.refusedForItsBody(st, invalid)
	assert.False(t, ok, "a field rule (a capture over the amount) refused as an invalid field keeps its basis")
}
