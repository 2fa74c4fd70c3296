package steps

import (
	"encoding/json"
	"testing"

	"github.com/conform-kit/conform/validate/judging"
)

// TestFormRefusals: which refusals of a request may be about its form, and
// so are worth sending it once more in the other.
func TestFormRefusals(t *testing.T) {
	v, err := judging.Default()
	if err != nil {
		t.Fatal(err)
	}
	s := &scenario{suite: &suite{profile: v.DefaultProfile()}}
	item := func(code, field string) string {
		if field == "" {
			return `{"total": 1, "_embedded": {"errors": [{"code": "` + code + `"}]}}`
		}
		return `{"total": 1, "_embedded": {"errors": [{"code": "` + code + `", "field": "` + field + `"}]}}`
	}
	merchant := refusedForFields("merchant_identity", "merchant")
	amount := refusedForFields("fee_amount_data.amount", "amount")
	cases := []struct {
		name   string
		judge  func(*scenario, *exchange, string) bool
		status int
		body   string
		want   bool
	}{
		{"unknown merchant_identity", merchant, 422, item("INVALID_FIELD", "/merchant_identity"), true},
		{"missing merchant", merchant, 422, item("INVALID_FIELD", "merchant"), true},
		{"missing amount, another field", merchant, 422, item("INVALID_FIELD", "/amount"), false},
		{"no field named, 400 of another code", merchant, 400, item("VALIDATION_ERROR", ""), true},
		{"no field named, the declared unprocessable", merchant, 422, item("UNPROCESSABLE_ENTITY", ""), false},
		{"no field named, the declared malformed", merchant, 400, item("BAD_REQUEST", ""), false},
		{"not found", merchant, 404, item("NOT_FOUND", ""), false},
		{"amount inside fee_amount_data", amount, 422, item("INVALID_FIELD", "/fee_amount_data/amount"), true},
		{"fee_amount_data as a whole", amount, 422, item("INVALID_FIELD", "/fee_amount_data"), true},
		{"top-level amount", amount, 422, item("INVALID_FIELD", "/amount"), true},
		{"nickname", amount, 422, item("INVALID_FIELD", "/nickname"), false},
		{"media type 406", refusedForMediaType, 406, item("NOT_ACCEPTABLE", ""), true},
		{"media type 415", refusedForMediaType, 415, item("UNSUPPORTED_MEDIA_TYPE", ""), true},
		{"media type, a field refusal", refusedForMediaType, 422, item("INVALID_FIELD", "/amount"), false},
	}
	for _, tc := range cases {
		var doc any
		if err := json.Unmarshal([]byte(tc.body), &doc); err != nil {
			t.Fatal(err)
		}
		if got := tc.judge(s, &exchange{status: tc.status, doc: doc}, ""); got != tc.want {
			t.Errorf("%s: refused for the form = %v, want %v (%d %s)", tc.name, got, tc.want, tc.status, tc.body)
		}
	}
}

// TestWriteForms: a canonical request written in each form, and the
// requests that do not carry a choice left as they are.
func TestWriteForms(t *testing.T) {
	v, err := judging.Default()
	if err != nil {
		t.Fatal(err)
	}
	s := &scenario{suite: &suite{profile: v.DefaultProfile(), cfg: Config{Fixtures: Fixtures{Merchant: "MUm", MerchantIdentity: "IDm"}}}, forms: map[string]string{}}
	auth := func() map[string]any { return map[string]any{"merchant_identity": "IDm", "amount": 1} }
	update := func() map[string]any {
		return map[string]any{"nickname": "n", "fee_amount_data": map[string]any{"amount": 9, "currency": "USD"}}
	}
	cases := []struct {
		name, op string
		body     any
		over     map[string]string
		want     string // the body sent, as JSON
		ctype    string
		uses     int
	}{
		{"declared forms", "authorizations.create", auth(), nil, `{"amount":1,"merchant_identity":"IDm"}`, typeVndJSONAPI, 2},
		{"merchant", "authorizations.create", auth(), map[string]string{keyMerchantField: "merchant"}, `{"amount":1,"merchant":"MUm"}`, typeVndJSONAPI, 2},
		{"an identity the config does not name", "authorizations.create", map[string]any{"merchant_identity": "IDx"}, map[string]string{keyMerchantField: "merchant"}, `{"merchant_identity":"IDx"}`, typeVndJSONAPI, 1},
		{"no merchant is not completed", "authorizations.create", map[string]any{"amount": 1}, map[string]string{keyMerchantField: "merchant"}, `{"amount":1}`, typeVndJSONAPI, 1},
		{"top-level amount", "subscription_amounts.update", update(), map[string]string{keyAmountUpdateForm: "top_level"}, `{"amount":9,"fee_amount_data":{"currency":"USD"},"nickname":"n"}`, typeVndJSONAPI, 2},
		{"no amount is not completed", "subscription_amounts.update", map[string]any{"fee_amount_data": map[string]any{}}, map[string]string{keyAmountUpdateForm: "top_level"}, `{"fee_amount_data":{}}`, typeVndJSONAPI, 1},
		{"the other media type", "transfers.create", map[string]any{"amount": 1}, map[string]string{keyRequestContentType: typeVndAPIJSON}, `{"amount":1}`, typeVndAPIJSON, 1},
		{"an explicit media type", "transfers.create", rawBody{ctype: "text/plain", data: []byte("x")}, nil, `"x"`, "text/plain", 0},
	}
	for _, tc := range cases {
		before, _ := json.Marshal(tc.body)
		body, ctype, uses := s.writeForms(tc.op, tc.body, tc.over)
		var got []byte
		if raw, ok := body.(rawBody); ok {
			got, _ = json.Marshal(string(raw.data))
		} else {
			got, _ = json.Marshal(body)
		}
		if string(got) != tc.want || ctype != tc.ctype || len(uses) != tc.uses {
			t.Errorf("%s: wrote %s as %q in %d forms %v, want %s as %q in %d", tc.name, got, ctype, len(uses), uses, tc.want, tc.ctype, tc.uses)
		}
		if after, _ := json.Marshal(tc.body); string(after) != string(before) {
			t.Errorf("%s: the canonical body changed: %s, was %s", tc.name, after, before)
		}
	}
}
