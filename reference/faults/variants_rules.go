package faults

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
)

// Variants whose choice is to drop the business rules the reference adds
// where the spec is silent (profile key reference_rules).

// ruleVariants leave out the reference's own business rules.
func ruleVariants() []Variant {
	return []Variant{
		{
			Name: "no-reference-rules", Tags: "@errors,@payment_instruments",
			Choice:  "none of the reference's own business rules: one violation reported, a fingerprint per card, a tax-exempt sale with a sales tax accepted",
			Profile: `{"reference_rules": "unchecked"}`,
			build:   parts(wrapOnly(withoutReferenceRules)),
		},
	}
}

// withoutReferenceRules drops the business rules the reference adds where
// the spec is silent (profile key reference_rules), keeping those the spec
// states (an omitted sales tax computed from itemized amounts, §2.13; an
// updated subscription amount not updated again, §3.2):
//   - a refusal of invalid fields reports one violation (the last the
//     reference lists: of the two fields of an authorization's merchant,
//     merchant_identity, the argument table's);
//   - a card's fingerprint is its own, not shared by cards of the same number;
//   - a tax-exempt sale or authorization may carry a positive sales tax
//     (shown as sent).
func withoutReferenceRules(next http.Handler, d faultDeps) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		in := peekJSON(r)
		var salesTax any
		switch {
		case in == nil:
		case matchAny(r, "authorizations.create", "transfers.create"):
			apd := objectAt(in, "additional_purchase_data")
			if tax, ok := numberOf(apd["sales_tax"]); ok && apd["tax_exempt"] == true && tax > 0 {
				salesTax, apd["sales_tax"] = apd["sales_tax"], 0
				replaceBody(r, in)
			}
		}
		rec := newFaultRecorder()
		next.ServeHTTP(rec, r)
		out := decodeFaultJSON(rec.body.Bytes())
		if out == nil || !oneViolationOnly(out) && !ownFingerprints(r, out) && !showSalesTax(out, salesTax) {
			rec.flush(w, rec.body.Bytes())
			return
		}
		writeFaultJSONHeader(w, rec, out)
	})
}

// oneViolationOnly keeps the last item of an envelope of several invalid
// fields; it reports whether it changed the envelope.
func oneViolationOnly(out map[string]any) bool {
	emb, _ := out["_embedded"].(map[string]any)
	items, _ := emb["errors"].([]any)
	if len(items) < 2 {
		return false
	}
	last, _ := items[len(items)-1].(map[string]any)
	if last["code"] != "INVALID_FIELD" {
		return false
	}
	emb["errors"], out["total"] = items[len(items)-1:], 1
	return true
}

// ownFingerprints gives every card of a payment-instrument response a
// fingerprint derived from its own id.
func ownFingerprints(r *http.Request, out map[string]any) bool {
	if !matchAny(r, "payment_instruments.create", "payment_instruments.get") {
		return false
	}
	changed := false
	eachResource(out, func(m map[string]any) {
		id, _ := m["id"].(string)
		if _, ok := m["fingerprint"].(string); ok && id != "" {
			sum := sha256.Sum256([]byte(id))
			m["fingerprint"], changed = "FPR"+hex.EncodeToString(sum[:16]), true
		}
	})
	return changed
}

// showSalesTax puts the sales tax a request sent back on its response.
func showSalesTax(out map[string]any, salesTax any) bool {
	apd := objectAt(out, "additional_purchase_data")
	if salesTax == nil || apd == nil {
		return false
	}
	if n, ok := salesTax.(json.Number); ok {
		apd["sales_tax"] = n
	} else {
		apd["sales_tax"] = salesTax
	}
	return true
}
