package judging

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/conform-kit/conform/validate"
)

// TestNoNormativeCheckRestsOnASilence walks every check the judging table
// gives a basis to (operations and their routes and methods, schemas as a
// whole, the keywords of request schemas, the values of resource fields,
// id prefixes) and fails when one whose subject a silence of the ledger
// governs is normative, or assumed under a key the silence does not name.
// The suite's and the proxy's own checks are held to the ledger in their
// packages (roles, list parameters).
func TestNoNormativeCheckRestsOnASilence(t *testing.T) {
	v, err := validate.New()
	require.NoError(t, err)
	j, err := New(v)
	require.NoError(t, err)
	sr := &schemaReader{v: v, docs: map[string]any{}}
	silences := j.Silences()
	require.GreaterOrEqual(t, len(silences), 30, "the spec's silences")
	defaults := j.DefaultProfile()
	subjects := 0
	for _, s := range silences {
		name := "§" + s.Clause + " " + s.Says
		under := func(b Basis) bool { return !b.Normative() && slices.Contains(s.Keys, b.Assumed) }
		g := s.Governs
		for _, id := range slices.Concat(g.Operations, g.Routes) {
			subjects++
			op, ok := v.Operation(id)
			require.True(t, ok, "%s: operation %s", name, id)
			b := OperationBasis(op)
			assert.True(t, under(b), "%s: operation %s is %s", name, id, b.Cites())
		}
		for _, id := range g.AlsoMethods {
			subjects++
			op, _ := v.Operation(id)
			assert.NotEmpty(t, op.AlsoMethods, "%s: %s answers no other method", name, id)
			assert.ElementsMatch(t, op.AlsoMethods, defaults.AlsoMethods[id], "%s: the default also_methods of %s", name, id)
		}
		for _, schema := range g.Schemas {
			subjects++
			b, ok := j.SchemaBasis(schema)
			require.True(t, ok, "%s: schema %s", name, schema)
			assert.True(t, under(b), "%s: schema %s is %s", name, schema, b.Cites())
		}
		for _, k := range g.Keywords {
			subjects++
			assert.True(t, sr.reaches(k.Schema, k.Pointer, k.Rule), "%s: %s has no %s at %s", name, k.Schema, k.Rule, k.Pointer)
			b, _ := j.RequestBodyBasis(k.Schema, validate.Violation{Pointer: k.Pointer, Rule: k.Rule})
			assert.True(t, under(b), "%s: %s at %s of %s is %s", name, k.Rule, k.Pointer, k.Schema, b.Cites())
		}
		for _, f := range g.OpenValues {
			subjects++
			b, _ := j.SchemaBasis(f.Schema)
			if !b.Normative() {
				continue
			}
			for _, kw := range []string{"enum", "const"} {
				assert.False(t, sr.reaches(f.Schema, f.Pointer, kw), "%s: the normative schema %s fixes %s by %s", name, f.Schema, f.Pointer, kw)
			}
		}
		for _, kind := range g.IDPrefixes {
			subjects++
			assert.True(t, under(j.table.IDPrefixes[kind].Basis), "%s: id prefix of %s", name, kind)
		}
		if g.RefusalForms {
			subjects++
			assert.Contains(t, s.Keys, "refusals", name)
			for kind := range j.table.Refusals {
				_, ok := defaults.Refusals[kind]
				assert.True(t, ok, "%s: the form of refusal %s is no profile choice", name, kind)
			}
		}
		if g.SuccessStatuses {
			subjects++
			assert.Subset(t, s.Keys, []string{"create_status", "success_status"}, name)
		}
	}
	assert.Greater(t, subjects, 60, "subjects the ledger governs")
}

// TestSilencesAreChecked: New refuses a silence naming an unknown key,
// operation or schema, or saying nothing.
func TestSilencesAreChecked(t *testing.T) {
	v, err := validate.New()
	require.NoError(t, err)
	j, err := New(v)
	require.NoError(t, err)
	keys := map[string]bool{}
	for _, k := range j.table.Profile {
		keys[k.Key] = true
	}
	var opIDs []string
	for _, op := range v.Operations() {
		opIDs = append(opIDs, op.ID)
	}
	for _, tt := range []struct {
		name  string
		edit  func(s *Silence)
		wants string
	}{
		{"the table's", func(*Silence) {}, ""},
		{"unknown key", func(s *Silence) { s.Keys = []string{"nope"} }, `unknown profile key "nope"`},
		{"unknown operation", func(s *Silence) { s.Governs.Operations = []string{"files.nope"} }, `unknown operation "files.nope"`},
		{"unknown schema", func(s *Silence) { s.Governs.Schemas = []string{"nope"} }, `unknown schema "nope"`},
		{"no words", func(s *Silence) { s.Says = " " }, "says no sentence"},
		{"unknown section", func(s *Silence) { s.Clause = "10" }, "unknown spec section"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tb := j.table.clone()
			tt.edit(&tb.Silences[0])
			err := checkSilences(tb, keys, v.Schemas(), opIDs)
			if tt.wants == "" {
				assert.NoError(t, err)
				return
			}
			assert.ErrorContains(t, err, tt.wants)
		})
	}
}
