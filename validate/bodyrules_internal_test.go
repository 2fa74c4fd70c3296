package validate

import (
	"encoding/json"
	"errors"
	"io/fs"
	"slices"
	"testing"
	"testing/fstest"

	"github.com/conform-kit/conform/schemas"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// contractFS is the embedded contract with operations.json and
// judging.json changed by edit (decoded, edited, encoded again).
func contractFS(t *testing.T, edit func(ops []any, judging map[string]any)) fs.FS {
	t.Helper()
	out := fstest.MapFS{}
	entries, err := fs.ReadDir(schemas.FS, ".")
	require.NoError(t, err)
	for _, e := range entries {
		if e.IsDir() {
			continue // overlays New does not read
		}
		data, err := fs.ReadFile(schemas.FS, e.Name())
		require.NoError(t, err)
		out[e.Name()] = &fstest.MapFile{Data: data}
	}
	var opsDoc, judging map[string]any
	require.NoError(t, json.Unmarshal(out[operationsFile].Data, &opsDoc))
	require.NoError(t, json.Unmarshal(out[judgingFile].Data, &judging))
	edit(opsDoc["operations"].([]any), judging)
	for name, doc := range map[string]any{operationsFile: opsDoc, judgingFile: judging} {
		data, err := json.Marshal(doc)
		require.NoError(t, err)
		out[name] = &fstest.MapFile{Data: data}
	}
	return out
}

// setBodyRules sets the body_rules of an operation of the decoded table.
func setBodyRules(t *testing.T, ops []any, id string, rules ...string) {
	t.Helper()
	for _, o := range ops {
		if op := o.(map[string]any); op["id"] == id {
			if rules == nil {
				delete(op, "body_rules")
			} else {
				op["body_rules"] = rules
			}
			return
		}
	}
	t.Fatalf("no operation %s", id)
}

// Bodies at the rules' edges: each breaks one rule.
const (
	saleFeeOver   = `{"source":"PI0123456789abcdefghijkl","merchant":"MU0123456789abcdefghijkl","currency":"USD","amount":1000,"fee":1001}`
	saleTaxed     = `{"source":"PI0123456789abcdefghijkl","merchant":"MU0123456789abcdefghijkl","currency":"USD","amount":1000,"additional_purchase_data":{` + purchaseHead + `,"tax_exempt":true,"sales_tax":5}}`
	captureTaxed  = `{"capture_amount":10,"additional_purchase_data":{"tax_exempt":true,"sales_tax":5}}`
	authorization = `{"source":"PI0123456789abcdefghijkl","merchant_identity":"ID0123456789abcdefghijkl","currency":"USD","amount":1000,"additional_purchase_data":{` + purchaseHead + `,"tax_exempt":true,"sales_tax":5}}`
)

// TestBodyRulesComeFromTheData: which operations apply a rule is what
// operations.json lists, and its clauses are what judging.json says: a
// table of edits to the data changes the verdicts and the table, and New
// refuses a rule one of the three places lacks.
func TestBodyRulesComeFromTheData(t *testing.T) {
	type verdict struct {
		op, body string
		rule     string // the rule broken; "" for a pass
	}
	tests := []struct {
		name     string
		edit     func(t *testing.T, ops []any, judging map[string]any)
		wantErr  string
		verdicts []verdict
		table    map[string][]string // rule → its operations
	}{
		{
			name: "as embedded",
			edit: func(*testing.T, []any, map[string]any) {},
			verdicts: []verdict{
				{"transfers.create", saleFeeOver, RuleFeeMax},
				{"transfers.create", saleTaxed, RuleTaxExempt},
				{"authorizations.create", authorization, RuleTaxExempt},
				{"authorizations.capture", captureTaxed, RuleTaxExempt},
			},
			table: map[string][]string{
				RuleFeeMax:    {"transfers.create"},
				RuleTaxExempt: {"authorizations.create", "authorizations.capture", "transfers.create"},
			},
		},
		{
			name: "a sale without the fee rule",
			edit: func(t *testing.T, ops []any, _ map[string]any) {
				setBodyRules(t, ops, "transfers.create", RuleTaxExempt)
			},
			verdicts: []verdict{
				{"transfers.create", saleFeeOver, ""},
				{"transfers.create", saleTaxed, RuleTaxExempt},
			},
			table: map[string][]string{RuleFeeMax: nil},
		},
		{
			name: "a capture without the tax rule",
			edit: func(t *testing.T, ops []any, _ map[string]any) {
				setBodyRules(t, ops, "authorizations.capture")
			},
			verdicts: []verdict{
				{"authorizations.capture", captureTaxed, ""},
				{"authorizations.create", authorization, RuleTaxExempt},
			},
			table: map[string][]string{RuleTaxExempt: {"authorizations.create", "transfers.create"}},
		},
		{
			name: "no operation lists a rule",
			edit: func(t *testing.T, ops []any, _ map[string]any) {
				for _, id := range []string{"transfers.create", "authorizations.create", "authorizations.capture"} {
					setBodyRules(t, ops, id)
				}
			},
			verdicts: []verdict{
				{"transfers.create", saleFeeOver, ""},
				{"transfers.create", saleTaxed, ""},
				{"authorizations.capture", captureTaxed, ""},
			},
			table: map[string][]string{RuleFeeMax: nil, RuleTaxExempt: nil},
		},
		{
			name: "an operation names an unknown rule",
			edit: func(t *testing.T, ops []any, _ map[string]any) {
				setBodyRules(t, ops, "transfers.create", "fee_min")
			},
			wantErr: `unknown body rule "fee_min"`,
		},
		{
			name: "an operation without a JSON body names a rule",
			edit: func(t *testing.T, ops []any, _ map[string]any) {
				setBodyRules(t, ops, "transfers.get", RuleFeeMax)
			},
			wantErr: "operation transfers.get has body rules but no JSON body",
		},
		{
			name: "judging.json does not state a rule",
			edit: func(_ *testing.T, _ []any, judging map[string]any) {
				delete(judging["body_rules"].(map[string]any), RuleFeeMax)
			},
			wantErr: "body rule fee_max has no clauses or words",
		},
		{
			name: "judging.json states a rule no code judges",
			edit: func(_ *testing.T, _ []any, judging map[string]any) {
				judging["body_rules"].(map[string]any)["fee_min"] = map[string]any{"clauses": []string{"4.2"}, "says": "x"}
			},
			wantErr: "body rule fee_min has no judge",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := newValidator(contractFS(t, func(ops []any, judging map[string]any) { tt.edit(t, ops, judging) }))
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			for _, vd := range tt.verdicts {
				err := v.RequestBody(vd.op, []byte(vd.body))
				i := v.tab.byID[vd.op]
				decoded := v.decodedRuleViolations(v.rules[i], []byte(vd.body))
				if vd.rule == "" {
					assert.NoError(t, err, "%s %s", vd.op, vd.body)
					assert.Empty(t, decoded, "%s %s: the decoded check", vd.op, vd.body)
					continue
				}
				var verr *Error
				require.True(t, errors.As(err, &verr), "%s %s: %v", vd.op, vd.body, err)
				require.Len(t, verr.Violations, 1, "%s %s", vd.op, vd.body)
				assert.Equal(t, vd.rule, verr.Violations[0].Rule, "%s %s", vd.op, vd.body)
				assert.Equal(t, verr.Violations, decoded, "%s %s: the decoded check", vd.op, vd.body)
			}
			got := map[string][]string{}
			for _, r := range v.BodyRuleTable() {
				got[r.Name] = r.Operations
				assert.NotEmpty(t, r.Clauses, r.Name)
				assert.NotEmpty(t, r.Says, r.Name)
			}
			for rule, ops := range tt.table {
				slices.Sort(ops)
				slices.Sort(got[rule])
				assert.Equal(t, ops, got[rule], rule)
			}
		})
	}
}

// TestBodyRuleClausesComeFromJudging: the clauses and words of a rule are
// judging.json's, and the table's Reads are the pointers the pass gathers.
func TestBodyRuleClausesComeFromJudging(t *testing.T) {
	v, err := newValidator(contractFS(t, func(_ []any, judging map[string]any) {
		judging["body_rules"].(map[string]any)[RuleTaxExempt] = map[string]any{"clauses": []string{"2.13", "4.1"}, "says": "changed"}
	}))
	require.NoError(t, err)
	table := v.BodyRuleTable()
	i := slices.IndexFunc(table, func(r BodyRule) bool { return r.Name == RuleTaxExempt })
	require.GreaterOrEqual(t, i, 0)
	assert.Equal(t, []string{"2.13", "4.1"}, table[i].Clauses)
	assert.Equal(t, "changed", table[i].Says)
	assert.Equal(t, []string{"/additional_purchase_data/tax_exempt", "/additional_purchase_data/sales_tax"}, table[i].Reads)
	// The copy is the caller's.
	table[i].Clauses[0] = "9"
	assert.Equal(t, "2.13", v.BodyRuleTable()[i].Clauses[0])
	// Every operation the embedded data lists gathers its rules in the pass.
	embedded, err := New()
	require.NoError(t, err)
	for i, rs := range embedded.rules {
		if rs != nil {
			assert.True(t, rs.inPass, embedded.tab.ops[i].ID)
		}
	}
}
