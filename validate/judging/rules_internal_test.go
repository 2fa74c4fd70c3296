package judging

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/conform-kit/conform/validate"
)

// TestStaleAssumedRulesAreRefused: a rule whose pointer or keyword its
// schema does not hold (a schema edited under it), whose profile key is
// unknown, or on a schema assumed as a whole, fails New with an error
// naming it; the table's own rules pass.
func TestStaleAssumedRulesAreRefused(t *testing.T) {
	v, err := validate.New()
	require.NoError(t, err)
	j, err := New(v)
	require.NoError(t, err)
	why := "the spec does not say"
	rule := func(schema, ptr, kw string) map[string]SchemaRow {
		rows := j.table.clone().Schemas
		row := rows[schema]
		row.AssumedRules = []AssumedRule{{Pointers: []string{ptr}, Rule: kw, Assumed: "reference_rules", Why: why}}
		rows[schema] = row
		return rows
	}
	tests := []struct {
		name  string
		rows  map[string]SchemaRow
		wants string // "" passes
	}{
		{"the table's rules", j.table.clone().Schemas, ""},
		{"required, listed", rule("subscription_enrollment_create", "/merchant", "required"), ""},
		{"required of a nested object through $ref", rule("payment_instrument_create", "/address/postal_code", "required"), ""},
		{"a bound through $ref", rule("transfer_create", "/amount", "maximum"), ""},
		{"a bound of any item", rule("transfer_create", "/additional_purchase_data/item_data/*/quantity", "exclusiveMinimum"), ""},
		{"closed object, any member", rule("subscription_enrollment_update", "/*", "additionalProperties"), ""},
		{"a branch of allOf/then", rule("webhook_create", "/authentication/basic", "required"), ""},
		{"required, not listed", rule("subscription_enrollment_create", "/nickname", "required"),
			"assumed rule required at /nickname: the schema has no required at /nickname"},
		{"a field the schema lacks", rule("subscription_enrollment_create", "/merchant_id", "pattern"),
			"assumed rule pattern at /merchant_id: the schema has no pattern at /merchant_id"},
		{"a keyword the field lacks", rule("subscription_enrollment_create", "/nickname", "maxLength"),
			"assumed rule maxLength at /nickname"},
		{"an open object", rule("subscription_enrollment_create", "/tags/x", "additionalProperties"),
			"assumed rule additionalProperties at /tags/x"},
		{"not a pointer", rule("subscription_enrollment_create", "merchant", "required"),
			`"merchant" is no JSON pointer`},
		{"one of several pointers stale", func() map[string]SchemaRow {
			rows := rule("transfer_create", "/amount", "maximum")
			row := rows["transfer_create"]
			row.AssumedRules[0].Pointers = append(row.AssumedRules[0].Pointers, "/fee", "/currency")
			rows["transfer_create"] = row
			return rows
		}(), "assumed rule maximum at /amount, /fee, /currency: the schema has no maximum at /currency"},
		{"no pointer", func() map[string]SchemaRow {
			rows := rule("transfer_create", "/amount", "maximum")
			rows["transfer_create"].AssumedRules[0].Pointers = nil
			return rows
		}(), "want JSON pointers, a keyword and why"},
		{"a schema assumed as a whole", rule("file_create", "/type", "enum"),
			"the schema is assumed as a whole (file_payloads)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := checkAssumedRules(v, tt.rows)
			if tt.wants == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.wants)
		})
	}
	t.Run("unknown profile key", func(t *testing.T) {
		data, err := json.Marshal(patchedTable(t, j, AssumedRule{Pointers: []string{"/merchant"}, Rule: "required", Assumed: "luck", Why: why}))
		require.NoError(t, err)
		_, err = newTable(data, v.Schemas(), v.Operations())
		require.Error(t, err)
		assert.Contains(t, err.Error(), `schema subscription_enrollment_create: assumed rule required at /merchant: unknown profile key "luck"`)
	})
}

// patchedTable is the judging table with r as the enrollment create's only
// assumed rule.
func patchedTable(t *testing.T, j *Judge, r AssumedRule) Table {
	t.Helper()
	tb := j.table.clone()
	row := tb.Schemas["subscription_enrollment_create"]
	row.AssumedRules = []AssumedRule{r}
	tb.Schemas["subscription_enrollment_create"] = row
	return tb
}
