package judging

import (
	"encoding/json"
	"io/fs"
	"strings"
	"testing"

	"github.com/conform-kit/conform/schemas"
	"github.com/conform-kit/conform/validate"
)

// TestNewJudgingRefusesChecksWithoutBasis breaks the embedded tables one way
// at a time: each must be refused with a message naming the culprit.
func TestNewJudgingRefusesChecksWithoutBasis(t *testing.T) {
	v, err := validate.New()
	if err != nil {
		t.Fatal(err)
	}
	data, err := fs.ReadFile(schemas.FS, judgingFile)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		edit  func(j map[string]any, ops []validate.Operation) []validate.Operation
		wants string
	}{
		{"operation without clause", func(_ map[string]any, ops []validate.Operation) []validate.Operation {
			ops[0].Clauses = nil
			return ops
		}, "operation authorizations.create: normative, but names no spec section"},
		{"operation with unknown clause", func(_ map[string]any, ops []validate.Operation) []validate.Operation {
			ops[0].Clauses = []string{"12.3"}
			return ops
		}, `unknown spec section "12.3"`},
		{"operation assumed under unknown key", func(_ map[string]any, ops []validate.Operation) []validate.Operation {
			ops[0].Assumed = "nope"
			return ops
		}, `unknown profile key "nope"`},
		{"refusal without clause", func(j map[string]any, ops []validate.Operation) []validate.Operation {
			r := j["refusals"].(map[string]any)["forbidden"].(map[string]any)
			delete(r, "clauses")
			return ops
		}, "refusal forbidden: normative, but names no spec section"},
		{"refusal with 2xx", func(j map[string]any, ops []validate.Operation) []validate.Operation {
			j["refusals"].(map[string]any)["forbidden"].(map[string]any)["status"] = 200
			return ops
		}, "refusal forbidden: want a 4xx"},
		{"schema without basis", func(j map[string]any, ops []validate.Operation) []validate.Operation {
			delete(j["schemas"].(map[string]any), "transfer")
			return ops
		}, "schema transfer has no basis"},
		{"schema without clause", func(j map[string]any, ops []validate.Operation) []validate.Operation {
			j["schemas"].(map[string]any)["transfer"] = map[string]any{}
			return ops
		}, "schema transfer: normative, but names no spec section"},
		{"unknown invariant", func(j map[string]any, ops []validate.Operation) []validate.Operation {
			j["refusals"].(map[string]any)["not_found"].(map[string]any)["invariants"] = []any{"luck"}
			return ops
		}, `unknown invariant "luck"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var j map[string]any
			if err := json.Unmarshal(data, &j); err != nil {
				t.Fatal(err)
			}
			ops := v.Operations()
			ops = tt.edit(j, ops)
			broken, _ := json.Marshal(j)
			_, err := newTable(broken, v.Schemas(), ops)
			if err == nil || !strings.Contains(err.Error(), tt.wants) {
				t.Errorf("newJudging = %v, want an error containing %q", err, tt.wants)
			}
		})
	}
}
