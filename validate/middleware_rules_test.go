package validate_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/conform-kit/conform/validate"
)

// level3Sale is a sale with Level 2/3 data; edit changes its decoded form.
func level3Sale(t *testing.T, edit func(doc, purchase map[string]any)) string {
	t.Helper()
	var doc map[string]any
	require.NoError(t, json.Unmarshal(validate.BenchLevel3Sale(1), &doc))
	edit(doc, doc["additional_purchase_data"].(map[string]any))
	b, err := json.Marshal(doc)
	require.NoError(t, err)
	return string(b)
}

// TestMiddlewareBodyRules: by default the middleware refuses what the
// body alone shows breaks a business rule (a sale's fee over its amount,
// sales_tax on a tax-exempt purchase) with 422 INVALID_FIELD naming the
// field, before the handler runs; WithoutBodyRules leaves them to it.
func TestMiddlewareBodyRules(t *testing.T) {
	v := newValidator(t)
	jsonType := map[string]string{"Content-Type": "application/json"}
	feeOver := `{"source":"PI0123456789abcdefghijkl","merchant":"MU0123456789abcdefghijkl","amount":1000,"fee":2000,"currency":"USD"}`
	feeEqual := `{"source":"PI0123456789abcdefghijkl","merchant":"MU0123456789abcdefghijkl","amount":1000,"fee":1000,"currency":"USD"}`
	taxed := func(doc, p map[string]any) { p["tax_exempt"], p["sales_tax"] = true, 100 }
	exemptZero := func(doc, p map[string]any) { p["tax_exempt"], p["sales_tax"] = true, 0 }
	tests := []struct {
		name      string
		opts      []validate.Option
		method    string
		target    string
		body      string
		wantCode  int
		wantField string
	}{
		{"sale fee over amount", nil, "POST", "/transfers", feeOver, 422, "/fee"},
		{"sale fee equal to amount", nil, "POST", "/transfers", feeEqual, 299, ""},
		{"tax-exempt sale with a sales tax", nil, "POST", "/transfers", level3Sale(t, taxed), 422, "/additional_purchase_data/sales_tax"},
		{"tax-exempt sale with sales tax 0", nil, "POST", "/transfers", level3Sale(t, exemptZero), 299, ""},
		{"tax-exempt authorization with a sales tax", nil, "POST", "/authorizations", level3Sale(t, func(doc, p map[string]any) {
			taxed(doc, p)
			delete(doc, "fee")
			delete(doc, "merchant")
			doc["merchant_identity"] = "ID0123456789abcdefghijkl"
		}), 422, "/additional_purchase_data/sales_tax"},
		{"rules off: fee over amount reaches the handler", []validate.Option{validate.WithoutBodyRules()}, "POST", "/transfers", feeOver, 299, ""},
		{"rules off: tax-exempt sale with a sales tax reaches the handler", []validate.Option{validate.WithoutBodyRules()}, "POST", "/transfers", level3Sale(t, taxed), 299, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			reached := false
			h := validate.Middleware(v, tc.opts...)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				reached = true
				w.WriteHeader(299)
			}))
			code, body, _ := exchange(t, h, tc.method, tc.target, tc.body, jsonType)
			require.Equal(t, tc.wantCode, code, "%s", body)
			assert.Equal(t, tc.wantCode == 299, reached, "the handler runs only for a body that keeps the rules")
			if tc.wantField != "" {
				codes, fields, _ := envelopeOf(t, body)
				assert.Equal(t, []string{"INVALID_FIELD"}, codes)
				assert.Equal(t, []string{tc.wantField}, fields)
			}
		})
	}
}

// TestBodyRules: the rules by operation; operations they do not concern pass.
func TestBodyRules(t *testing.T) {
	feeOver := []byte(`{"amount":1000,"fee":1001}`)
	tests := []struct {
		op      string
		body    []byte
		wantErr bool
	}{
		{"transfers.create", feeOver, true},
		{"transfers.create", []byte(`{"amount":1000}`), false},
		{"authorizations.create", feeOver, false}, // an authorization carries no fee rule of its own
		{"authorizations.capture", []byte(`{"capture_amount":100,"additional_purchase_data":{"tax_exempt":true,"sales_tax":1}}`), true},
		{"payment_instruments.create", []byte(`{"additional_purchase_data":{"tax_exempt":true,"sales_tax":1}}`), false},
		{"transfers.create", []byte(`[1,2]`), false},
	}
	for _, tc := range tests {
		err := validate.BodyRules(tc.op, tc.body)
		if !tc.wantErr {
			assert.NoError(t, err, "%s %s", tc.op, tc.body)
			continue
		}
		var ve *validate.Error
		require.ErrorAs(t, err, &ve, "%s %s", tc.op, tc.body)
		assert.Equal(t, validate.WhereRequest, ve.Where)
		assert.Equal(t, tc.op, ve.Operation)
	}
}
