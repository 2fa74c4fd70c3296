package reference

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/conform-kit/conform/reference/ledger"
)

// TestNoSecretsInResponses creates every kind of resource, fetches every
// list and seeded resource, and walks every response body and webhook event:
// no card number, security code, password (webhook authentication's
// included), bearer token or clear api key may appear.
func TestNoSecretsInResponses(t *testing.T) {
	srv, deliveries, _ := receiver(t, 0)
	h := newHarness(t, func(c *Config) { c.WebhookClient = srv.Client() })
	const hookPassword, hookToken = "hook-pass-c2e81d", "hook-token-5a90f3"
	basic := h.webhook(srv.URL, map[string]any{"authentication": map[string]any{
		"type": "BASIC", "basic": map[string]any{"username": "hook-user", "password": hookPassword}}})
	h.webhook(srv.URL+"/bearer", map[string]any{"authentication": map[string]any{"type": "BEARER", "bearer": map[string]any{"token": hookToken}}})
	h.call(h.platform(), "PUT", "/webhooks/"+basic["id"].(string), map[string]any{"authentication": map[string]any{
		"type": "BASIC", "basic": map[string]any{"username": "hook-user", "password": hookPassword}}})
	h.call(h.platform(), "GET", "/webhooks/"+basic["id"].(string), nil)
	fx := h.fx.Fixtures
	numbers := []string{"4111111111111111", "5555555555554444", "378282246310005"}
	const securityCode = "9731"
	var cards []string
	for _, n := range numbers {
		body := cardBody(fx.BuyerIdentity, n)
		body["security_code"] = securityCode
		cards = append(cards, h.expect(h.call(h.platform(), "POST", "/payment_instruments", body), 201, "").str(t, "id"))
		for _, bad := range []string{n + "12345", "x" + n, n[:11]} { // schema violations must not echo it
			body["number"] = bad
			h.expect(h.call(h.platform(), "POST", "/payment_instruments", body), 422, "")
		}
		body["security_code"] = securityCode + "99" // too long: must not be echoed either
		h.expect(h.call(h.platform(), "POST", "/payment_instruments", body), 422, "")
	}
	for _, c := range cards {
		h.call(h.platform(), "GET", "/payment_instruments/"+c, nil)
		a := h.call(h.platform(), "POST", "/authorizations", map[string]any{"source": c, "merchant": fx.Merchant, "amount": 500, "currency": "USD"}).str(t, "id")
		h.call(h.platform(), "PUT", "/authorizations/"+a, map[string]any{"capture_amount": 500})
		h.call(h.platform(), "POST", "/transfers", map[string]any{"source": c, "merchant": fx.Merchant, "amount": ledger.AmountDisputed, "currency": "USD"})
	}
	for _, m := range []string{fx.Merchant, fx.PlainMerchant} {
		h.call(h.platform(), "GET", "/merchants/"+m, nil)
		h.call(h.platform(), "PUT", "/merchants/"+m, map[string]any{"level_two_level_three_data_enabled": true})
	}
	for _, path := range []string{
		"/disputes", "/disputes/" + fx.Dispute, "/disputes/" + fx.Dispute + "/evidence",
		"/disputes/" + fx.Dispute + "/adjustment_transfers", "/balance_transfers", "/balance_transfers/" + fx.BalanceTransfer,
		"/subscription/subscription_enrollments", "/subscription/subscription_schedules/" + fx.SubscriptionSchedule,
		"/subscription/subscription_schedules/" + fx.SubscriptionSchedule + "/subscription_amounts/" + fx.SubscriptionAmount,
		"/files", "/webhooks",
	} {
		h.expect(h.call(h.platform(), "GET", path, nil), 200, "")
	}
	creds := h.fx.Credentials
	forbidden := append([]string{creds.Platform.Password, creds.Merchant.Password, creds.OtherApplication.Password, hookPassword, hookToken}, numbers...)
	check := func(where string, body []byte) {
		t.Helper()
		for _, s := range forbidden {
			if strings.Contains(string(body), s) {
				t.Errorf("%s contains a secret (%d chars): %s", where, len(s), truncate(body))
			}
		}
		for _, code := range []string{securityCode, securityCode + "99"} {
			if containsToken(string(body), code) {
				t.Errorf("%s contains the security code: %s", where, truncate(body))
			}
		}
		var doc any
		if json.Unmarshal(body, &doc) == nil {
			walkKeys(t, where, doc)
		}
	}
	h.mu.Lock()
	bodies := h.bodies
	h.mu.Unlock()
	for _, b := range bodies {
		check("response", b)
	}
	for {
		select {
		case d := <-deliveries:
			check("webhook event", d.body)
			continue
		default:
		}
		break
	}
}

// walkKeys fails on keys that name a secret and on an api_key in clear.
func walkKeys(t *testing.T, where string, doc any) {
	t.Helper()
	switch v := doc.(type) {
	case map[string]any:
		for k, child := range v {
			switch k {
			case "number", "security_code", "password":
				t.Errorf("%s carries key %q", where, k)
			case "api_key":
				if child != ledger.MaskedAPIKey {
					t.Errorf("%s carries api_key %v", where, child)
				}
			}
			walkKeys(t, where, child)
		}
	case []any:
		for _, child := range v {
			walkKeys(t, where, child)
		}
	}
}

// TestContainsToken: a security code counts as leaked standing apart, not
// inside a hex value or a duration.
func TestContainsToken(t *testing.T) {
	for _, c := range []struct {
		text string
		want bool
	}{
		{`{"security_code":"9731"}`, true}, {"code=9731 x", true}, {"9731", true}, {"a 9731", true},
		{"logref ab9731cd", false}, {"duration=1.239731ms", false}, {"97319", false}, {"x9731", false}, {"", false},
		{"ab9731cd 9731", true},
	} {
		if got := containsToken(c.text, "9731"); got != c.want {
			t.Errorf("containsToken(%q) = %v, want %v", c.text, got, c.want)
		}
	}
}
