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
// happens; the enrollment's rule is there.
func TestAssumedRulesAreViolationsOfTheirSchema(t *testing.T) {
	j := newJudge(t)
	bodies := map[string]string{ // a body breaking each rule
		"subscription_enrollment_create required at /merchant":      `{"nickname":"n"}`,
		"subscription_enrollment_update additionalProperties at /*": `{"merchant":"MU1"}`,
	}
	n := 0
	for name, row := range j.Table().Schemas {
		for _, r := range row.AssumedRules {
			n++
			body, ok := bodies[name+" "+r.String()]
			if !assert.True(t, ok, "no body here breaks %s of %s", r, name) {
				continue
			}
			err := j.Validator().Validate(name, []byte(body))
			var ve *validate.Error
			require.ErrorAs(t, err, &ve, "%s of %s", r, name)
			found := false
			for _, vi := range ve.Violations {
				b, _ := j.RequestBodyBasis(name, vi)
				if vi.Rule == r.Rule && b.Assumed == r.Assumed {
					found = true
				}
			}
			assert.True(t, found, "%s of %s: violations %+v", r, name, ve.Violations)
		}
	}
	assert.Len(t, bodies, n, "bodies of rules no longer in judging.json")
	assert.Equal(t, []judging.AssumedRule{{Pointer: "/merchant", Rule: "required", Assumed: "reference_rules",
		Why: j.AssumedRules("subscription_enrollment_create")[0].Why}}, j.AssumedRules("subscription_enrollment_create"))
}
