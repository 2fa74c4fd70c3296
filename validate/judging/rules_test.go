package judging_test

import (
	"slices"
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
	says := func(clauses []string, words string) judging.Basis {
		return judging.Basis{Clauses: clauses, Says: words}
	}
	sale, auth := []string{"4.2", "2.13", "8"}, []string{"4.1", "2.13", "8"}
	tests := []struct {
		name   string
		schema string
		vi     validate.Violation
		want   judging.Basis
	}{
		{"enrollment without merchant", "subscription_enrollment_create",
			validate.Violation{Pointer: "/merchant", Rule: "required"},
			judging.Basis{Assumed: "request_rules", Clauses: enrollment}},
		{"enrollment merchant of the wrong form: a Merchant id", "subscription_enrollment_create",
			validate.Violation{Pointer: "/merchant", Rule: "pattern"},
			says([]string{"4.5", "2"}, "merchant: string, Merchant id (prefix MU)")},
		{"enrollment with an unknown field: no sentence refuses it", "subscription_enrollment_create",
			validate.Violation{Pointer: "/color", Rule: "additionalProperties"},
			judging.Basis{Assumed: "request_rules", Clauses: enrollment}},
		{"enrollment nickname of the wrong type: the row", "subscription_enrollment_create",
			validate.Violation{Pointer: "/nickname", Rule: "type"},
			says(enrollment, "enrollment create: merchant (string, Merchant id), nickname (string), started_at (string, timestamp), tags (object)")},
		{"a parameter, not the body", "subscription_enrollment_create",
			validate.Violation{Pointer: "/merchant", Rule: "required", In: validate.InQuery},
			says(enrollment, "enrollment create: merchant (string, Merchant id), nickname (string), started_at (string, timestamp), tags (object)")},
		{"enrollment update: which fields may be updated is not shown", "subscription_enrollment_update",
			validate.Violation{Pointer: "/merchant", Rule: "additionalProperties"},
			judging.Basis{Assumed: "request_rules", Clauses: enrollment}},
		{"enrollment update nickname of the wrong type: still the update's silence", "subscription_enrollment_update",
			validate.Violation{Pointer: "/nickname", Rule: "type"},
			judging.Basis{Assumed: "request_rules", Clauses: enrollment}},
		{"a sale's amount past 2^63−1: the reference's representation", "transfer_create",
			validate.Violation{Pointer: "/amount", Rule: "maximum"},
			judging.Basis{Assumed: "request_rules", Clauses: sale}},
		{"an item's cost past 2^63−1", "authorization_create",
			validate.Violation{Pointer: "/additional_purchase_data/item_data/3/cost_per_unit", Rule: "maximum"},
			judging.Basis{Assumed: "request_rules", Clauses: auth}},
		{"an order year past 9999: §2.13's four digits", "authorization_create",
			validate.Violation{Pointer: "/additional_purchase_data/order_date/year", Rule: "maximum"},
			says([]string{"2.13", "8"}, "order_date: day 1-31, month 1-12, year 4 digits")},
		{"a negative sale: the spec does not say not negative", "transfer_create",
			validate.Violation{Pointer: "/amount", Rule: "minimum"},
			judging.Basis{Assumed: "request_rules", Clauses: sale}},
		{"an item's quantity of 0: §8 greater than 0", "transfer_create",
			validate.Violation{Pointer: "/additional_purchase_data/item_data/4/quantity", Rule: "exclusiveMinimum"},
			says([]string{"2.13", "8"}, "item_data.quantity: greater than 0")},
		{"a sale without merchant: §4.2 requires it", "transfer_create",
			validate.Violation{Pointer: "/merchant", Rule: "required"},
			says([]string{"4.2"}, "body table: source, merchant, amount, currency: required yes")},
		{"an authorization with both merchant names: not both is not stated", "authorization_create",
			validate.Violation{Pointer: "/merchant_identity", Rule: "false"},
			judging.Basis{Assumed: "request_rules", Clauses: auth}},
		{"an authorization's merchant not a Merchant id: which value the example's name takes is open", "authorization_create",
			validate.Violation{Pointer: "/merchant", Rule: "pattern"},
			judging.Basis{Assumed: "authorization_merchant_field", Clauses: auth}},
		{"an authorization naming no merchant: §4.1 yes", "authorization_create",
			validate.Violation{Pointer: "/merchant_identity", Rule: "required"},
			says([]string{"4.1"}, "body table: merchant_identity required yes (the example names it merchant)")},
		{"an authorization's empty processor: non-empty is not stated", "authorization_create",
			validate.Violation{Pointer: "/processor", Rule: "minLength"},
			judging.Basis{Assumed: "request_rules", Clauses: auth}},
		{"an authorization's tag of a number: §2.1 string pairs", "authorization_create",
			validate.Violation{Pointer: "/tags/k", Rule: "type"},
			says([]string{"2.1"}, "tags: string key/value pairs")},
		{"a sale's tag of a number: only an object there", "transfer_create",
			validate.Violation{Pointer: "/tags/k", Rule: "type"},
			judging.Basis{Assumed: "request_rules", Clauses: sale}},
		{"a card's empty postal code: §8 gives only a maximum", "payment_instrument_create",
			validate.Violation{Pointer: "/address/postal_code", Rule: "minLength"},
			judging.Basis{Assumed: "request_rules", Clauses: []string{"4.3", "8"}}},
		{"a card number with a letter: digits only", "payment_instrument_create",
			validate.Violation{Pointer: "/number", Rule: "pattern"},
			says([]string{"4.3"}, "number: primary account number, digits only")},
		{"a card number of 11 digits: the length is the reference's", "payment_instrument_create",
			validate.Violation{Pointer: "/number", Rule: "minLength"},
			judging.Basis{Assumed: "card_number_check", Clauses: []string{"4.3", "8"}}},
		{"an amount update with both places: not both is not stated", "subscription_amount_update",
			validate.Violation{Pointer: "/fee_amount_data/amount", Rule: "false"},
			judging.Basis{Assumed: "request_rules", Clauses: []string{"4.5"}}},
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
		"subscription_enrollment_create additionalProperties": `{"merchant":"MU1","color":"red"}`,
		"subscription_enrollment_create type":                 `{"merchant":"MU1","tags":{"k":1}}`,
		"authorization_create additionalProperties":           `{"color":"red"}`,
		"authorization_create maximum":                        `{"amount":` + past + `}`,
		"authorization_create minimum":                        `{"amount":-1}`,
		"authorization_create minLength":                      `{"processor":""}`,
		"authorization_create false":                          `{"merchant":"MU1","merchant_identity":"ID1"}`,
		"authorization_create pattern":                        `{"merchant":"ID1"}`,
		"authorization_capture additionalProperties":          `{"capture_amount":1,"color":"red"}`,
		"authorization_capture maximum":                       `{"capture_amount":` + past + `,"fee":` + past + `}`,
		"authorization_capture minimum":                       `{"capture_amount":-1}`,
		"transfer_create additionalProperties":                `{"additional_purchase_data":{"color":"red"}}`,
		"transfer_create maximum":                             `{"fee":` + past + `,"additional_purchase_data":{"item_data":[{"cost_per_unit":` + past + `}]}}`,
		"transfer_create minimum":                             `{"fee":-1}`,
		"transfer_create minLength":                           `{"idempotency_id":""}`,
		"transfer_create type":                                `{"tags":{"k":true}}`,
		"payment_instrument_create additionalProperties":      `{"address":{"postal_code":"1","color":"red"}}`,
		"payment_instrument_create minLength":                 `{"number":"4111","name":""}`,
		"payment_instrument_create maxLength":                 `{"number":"41111111111111111111"}`,
		"payment_instrument_create type":                      `{"tags":{"k":null}}`,
		"merchant_update additionalProperties":                `{"color":"red"}`,
		"subscription_amount_update additionalProperties":     `{"fee_amount_data":{"color":"red"}}`,
		"subscription_amount_update maximum":                  `{"fee_amount_data":{"amount":` + past + `}}`,
		"subscription_amount_update minLength":                `{"nickname":""}`,
		"subscription_amount_update false":                    `{"amount":5,"fee_amount_data":{"amount":5}}`,
		"subscription_amount_update type":                     `{"tags":{"k":[]}}`,
		"webhook_create additionalProperties":                 `{"url":"http://x","enabled_events":[{"entity":"file","color":1}]}`,
		"webhook_create minLength":                            `{"url":"http://x","authentication":{"type":""}}`,
		"webhook_create required":                             `{"url":"http://x","authentication":{"type":"BASIC"}}`,
		"webhook_create type":                                 `{"url":"http://x","tags":{"k":{}}}`,
		"webhook_update additionalProperties":                 `{"color":"red"}`,
		"webhook_update minLength":                            `{"enabled_events":[{"entity":""}]}`,
		"webhook_update required":                             `{"enabled_events":[{}]}`,
		"webhook_update type":                                 `{"tags":{"k":2}}`,
		"subscription_schedule_create additionalProperties":   `{"color":"red"}`,
		"subscription_amount_create additionalProperties":     `{"fee_amount_data":{"color":"red"}}`,
		"balance_transfer_create additionalProperties":        `{"color":"red"}`,
	}
	keys := map[string]bool{}
	for name, row := range j.Table().Schemas {
		for _, r := range row.AssumedRules {
			keys[name+" "+r.Rule] = true
			body, ok := bodies[name+" "+r.Rule]
			if !assert.True(t, ok, "no body here breaks %s of %s", r, name) {
				continue
			}
			err := j.Validator().Validate(name, []byte(body))
			var ve *validate.Error
			require.ErrorAs(t, err, &ve, "%s of %s", r, name)
			found := 0
			for _, vi := range ve.Violations {
				if vi.Rule != r.Rule || !slices.ContainsFunc(r.Pointers, func(p string) bool { return judging.PointerMatches(p, vi.Pointer) }) {
					continue
				}
				found++
				b, _ := j.RequestBodyBasis(name, vi)
				assert.Equal(t, r.Assumed, b.Assumed, "%s of %s: %+v", r, name, vi)
			}
			assert.Positive(t, found, "%s of %s: violations %+v", r, name, ve.Violations)
		}
	}
	assert.Len(t, bodies, len(keys), "bodies of rules no longer in judging.json")

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
