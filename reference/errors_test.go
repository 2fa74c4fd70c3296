package reference

import (
	"net/http"
	"strings"
	"testing"

	"github.com/conform-kit/conform/reference/ledger"
	"github.com/stretchr/testify/assert"
)

func TestErrorResponses(t *testing.T) {
	h := newHarness(t)
	p, fx := h.platform(), h.fx.Fixtures
	big := `{"url":"http://x.test/` + strings.Repeat("a", maxJSONBytes) + `"}`
	tests := []struct {
		name    string
		cred    ledger.Credential
		method  string
		path    string
		body    any
		headers []string
		status  int
		code    string
	}{
		{"unknown route", p, "GET", "/nope", nil, nil, 404, "NOT_FOUND"},
		{"unknown nested route", p, "GET", "/disputes/x/y/z", nil, nil, 404, "NOT_FOUND"},
		{"wrong method", p, "DELETE", "/authorizations/AU1", nil, nil, 405, "METHOD_NOT_ALLOWED"},
		{"wrong method on list", p, "PATCH", "/webhooks", nil, nil, 405, "METHOD_NOT_ALLOWED"},
		{"no credentials", ledger.Credential{}, "GET", "/disputes", nil, nil, 401, "UNKNOWN"},
		{"wrong password", ledger.Credential{Username: p.Username, Password: "wrong"}, "GET", "/disputes", nil, nil, 401, "UNKNOWN"},
		{"unknown user", ledger.Credential{Username: "USnobody", Password: p.Password}, "GET", "/disputes", nil, nil, 401, "UNKNOWN"},
		{"merchant may not update merchants", h.merchant(), "PUT", "/merchants/" + fx.PlainMerchant,
			map[string]any{"level_two_level_three_data_enabled": true}, nil, 403, "FORBIDDEN"},
		{"accept names no JSON type", p, "GET", "/disputes", nil, []string{"Accept", "text/html"}, 406, "NOT_ACCEPTABLE"},
		{"unsupported content type", p, "POST", "/webhooks", `{"url":"http://x.test"}`, []string{"Content-Type", "text/plain"}, 406, "NOT_ACCEPTABLE"},
		{"multipart required", p, "POST", "/disputes/" + fx.Dispute + "/evidence", `{}`, nil, 406, "NOT_ACCEPTABLE"},
		{"body over 1 MiB", p, "POST", "/webhooks", big, nil, 413, "REQUEST_TOO_LARGE"},
		{"not JSON", p, "POST", "/webhooks", `{"url":`, nil, 400, "BAD_REQUEST"},
		{"wrong top-level type", p, "POST", "/webhooks", `[1]`, nil, 400, "BAD_REQUEST"},
		{"schema violation", p, "POST", "/webhooks", map[string]any{"url": "ftp://x"}, nil, 422, "INVALID_FIELD"},
		{"unknown id", p, "GET", "/disputes/DI0000000000000000000000", nil, nil, 404, "NOT_FOUND"},
		{"another application's id", h.other(), "GET", "/disputes/" + fx.Dispute, nil, nil, 404, "NOT_FOUND"},
		{"another application's merchant", h.other(), "GET", "/merchants/" + fx.Merchant, nil, nil, 404, "NOT_FOUND"},
		{"limit above 100", p, "GET", "/disputes?limit=101", nil, nil, 422, "INVALID_FIELD"},
		{"negative offset", p, "GET", "/disputes?offset=-1", nil, nil, 422, "INVALID_FIELD"},
		{"bad sort", p, "GET", "/disputes?sort=password,asc", nil, nil, 422, "INVALID_FIELD"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := h.call(tc.cred, tc.method, tc.path, tc.body, tc.headers...)
			h.expect(r, tc.status, "error")
			assert.Equal(t, tc.code, errorCode(t, r), "%s: code", tc.name)
			assert.Equal(t, halJSON, r.header.Get("Content-Type"), "%s: Content-Type", tc.name)
		})
	}
}

func TestUnauthorizedAndForbiddenMessages(t *testing.T) {
	h := newHarness(t)
	r := h.expect(h.call(ledger.Credential{}, "GET", "/webhooks", nil), 401, "error")
	assert.Contains(t, string(r.body), `"message":"Unauthorized"`, "401 body")
	assert.NotEmpty(t, r.header.Get("WWW-Authenticate"), "WWW-Authenticate of the 401")
	r = h.expect(h.call(h.merchant(), "PUT", "/merchants/"+h.fx.Fixtures.PlainMerchant,
		map[string]any{"level_two_level_three_data_enabled": true}), 403, "error")
	assert.Contains(t, string(r.body), `"message":"Access is denied"`, "403 body")
	got := h.expect(h.call(h.platform(), "GET", "/merchants/"+h.fx.Fixtures.PlainMerchant, nil), 200, "merchant").json(t)
	assert.Equal(t, false, got["level_two_level_three_data_enabled"], "level_two_level_three_data_enabled after a refused update")
}

func TestValidationListsEveryViolation(t *testing.T) {
	h := newHarness(t)
	body := cardBody(h.fx.Fixtures.BuyerIdentity, "4111111111111111")
	body["address"] = map[string]any{"postal_code": "123456789", "city": strings.Repeat("c", 21)}
	delete(body, "name")
	r := h.expect(h.call(h.platform(), "POST", "/payment_instruments", body), 422, "error")
	total, _ := r.json(t)["total"].(float64)
	assert.GreaterOrEqual(t, total, float64(3), "total, want every violation: %s", r.body)
}

func TestMethodNotAllowedListsAllow(t *testing.T) {
	h := newHarness(t)
	r := h.call(h.platform(), http.MethodDelete, "/files/FILE_x", nil)
	h.expect(r, 405, "error")
	assert.Equal(t, "GET, POST", r.header.Get("Allow"), "Allow of DELETE /files/{id}")
}
