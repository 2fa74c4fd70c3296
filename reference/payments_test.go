package reference

import (
	"strings"
	"testing"
	"time"

	"github.com/conform-kit/conform/reference/ledger"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPaymentInstruments(t *testing.T) {
	h := newHarness(t)
	buyer := h.fx.Fixtures.BuyerIdentity
	tests := []struct {
		name, number, brand string
		status              int
	}{
		{"visa", "4111111111111111", "VISA", 201},
		{"mastercard", "5555555555554444", "MASTERCARD", 201},
		{"amex", "378282246310005", "AMERICAN_EXPRESS", 201},
		{"discover", "6011111111111117", "DISCOVER", 201},
		{"fails luhn", "4111111111111112", "", 422},
		{"too short", "41111111111", "", 422},
		{"too long", "41111111111111111111", "", 422},
		{"not digits", "4111-1111-1111-1111", "", 422},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := h.expect(h.call(h.platform(), "POST", "/payment_instruments", cardBody(buyer, tc.number)), tc.status, "payment_instrument")
			if tc.status != 201 {
				assert.NotContains(t, string(r.body), tc.number, "the refusal of %s echoes the card number", tc.name)
				return
			}
			m := r.json(t)
			assert.Equal(t, tc.brand, m["brand"], "brand of %s %s", tc.name, tc.number)
			assert.Equal(t, tc.number[:6], m["bin"], "bin of %s %s", tc.name, tc.number)
			assert.Equal(t, tc.number[len(tc.number)-4:], m["last_four"], "last_four of %s %s", tc.name, tc.number)
		})
	}
	t.Run("fingerprint stable per number", func(t *testing.T) {
		a := h.call(h.platform(), "POST", "/payment_instruments", cardBody(buyer, "4242424242424242")).str(t, "fingerprint")
		b := h.call(h.merchant(), "POST", "/payment_instruments", cardBody(buyer, "4242424242424242")).str(t, "fingerprint")
		c := h.call(h.platform(), "POST", "/payment_instruments", cardBody(buyer, "4000056655665556")).str(t, "fingerprint")
		require.NotEmpty(t, a, "fingerprint of 4242424242424242")
		assert.Equal(t, a, b, "fingerprints of 4242424242424242 created by the platform and by the merchant")
		assert.NotEqual(t, a, c, "fingerprints of 4242424242424242 and 4000056655665556")
	})
	t.Run("expired card", func(t *testing.T) {
		body := cardBody(buyer, "4111111111111111")
		body["expiration_year"] = 2020
		h.expect(h.call(h.platform(), "POST", "/payment_instruments", body), 422, "")
	})
	t.Run("identity of another application", func(t *testing.T) {
		h.expect(h.call(h.other(), "POST", "/payment_instruments", cardBody(buyer, "4111111111111111")), 422, "")
	})
}

func authBody(source string, extra map[string]any) map[string]any {
	b := map[string]any{"source": source, "amount": 1000, "currency": "USD"}
	for k, v := range extra {
		b[k] = v
	}
	return b
}

func TestAuthorizations(t *testing.T) {
	h := newHarness(t)
	fx := h.fx.Fixtures
	card := h.card()
	create := func(extra map[string]any, status int) response {
		t.Helper()
		return h.expect(h.call(h.platform(), "POST", "/authorizations", authBody(card, extra)), status, "authorization")
	}
	t.Run("merchant_identity or merchant, exactly one", func(t *testing.T) {
		byIdentity := create(map[string]any{"merchant_identity": fx.MerchantIdentity}, 201).json(t)
		byMerchant := create(map[string]any{"merchant": fx.Merchant}, 201).json(t)
		assert.Equal(t, fx.MerchantIdentity, byIdentity["merchant_identity"], "merchant_identity of an authorization created by merchant_identity")
		assert.Equal(t, fx.MerchantIdentity, byMerchant["merchant_identity"], "merchant_identity of an authorization created by merchant")
		assert.Equal(t, "SUCCEEDED", byIdentity["state"], "state of a new authorization")
		assert.Nil(t, byIdentity["transfer"], "transfer of a new authorization")
		create(map[string]any{"merchant": fx.Merchant, "merchant_identity": fx.MerchantIdentity}, 422)
		create(nil, 422)
	})
	t.Run("amount 102 declines naming the authorization", func(t *testing.T) {
		r := create(map[string]any{"merchant": fx.Merchant, "amount": 102}, 402)
		if !strings.Contains(string(r.body), `"AU`) {
			t.Errorf("decline does not name the failed authorization: %s", r.body)
		}
	})
	t.Run("capture once", func(t *testing.T) {
		id := create(map[string]any{"merchant": fx.Merchant}, 201).str(t, "id")
		path := "/authorizations/" + id
		h.expect(h.call(h.platform(), "PUT", path, map[string]any{"capture_amount": 1001}), 422, "")
		h.expect(h.call(h.platform(), "PUT", path, map[string]any{"capture_amount": 500, "fee": 501}), 422, "")
		require.Nil(t, h.call(h.platform(), "GET", path, nil).json(t)["transfer"], "transfer after two refused captures")
		r := h.expect(h.call(h.platform(), "PUT", path, map[string]any{"capture_amount": 800, "fee": 10}), 200, "authorization").json(t)
		tr, _ := r["transfer"].(string)
		assert.Equal(t, "SUCCEEDED", r["state"], "state after the capture")
		links, _ := r["_links"].(map[string]any)
		assert.NotNil(t, links["transfer"], "transfer link after the capture: %v", links)
		require.True(t, strings.HasPrefix(tr, "TR"), "transfer after the capture %q, want a TR id", tr)
		transfer := h.expect(h.call(h.platform(), "GET", "/transfers/"+tr, nil), 200, "transfer").json(t)
		assert.Equal(t, "DEBIT", transfer["type"], "type of the capture's transfer")
		assert.Equal(t, float64(800), transfer["amount"], "amount of the capture's transfer")
		assert.Equal(t, float64(10), transfer["fee"], "fee of the capture's transfer")
		second := h.expect(h.call(h.platform(), "PUT", path, map[string]any{"capture_amount": 100}), 422, "")
		assert.Equal(t, "UNPROCESSABLE_ENTITY", errorCode(t, second), "code of a second capture")
	})
	t.Run("expires after 7 days", func(t *testing.T) {
		id := create(map[string]any{"merchant": fx.Merchant}, 201).str(t, "id")
		h.clock.Advance(7*24*time.Hour + time.Second)
		r := h.expect(h.call(h.platform(), "PUT", "/authorizations/"+id, map[string]any{"capture_amount": 100}), 422, "")
		assert.Equal(t, "UNPROCESSABLE_ENTITY", errorCode(t, r), "code of a capture after 7 days")
	})
	t.Run("level 3 needs an enabled merchant", func(t *testing.T) {
		r := create(map[string]any{"merchant_identity": fx.PlainMerchantIdentity, "additional_purchase_data": purchaseDataBody()}, 422)
		assert.Equal(t, "UNPROCESSABLE_ENTITY", errorCode(t, r), "code of Level 3 data for a merchant not enabled")
	})
	t.Run("level 3 carried over on capture with sales tax computed", func(t *testing.T) {
		a := create(map[string]any{"merchant_identity": fx.MerchantIdentity, "additional_purchase_data": purchaseDataBody()}, 201).json(t)
		data, _ := a["additional_purchase_data"].(map[string]any)
		assert.Equal(t, float64(80), data["sales_tax"], "sales_tax computed from the items")
		id, _ := a["id"].(string)
		c := h.expect(h.call(h.platform(), "PUT", "/authorizations/"+id, map[string]any{"capture_amount": 1000}), 200, "authorization").json(t)
		transfer, _ := c["transfer"].(string)
		require.NotEmpty(t, transfer, "transfer of the capture")
		tr := h.call(h.platform(), "GET", "/transfers/"+transfer, nil).json(t)
		got, _ := tr["additional_purchase_data"].(map[string]any)
		assert.Equal(t, "CRN-1", got["customer_reference_number"], "the capture transfer's purchase data, want the authorization's: %v", tr["additional_purchase_data"])
	})
}

func TestSales(t *testing.T) {
	h := newHarness(t)
	fx := h.fx.Fixtures
	card := h.card()
	sale := func(amount int, extra map[string]any, status int) response {
		t.Helper()
		b := map[string]any{"source": card, "merchant": fx.Merchant, "amount": amount, "currency": "USD"}
		for k, v := range extra {
			b[k] = v
		}
		return h.expect(h.call(h.platform(), "POST", "/transfers", b), status, "transfer")
	}
	t.Run("pending with default fee", func(t *testing.T) {
		m := sale(1500, nil, 201).json(t)
		for field, want := range map[string]any{"state": "PENDING", "fee": float64(0), "type": "DEBIT", "subtype": "API"} {
			assert.Equal(t, want, m[field], "%s of a new sale", field)
		}
	})
	t.Run("fee above amount", func(t *testing.T) { sale(100, map[string]any{"fee": 101}, 422) })
	t.Run("declined", func(t *testing.T) { sale(ledger.AmountDeclined, nil, 402) })
	t.Run("level 3 on a plain merchant", func(t *testing.T) {
		sale(1000, map[string]any{"merchant": fx.PlainMerchant, "additional_purchase_data": purchaseDataBody()}, 422)
	})
	t.Run("tax exempt with sales tax", func(t *testing.T) {
		data := purchaseDataBody()
		data["tax_exempt"], data["sales_tax"] = true, 5
		sale(1000, map[string]any{"additional_purchase_data": data}, 422)
	})
	t.Run("888888 opens a dispute, INQUIRY then PENDING", func(t *testing.T) {
		tr := sale(ledger.AmountDisputed, nil, 201).str(t, "id")
		var dispute map[string]any
		for _, d := range h.call(h.platform(), "GET", "/disputes?limit=100", nil).json(t)["_embedded"].(map[string]any)["disputes"].([]any) {
			if d.(map[string]any)["transfer"] == tr {
				dispute = d.(map[string]any)
			}
		}
		require.NotNil(t, dispute, "the dispute of the 888888 sale %s", tr)
		id := dispute["id"].(string)
		eventually(t, "dispute PENDING", func() bool {
			return h.call(h.platform(), "GET", "/disputes/"+id, nil).str(t, "state") == "PENDING"
		})
		adj := h.expect(h.call(h.platform(), "GET", "/disputes/"+id+"/adjustment_transfers", nil), 200, "transfer_list").json(t)
		items := adj["_embedded"].(map[string]any)["transfers"].([]any)
		subtypes := map[any]bool{}
		for _, it := range items {
			m := it.(map[string]any)
			subtypes[m["subtype"]] = true
			links := m["_links"].(map[string]any)
			assert.Equal(t, "DISPUTE", m["type"], "type of adjustment %v", m["id"])
			assert.NotNil(t, links["disputed_transfer"], "disputed_transfer link of adjustment %v", m["id"])
			assert.Nil(t, links["self"], "self link of adjustment %v", m["id"])
		}
		assert.Contains(t, subtypes, "PLATFORM_CREDIT", "subtypes of the adjustments")
		assert.Contains(t, subtypes, "MERCHANT_CREDIT", "subtypes of the adjustments")
	})
}
