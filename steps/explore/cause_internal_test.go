package explore

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestNormaliseKeepsTheCauseOnly: the messages of one cause on different
// sequences (other ids, numbers, generated text, requests, operations and
// roles) normalise alike; section numbers and what the message says stay.
func TestNormaliseKeepsTheCauseOnly(t *testing.T) {
	read := Step{Op: "authorizations.get", Method: "GET", Path: "/authorizations/{authorization}", Of: "authorization"}
	readB := Step{Op: "authorizations.get", Method: "GET", Path: "/authorizations/{authorization b}", Of: "authorization b"}
	create := Step{Op: "authorizations.create", Method: "POST", Path: "/authorizations", Save: "authorization"}
	sale := Step{Op: "transfers.create", Method: "POST", Path: "/transfers", Save: "sale c"}
	tests := []struct {
		name string
		msg  string
		st   Step
		want string
	}{
		{"a transfer id", `a refused request changed transfer of the authorization: null before, "TRKBNM0ZoRJOy8gPEOLbm4LT" after`, read,
			"a refused request changed transfer of the authorization: null before, {id} after"},
		{"another role of the kind", `a refused request changed transfer of the authorization b: null before, "TRoRm83rR2rY4FW7D1vICogA" after`, readB,
			"a refused request changed transfer of the authorization: null before, {id} after"},
		{"a request and statuses", "POST /authorizations answered 500; a conformant server answers 201", create,
			"{request} answered {number}; a conformant server answers {number}"},
		{"another operation", "POST /transfers answered 502; a conformant server answers 200", sale,
			"{request} answered {number}; a conformant server answers {number}"},
		{"a field, a negative value and a section", "POST /authorizations: `additional_purchase_data/item_data/0/quantity` -1 accepted with 201; §8: greater than 0", create,
			"{request}: `additional_purchase_data/item_data/{number}/quantity` {number} accepted with {number}; §8: greater than {number}"},
		{"a subsection and a fraction", "the authorizations.create answer breaks §4.1: amount 10.5 of the authorization", create,
			"the {operation} answer breaks §4.1: amount {number} of the authorization"},
		{"generated text and an unquoted id", `name of the sale c is "O'Brien 😀", want "explore" (AU0123456789abcdef)`, sale,
			"name of the sale is {text}, want {text} ({id})"},
		{"a word with digits that is no id", "level_two_level_three_data_enabled of the merchant: true before, false after", Step{Of: "merchant"},
			"level_two_level_three_data_enabled of the merchant: true before, false after"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, normalise(tt.msg, tt.st))
		})
	}
}

// TestFindingsOfOneCauseGroup: findings whose messages differ only by what
// normalise replaces share a group; another check, basis or rule does not.
func TestFindingsOfOneCauseGroup(t *testing.T) {
	read := Step{Op: "authorizations.get", Method: "GET", Path: "/authorizations/{authorization}", Of: "authorization"}
	mk := func(check string, st Step, b, msg string) *Finding {
		f := &Finding{Check: check, Op: st.Op, Basis: basisUnchanged, Message: msg, cause: normalise(msg, st)}
		if b != "" {
			f.Basis = basisOf(b)
		}
		return f
	}
	a := mk(checkChangesNone, read, "", `a refused request changed transfer of the authorization: null before, "TRKBNM0ZoRJOy8gPEOLbm4LT" after`)
	b := mk(checkChangesNone, read, "", `a refused request changed transfer of the authorization: null before, "TR7aMgcIjWK0HMyKj8qxPxr5" after`)
	other := mk(checkChangesNone, read, "", `a refused request changed amount of the authorization: 1000 before, 1001 after`)
	otherBasis := mk(checkChangesNone, read, "4.1", `a refused request changed transfer of the authorization: null before, "TR7aMgcIjWK0HMyKj8qxPxr5" after`)
	otherCheck := mk(checkReadBack, read, "", `a refused request changed transfer of the authorization: null before, "TR7aMgcIjWK0HMyKj8qxPxr5" after`)
	assert.Equal(t, a.Group(), b.Group(), "the same cause")
	assert.NotEqual(t, a.Group(), other.Group(), "another field")
	assert.NotEqual(t, a.Group(), otherBasis.Group(), "another basis")
	assert.NotEqual(t, a.Group(), otherCheck.Group(), "another check")
}

// TestAcceptedMessageNamesFieldAndRule: a body the contract refuses that
// the target accepted is reported by its field, the value sent and the
// rule (the basis's words for a stated rule, the keyword and the
// validator's message for an assumed one); a rule the body does not
// break (a capture over the amount) keeps the step's rule.
func TestAcceptedMessageNamesFieldAndRule(t *testing.T) {
	r, err := newRunner(Options{Target: Target{URL: "http://127.0.0.1:1"}, Model: referenceModel})
	require.NoError(t, err)
	item := `{"amount_excluding_sales_tax":1,"amount_including_sales_tax":1,"commodity_code":"123","cost_per_unit":%s,"item_description":"d","item_discount_amount":0,"merchant_product_code":"m","quantity":%s,"unit_of_measure":"EA"}`
	body := func(cost, quantity string) string {
		return `{"source":"{card}","merchant":"{fixture:merchant}","amount":1000,"currency":"USD","idempotency_id":"x","additional_purchase_data":{"customer_reference_number":"c","customs_duty_amount":0,"discount_amount":0,"shipping_amount":0,"item_data":[` + fmt.Sprintf(item, cost, quantity) + `]}}`
	}
	tex := Exchange{Path: "/transfers", Status: 201}
	tests := []struct {
		name, body string
		want       []string
	}{
		{"a stated bound", body("1", "0"), []string{"POST /transfers: `additional_purchase_data/item_data/0/quantity` 0 accepted with 201; §"}},
		{"an assumed rule", body("-1", "1"), []string{"POST /transfers: `additional_purchase_data/item_data/0/cost_per_unit` -1 accepted with 201; minimum: ", "(assumed: "}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := Step{Op: "transfers.create", Method: "POST", Path: "/transfers", Body: tt.body, Refuse: true}
			v, _, b, ok := r.bodyViolation(st)
			require.True(t, ok, "the body breaks its schema")
			st.Rule, st.Basis = "the body breaks the request schema at "+v.Pointer, b
			msg := r.acceptedMessage(st, tex, r.basisFor(checkForbidden, st, b), st.Rule)
			for _, w := range tt.want {
				assert.Contains(t, msg, w)
			}
			if b.Normative() {
				assert.Contains(t, msg, b.Says, "a stated rule's words")
			}
			t.Log(msg)
		})
	}
	over := Step{Op: "authorizations.capture", Method: "PUT", Path: "/authorizations/{authorization}", Body: `{"capture_amount":1001}`, Refuse: true,
		Rule: "capture_amount at most the authorization's amount", Basis: saying(basisOf("4.1"), "the capture amount may not exceed the authorized amount")}
	msg := r.acceptedMessage(over, Exchange{Path: "/authorizations/AU1", Status: 200}, over.Basis, over.Rule)
	assert.Equal(t, "PUT /authorizations/AU1 was accepted with 200; capture_amount at most the authorization's amount (§4.1: the capture amount may not exceed the authorized amount)", msg)
}
