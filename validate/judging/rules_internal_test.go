package judging

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
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
		{"closed object, any member", rule("subscription_enrollment_create", "/*", "additionalProperties"), ""},
		{"a false schema under dependentSchemas", rule("authorization_create", "/merchant_identity", "false"), ""},
		{"a false schema deeper", rule("subscription_amount_update", "/fee_amount_data/amount", "false"), ""},
		{"false where the field may be present", rule("authorization_create", "/merchant", "false"),
			"assumed rule false at /merchant: the schema has no false at /merchant"},
		{"a schema assumed as a whole, a rule under another key", rule("subscription_enrollment_update", "/*", "additionalProperties"), ""},
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
		{"a schema assumed as a whole, a rule under its own key", func() map[string]SchemaRow {
			rows := rule("file_create", "/type", "enum")
			rows["file_create"].AssumedRules[0].Assumed = "file_payloads"
			return rows
		}(), "the schema is assumed as a whole under file_payloads already"},
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

// TestEveryRequestKeywordHasItsBasis: explore draws a value at and past
// every keyword of every request schema, so every keyword of a normative
// request schema (a bound, a pattern, a format, a required field, a closed
// object, a field that may not be present) is either stated (a stated
// rule with the spec's words) or assumed (an assumed rule with its profile
// key): none is judged normative by the row alone. A keyword added to a
// schema without either fails here, naming its pointer. The types of the
// fields are the body tables' columns, so type keywords are the row's
// (but for tags, whose values §2.1 states for authorizations only, which
// the rules name).
func TestEveryRequestKeywordHasItsBasis(t *testing.T) {
	v, err := validate.New()
	require.NoError(t, err)
	j, err := New(v)
	require.NoError(t, err)
	sr := &schemaReader{v: v, docs: map[string]any{}}
	checked := 0
	for _, op := range v.Operations() {
		row, ok := j.table.Schemas[op.Request]
		if !op.HasJSONBody() || !ok || !row.Normative() {
			continue
		}
		root, _ := sr.doc(op.Request).(map[string]any)
		for _, k := range requestKeywords(sr, node{file: op.Request, m: root}, "", 0) {
			checked++
			vi := validate.Violation{Pointer: k.ptr, Rule: k.rule}
			stated := slices.ContainsFunc(row.StatedRules, func(r StatedRule) bool { return r.matches(vi) })
			assumed := slices.ContainsFunc(row.AssumedRules, func(r AssumedRule) bool { return r.matches(vi) })
			assert.True(t, stated || assumed, "%s (%s): %s at %s is neither a stated nor an assumed rule of judging.json",
				op.Request, op.ID, k.rule, k.ptr)
			assert.False(t, stated && assumed, "%s: %s at %s is both stated and assumed", op.Request, k.rule, k.ptr)
		}
	}
	assert.Greater(t, checked, 150, "keywords of the normative request schemas")
}

type keywordAt struct{ ptr, rule string }

// requestKeywords lists the keywords a violation can name in the schema n
// at pointer ptr ("*" for any item or member), through $ref, allOf, anyOf,
// oneOf, then, else and dependentSchemas.
func requestKeywords(sr *schemaReader, n node, ptr string, depth int) []keywordAt {
	if depth > 32 {
		return nil
	}
	var out []keywordAt
	for _, e := range sr.expand([]node{n}) {
		m := e.m
		for _, kw := range []string{"minLength", "maxLength", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
			"pattern", "format", "const", "enum", "minItems", "maxItems", "minProperties", "maxProperties"} {
			if _, ok := m[kw]; ok {
				out = append(out, keywordAt{ptr, kw})
			}
		}
		if m["additionalProperties"] == false {
			out = append(out, keywordAt{ptr + "/*", "additionalProperties"})
		}
		req, _ := m["required"].([]any)
		for _, f := range req {
			out = append(out, keywordAt{ptr + "/" + f.(string), "required"})
		}
		props, _ := m["properties"].(map[string]any)
		for _, name := range slices.Sorted(maps.Keys(props)) {
			switch p := props[name].(type) {
			case bool:
				if !p {
					out = append(out, keywordAt{ptr + "/" + name, "false"})
				}
			case map[string]any:
				out = append(out, requestKeywords(sr, node{file: e.file, m: p}, ptr+"/"+name, depth+1)...)
			}
		}
		if items, ok := m["items"].(map[string]any); ok {
			out = append(out, requestKeywords(sr, node{file: e.file, m: items}, ptr+"/*", depth+1)...)
		}
		if extra, ok := m["additionalProperties"].(map[string]any); ok {
			if t, _ := extra["type"].(string); t == "string" && ptr == "/tags" {
				out = append(out, keywordAt{ptr + "/*", "type"})
			}
			out = append(out, requestKeywords(sr, node{file: e.file, m: extra}, ptr+"/*", depth+1)...)
		}
	}
	slices.SortFunc(out, func(a, b keywordAt) int { return strings.Compare(a.ptr+" "+a.rule, b.ptr+" "+b.rule) })
	return slices.Compact(out)
}
