package reference

import (
	"strings"
	"testing"
	"time"
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
				if strings.Contains(string(r.body), tc.number) {
					t.Errorf("error echoes the card number: %s", r.body)
				}
				return
			}
			m := r.json(t)
			if m["brand"] != tc.brand || m["bin"] != tc.number[:6] || m["last_four"] != tc.number[len(tc.number)-4:] {
				t.Errorf("brand/bin/last_four = %v/%v/%v for %s", m["brand"], m["bin"], m["last_four"], tc.number)
			}
		})
	}
	t.Run("fingerprint stable per number", func(t *testing.T) {
		a := h.call(h.platform(), "POST", "/payment_instruments", cardBody(buyer, "4242424242424242")).str(t, "fingerprint")
		b := h.call(h.merchant(), "POST", "/payment_instruments", cardBody(buyer, "4242424242424242")).str(t, "fingerprint")
		c := h.call(h.platform(), "POST", "/payment_instruments", cardBody(buyer, "4000056655665556")).str(t, "fingerprint")
		if a == "" || a != b || a == c {
			t.Errorf("fingerprints %q %q %q: want first two equal, third different", a, b, c)
		}
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
		if byIdentity["merchant_identity"] != fx.MerchantIdentity || byMerchant["merchant_identity"] != fx.MerchantIdentity {
			t.Errorf("merchant_identity = %v / %v, want %s", byIdentity["merchant_identity"], byMerchant["merchant_identity"], fx.MerchantIdentity)
		}
		if byIdentity["state"] != "SUCCEEDED" || byIdentity["transfer"] != nil {
			t.Errorf("new authorization state %v transfer %v", byIdentity["state"], byIdentity["transfer"])
		}
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
		if got := h.call(h.platform(), "GET", path, nil).json(t)["transfer"]; got != nil {
			t.Fatalf("a refused capture set transfer %v", got)
		}
		r := h.expect(h.call(h.platform(), "PUT", path, map[string]any{"capture_amount": 800, "fee": 10}), 200, "authorization").json(t)
		tr, _ := r["transfer"].(string)
		links := r["_links"].(map[string]any)
		if r["state"] != "SUCCEEDED" || !strings.HasPrefix(tr, "TR") || links["transfer"] == nil {
			t.Fatalf("capture: state %v transfer %v links %v", r["state"], r["transfer"], links)
		}
		transfer := h.expect(h.call(h.platform(), "GET", "/transfers/"+tr, nil), 200, "transfer").json(t)
		if transfer["type"] != "DEBIT" || transfer["amount"].(float64) != 800 || transfer["fee"].(float64) != 10 {
			t.Errorf("capture transfer type %v amount %v fee %v", transfer["type"], transfer["amount"], transfer["fee"])
		}
		second := h.expect(h.call(h.platform(), "PUT", path, map[string]any{"capture_amount": 100}), 422, "")
		if code := errorCode(t, second); code != "UNPROCESSABLE_ENTITY" {
			t.Errorf("second capture code %s", code)
		}
	})
	t.Run("expires after 7 days", func(t *testing.T) {
		id := create(map[string]any{"merchant": fx.Merchant}, 201).str(t, "id")
		h.clock.Advance(7*24*time.Hour + time.Second)
		r := h.expect(h.call(h.platform(), "PUT", "/authorizations/"+id, map[string]any{"capture_amount": 100}), 422, "")
		if code := errorCode(t, r); code != "UNPROCESSABLE_ENTITY" {
			t.Errorf("expired capture code %s", code)
		}
	})
	t.Run("level 3 needs an enabled merchant", func(t *testing.T) {
		r := create(map[string]any{"merchant_identity": fx.PlainMerchantIdentity, "additional_purchase_data": purchaseDataBody()}, 422)
		if code := errorCode(t, r); code != "UNPROCESSABLE_ENTITY" {
			t.Errorf("code %s", code)
		}
	})
	t.Run("level 3 carried over on capture with sales tax computed", func(t *testing.T) {
		a := create(map[string]any{"merchant_identity": fx.MerchantIdentity, "additional_purchase_data": purchaseDataBody()}, 201).json(t)
		data := a["additional_purchase_data"].(map[string]any)
		if data["sales_tax"] != float64(80) {
			t.Errorf("sales_tax %v, want 80 computed from the items", data["sales_tax"])
		}
		c := h.expect(h.call(h.platform(), "PUT", "/authorizations/"+a["id"].(string), map[string]any{"capture_amount": 1000}), 200, "authorization").json(t)
		tr := h.call(h.platform(), "GET", "/transfers/"+c["transfer"].(string), nil).json(t)
		if got, _ := tr["additional_purchase_data"].(map[string]any); got["customer_reference_number"] != "CRN-1" {
			t.Errorf("capture transfer purchase data %v, want the authorization's", tr["additional_purchase_data"])
		}
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
		if m["state"] != "PENDING" || m["fee"] != float64(0) || m["type"] != "DEBIT" || m["subtype"] != "API" {
			t.Errorf("sale state %v fee %v type %v/%v", m["state"], m["fee"], m["type"], m["subtype"])
		}
	})
	t.Run("fee above amount", func(t *testing.T) { sale(100, map[string]any{"fee": 101}, 422) })
	t.Run("declined", func(t *testing.T) { sale(amountDeclined, nil, 402) })
	t.Run("level 3 on a plain merchant", func(t *testing.T) {
		sale(1000, map[string]any{"merchant": fx.PlainMerchant, "additional_purchase_data": purchaseDataBody()}, 422)
	})
	t.Run("tax exempt with sales tax", func(t *testing.T) {
		data := purchaseDataBody()
		data["tax_exempt"], data["sales_tax"] = true, 5
		sale(1000, map[string]any{"additional_purchase_data": data}, 422)
	})
	t.Run("888888 opens a dispute, INQUIRY then PENDING", func(t *testing.T) {
		tr := sale(amountDisputed, nil, 201).str(t, "id")
		var dispute map[string]any
		for _, d := range h.call(h.platform(), "GET", "/disputes?limit=100", nil).json(t)["_embedded"].(map[string]any)["disputes"].([]any) {
			if d.(map[string]any)["transfer"] == tr {
				dispute = d.(map[string]any)
			}
		}
		if dispute == nil {
			t.Fatal("no dispute for the 888888 sale")
		}
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
			if m["type"] != "DISPUTE" || links["disputed_transfer"] == nil || links["self"] != nil {
				t.Errorf("adjustment type %v links %v", m["type"], links)
			}
		}
		if !subtypes["PLATFORM_CREDIT"] || !subtypes["MERCHANT_CREDIT"] {
			t.Errorf("adjustment subtypes %v, want PLATFORM_CREDIT and MERCHANT_CREDIT", subtypes)
		}
	})
}
