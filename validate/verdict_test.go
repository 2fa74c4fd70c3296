package validate

import (
	"errors"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// verdictTargets are the method and target the middleware is sent each
// operation's body on.
var verdictTargets = map[string][2]string{
	"transfers.create":       {http.MethodPost, "/transfers"},
	"authorizations.create":  {http.MethodPost, "/authorizations"},
	"authorizations.capture": {http.MethodPut, "/authorizations/AU0123456789abcdefghijkl"},
	"webhooks.create":        {http.MethodPost, "/webhooks"},
}

// verdictDoors sends bodies through the two doors of the library with its
// defaults: RequestBody (what conform validate --request calls) and
// Middleware.
type verdictDoors struct {
	v        *Validator
	h        http.Handler
	rendered error
	tally    struct{ bodies, valid, malformed, refused, rules int }
}

func newVerdictDoors(t testing.TB) *verdictDoors {
	v, err := New()
	require.NoError(t, err)
	d := &verdictDoors{v: v}
	d.h = Middleware(v, WithErrorRenderer(func(w http.ResponseWriter, r *http.Request, err error) {
		d.rendered = err
		WriteError(w, r, err)
	}))(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) }))
	return d
}

// agree checks that one body of op gets one verdict through both doors:
// valid through both, malformed (400) through both with the same message,
// or refused (422) through both with the same violations.
func (d *verdictDoors) agree(t testing.TB, op string, body []byte) {
	t.Helper()
	target, ok := verdictTargets[op]
	require.True(t, ok, op)
	lib := d.v.RequestBody(op, body)
	d.rendered = nil
	req := httptest.NewRequest(target[0], target[1], strings.NewReader(string(body)))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	d.h.ServeHTTP(rec, req)
	d.tally.bodies++
	var libErr, mwErr *Error
	switch {
	case lib == nil:
		d.tally.valid++
		require.Equal(t, http.StatusNoContent, rec.Code, "%s %.300s: RequestBody passes it, the middleware answers %d: %v", op, body, rec.Code, d.rendered)
	case errors.Is(lib, ErrMalformed):
		d.tally.malformed++
		require.Equal(t, http.StatusBadRequest, rec.Code, "%s %.300s: RequestBody says %v, the middleware answers %d", op, body, lib, rec.Code)
		require.ErrorAs(t, d.rendered, &mwErr)
		require.Len(t, mwErr.Violations, 1)
		require.Equal(t, publicMessage(lib), mwErr.Violations[0].Message)
	default:
		require.ErrorAs(t, lib, &libErr, "%s %.300s", op, body)
		d.tally.refused++
		if slices.ContainsFunc(libErr.Violations, func(v Violation) bool { return v.Rule == RuleFeeMax || v.Rule == RuleTaxExempt }) {
			d.tally.rules++
		}
		require.Equal(t, http.StatusUnprocessableEntity, rec.Code, "%s %.300s: RequestBody says %v, the middleware answers %d", op, body, lib, rec.Code)
		require.ErrorAs(t, d.rendered, &mwErr)
		require.Equal(t, libErr.Code, mwErr.Code, "%s %.300s", op, body)
		require.Equal(t, libErr.Violations, mwErr.Violations, "%s %.300s", op, body)
		require.Equal(t, libErr.Omitted, mwErr.Omitted, "%s %.300s", op, body)
		require.Equal(t, WhereRequest, libErr.Where)
		require.Equal(t, op, libErr.Operation)
	}
}

// TestOneVerdictPerBody: a body gets one verdict from the library's
// defaults whichever door it comes in. A sale with its fee over its amount
// passed conform validate (Request, the schema alone) while the middleware
// refused it 422; RequestBody, which conform validate now calls, refuses it
// as the middleware does. Compared: named bodies, every fixture against the
// operations with body rules and webhooks.create, every combination of the
// members the rules read at their edges, and seeded random rule bodies.
func TestOneVerdictPerBody(t *testing.T) {
	d := newVerdictDoors(t)
	sale := `"source":"PIe2YvpcjvoVJ6PzoRPBK137","merchant":"MUeDVrf2ahuKc9Eg5TeZugvs","currency":"USD"`
	tests := []struct {
		name, op, body string
		rule           string // the rule RequestBody refuses it by; "" when valid or malformed
	}{
		{"a sale, fee over amount", "transfers.create", `{` + sale + `,"amount":1000,"fee":1001}`, RuleFeeMax},
		{"a sale, fee equal to amount", "transfers.create", `{` + sale + `,"amount":1000,"fee":1000}`, ""},
		{"a tax-exempt sale with sales tax", "transfers.create", `{` + sale + `,"amount":1000,"additional_purchase_data":{` + purchaseHead + `,"tax_exempt":true,"sales_tax":5}}`, RuleTaxExempt},
		{"a capture, tax exempt with sales tax", "authorizations.capture", `{"capture_amount":10,"additional_purchase_data":{"tax_exempt":true,"sales_tax":1}}`, RuleTaxExempt},
		{"fee over amount and a schema violation", "transfers.create", `{` + sale + `,"amount":1000,"fee":1001,"x":1}`, "additionalProperties"},
		{"not JSON", "transfers.create", `{` + sale, ""},
		{"nested too deep", "transfers.create", `{` + sale + `,"amount":1,"tags":{"a":` + strings.Repeat("[", 100) + `}}`, RuleDepth},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d.agree(t, tt.op, []byte(tt.body))
			err := d.v.RequestBody(tt.op, []byte(tt.body))
			if tt.rule == "" {
				return
			}
			var e *Error
			require.ErrorAs(t, err, &e)
			assert.True(t, slices.ContainsFunc(e.Violations, func(v Violation) bool { return v.Rule == tt.rule }), "%v", e)
		})
	}
	// Request is the schema alone, as documented.
	require.NoError(t, d.v.Request("transfers.create", []byte(tests[0].body)))

	_, docs := fixtureDocs(t)
	for _, data := range docs {
		for op := range verdictTargets {
			d.agree(t, op, data)
		}
	}
	for _, rb := range ruleBodies {
		for _, amount := range ruleAmounts {
			for _, fee := range append([]string{""}, ruleAmounts...) {
				for _, flag := range ruleTaxFlags {
					for _, tax := range []string{"", "0", "0.0", "1", "null"} {
						head := purchaseHead
						if rb.op == "authorizations.capture" {
							head = ""
						}
						purchase := members(head, member("tax_exempt", flag), member("sales_tax", tax))
						body := members(slices.Concat(rb.head, []string{member(rb.amountKey, amount), member("fee", fee), member("additional_purchase_data", purchase)})...)
						d.agree(t, rb.op, []byte(body))
					}
				}
			}
		}
	}
	rng := rand.New(rand.NewPCG(2026, 1128))
	for range 1000 {
		rb := ruleBodies[rng.IntN(len(ruleBodies))]
		d.agree(t, rb.op, randomRuleBody(rng, rb))
	}
	t.Logf("%d bodies: %d valid, %d malformed, %d refused (%d by a body rule)", d.tally.bodies, d.tally.valid, d.tally.malformed, d.tally.refused, d.tally.rules)
	require.Greater(t, d.tally.rules, 500, "bodies refused by a body rule")
	require.Greater(t, d.tally.valid, 500)
}
