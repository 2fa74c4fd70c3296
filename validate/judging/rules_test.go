package judging_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/conform-kit/conform/validate"
	"github.com/conform-kit/conform/validate/judging"
)

// TestRequestBodyBasis: a violation an assumed rule of its schema names is
// judged under the rule's profile key, with the schema's sections; any
// other violation of the schema by the schema's basis; a schema assumed as
// a whole by its key whatever the violation.
func TestRequestBodyBasis(t *testing.T) {
	j := newJudge(t)
	enrollment := []string{"4.5"}
	tests := []struct {
		name   string
		schema string
		vi     validate.Violation
		want   judging.Basis
	}{
		{"enrollment without merchant", "subscription_enrollment_create",
			validate.Violation{Pointer: "/merchant", Rule: "required"},
			judging.Basis{Assumed: "reference_rules", Clauses: enrollment}},
		{"enrollment merchant of the wrong form", "subscription_enrollment_create",
			validate.Violation{Pointer: "/merchant", Rule: "pattern"},
			judging.Basis{Clauses: enrollment}},
		{"enrollment with an unknown field", "subscription_enrollment_create",
			validate.Violation{Pointer: "/color", Rule: "additionalProperties"},
			judging.Basis{Clauses: enrollment}},
		{"enrollment nickname of the wrong type", "subscription_enrollment_create",
			validate.Violation{Pointer: "/nickname", Rule: "type"},
			judging.Basis{Clauses: enrollment}},
		{"a parameter, not the body", "subscription_enrollment_create",
			validate.Violation{Pointer: "/merchant", Rule: "required", In: validate.InQuery},
			judging.Basis{Clauses: enrollment}},
		{"enrollment update of a field §4.5 does not show", "subscription_enrollment_update",
			validate.Violation{Pointer: "/merchant", Rule: "additionalProperties"},
			judging.Basis{Assumed: "reference_rules", Clauses: enrollment}},
		{"enrollment update nickname of the wrong type", "subscription_enrollment_update",
			validate.Violation{Pointer: "/nickname", Rule: "type"},
			judging.Basis{Clauses: enrollment}},
		{"enrollment update: a member of tags is not the rule's", "subscription_enrollment_update",
			validate.Violation{Pointer: "/tags/x", Rule: "additionalProperties"},
			judging.Basis{Clauses: enrollment}},
		{"a sale's amount past 2^63−1: the reference's representation", "transfer_create",
			validate.Violation{Pointer: "/amount", Rule: "maximum"},
			judging.Basis{Assumed: "reference_rules", Clauses: []string{"4.2", "2.13", "8"}}},
		{"an item's cost past 2^63−1", "authorization_create",
			validate.Violation{Pointer: "/additional_purchase_data/item_data/3/cost_per_unit", Rule: "maximum"},
			judging.Basis{Assumed: "reference_rules", Clauses: []string{"4.1", "2.13", "8"}}},
		{"an order year past 9999: §2.13's four digits", "authorization_create",
			validate.Violation{Pointer: "/additional_purchase_data/order_date/year", Rule: "maximum"},
			judging.Basis{Clauses: []string{"4.1", "2.13", "8"}}},
		{"a negative sale: not the rule's keyword", "transfer_create",
			validate.Violation{Pointer: "/amount", Rule: "minimum"},
			judging.Basis{Clauses: []string{"4.2", "2.13", "8"}}},
		{"a sale without merchant: §4.2 requires it", "transfer_create",
			validate.Violation{Pointer: "/merchant", Rule: "required"},
			judging.Basis{Clauses: []string{"4.2", "2.13", "8"}}},
		{"a file payload: assumed as a whole", "file_create",
			validate.Violation{Pointer: "/type", Rule: "enum"},
			judging.Basis{Assumed: "file_payloads", Clauses: []string{"4.8"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := j.RequestBodyBasis(tt.schema, tt.vi)
			require.True(t, ok)
			assert.Equal(t, tt.want, got)
		})
	}
	_, ok := j.RequestBodyBasis("nope", validate.Violation{Pointer: "/merchant", Rule: "required"})
	assert.False(t, ok, "a schema judging.json does not know")
}

// TestAssumedRulesAreViolationsOfTheirSchema: each assumed rule of
// judging.json is what the validator reports for a body breaking it (the
// same pointer and keyword), so a rule cannot name a violation that never
// happens; a violation of the same keyword elsewhere keeps the schema's
// basis (a card's expiration year past 9999 breaks §4.3's four digits).
func TestAssumedRulesAreViolationsOfTheirSchema(t *testing.T) {
	j := newJudge(t)
	const past = "9223372036854775808" // 2^63
	bodies := map[string]string{       // schema and keyword → a body breaking the rule
		"subscription_enrollment_create required":             `{"nickname":"n"}`,
		"subscription_enrollment_update additionalProperties": `{"merchant":"MU1"}`,
		"authorization_create maximum":                        `{"amount":` + past + `}`,
		"authorization_capture maximum":                       `{"capture_amount":` + past + `,"fee":` + past + `}`,
		"transfer_create maximum":                             `{"fee":` + past + `,"additional_purchase_data":{"item_data":[{"cost_per_unit":` + past + `}]}}`,
		"subscription_amount_update maximum":                  `{"fee_amount_data":{"amount":` + past + `}}`,
	}
	n := 0
	for name, row := range j.Table().Schemas {
		for _, r := range row.AssumedRules {
			n++
			body, ok := bodies[name+" "+r.Rule]
			if !assert.True(t, ok, "no body here breaks %s of %s", r, name) {
				continue
			}
			err := j.Validator().Validate(name, []byte(body))
			var ve *validate.Error
			require.ErrorAs(t, err, &ve, "%s of %s", r, name)
			found := 0
			for _, vi := range ve.Violations {
				b, _ := j.RequestBodyBasis(name, vi)
				if vi.Rule == r.Rule {
					found++
					assert.Equal(t, r.Assumed, b.Assumed, "%s of %s: %+v", r, name, vi)
				}
			}
			assert.Positive(t, found, "%s of %s: violations %+v", r, name, ve.Violations)
		}
	}
	assert.Len(t, bodies, n, "bodies of rules no longer in judging.json")
	assert.Equal(t, []judging.AssumedRule{{Pointers: []string{"/merchant"}, Rule: "required", Assumed: "reference_rules",
		Why: j.AssumedRules("subscription_enrollment_create")[0].Why}}, j.AssumedRules("subscription_enrollment_create"))

	err := j.Validator().Validate("payment_instrument_create", []byte(`{"expiration_year":`+past+`}`))
	var ve *validate.Error
	require.ErrorAs(t, err, &ve)
	for _, vi := range ve.Violations {
		if vi.Pointer == "/expiration_year" {
			b, _ := j.RequestBodyBasis("payment_instrument_create", vi)
			assert.True(t, b.Normative(), "%+v: %s", vi, b.Cites())
		}
	}
}
