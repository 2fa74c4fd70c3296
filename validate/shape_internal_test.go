package validate

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/conform-kit/conform/validate/internal/jsondoc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// shapeWalk compares a schema document with the Shape published for it,
// keyword by keyword, and counts the keywords it compared.
type shapeWalk struct {
	t       *testing.T
	v       *Validator
	seen    map[string]bool // locations compared
	keyword map[string]int  // keyword → times compared
	checks  map[string]func(w *shapeWalk, loc string, val any, s *Shape)
}

// keywordChecks says, for every keyword the validator asserts, where the
// Shape holds it: each compares the keyword's value in the schema (val)
// with the Shape of the subschema at loc (file#pointer), walking the
// subschemas it names.
func keywordChecks() map[string]func(w *shapeWalk, loc string, val any, s *Shape) {
	return map[string]func(w *shapeWalk, loc string, val any, s *Shape){
		"type": func(w *shapeWalk, loc string, val any, s *Shape) {
			assert.Equal(w.t, typeNames(val), s.Types, loc)
			if slices.Contains(typeNames(val), "null") {
				assert.True(w.t, s.Nullable, loc)
			}
		},
		"enum":  func(w *shapeWalk, loc string, val any, s *Shape) { assert.Equal(w.t, val, s.Enum, loc) },
		"const": func(w *shapeWalk, loc string, val any, s *Shape) { assert.Equal(w.t, []any{val}, s.Const, loc) },
		"minLength": func(w *shapeWalk, loc string, val any, s *Shape) {
			assert.Equal(w.t, string(val.(json.Number)), itoa(s.MinLength), loc)
		},
		"maxLength": func(w *shapeWalk, loc string, val any, s *Shape) {
			assert.Equal(w.t, string(val.(json.Number)), itoa(s.MaxLength), loc)
		},
		"minItems": func(w *shapeWalk, loc string, val any, s *Shape) {
			assert.Equal(w.t, string(val.(json.Number)), itoa(s.MinItems), loc)
		},
		"maxItems": func(w *shapeWalk, loc string, val any, s *Shape) {
			assert.Equal(w.t, string(val.(json.Number)), itoa(s.MaxItems), loc)
		},
		"pattern": func(w *shapeWalk, loc string, val any, s *Shape) { assert.Equal(w.t, val, s.Pattern, loc) },
		"format": func(w *shapeWalk, loc string, val any, s *Shape) {
			assert.Equal(w.t, val, s.Format, loc)
			_, known := ValidFormat(s.Format, "")
			assert.True(w.t, known, "%s: format %s", loc, s.Format)
		},
		"minimum":          func(w *shapeWalk, loc string, val any, s *Shape) { assert.Equal(w.t, val, s.Minimum, loc) },
		"maximum":          func(w *shapeWalk, loc string, val any, s *Shape) { assert.Equal(w.t, val, s.Maximum, loc) },
		"exclusiveMinimum": func(w *shapeWalk, loc string, val any, s *Shape) { assert.Equal(w.t, val, s.ExclusiveMinimum, loc) },
		"required": func(w *shapeWalk, loc string, val any, s *Shape) {
			var names []string
			for _, n := range val.([]any) {
				names = append(names, n.(string))
			}
			assert.Equal(w.t, names, s.Required, loc)
		},
		"properties": func(w *shapeWalk, loc string, val any, s *Shape) {
			props := val.(map[string]any)
			assert.Len(w.t, s.Properties, len(props), loc)
			for name, sub := range props {
				ps := s.Property(name)
				if assert.NotNil(w.t, ps, "%s: property %s", loc, name) {
					w.walk(loc+"/properties/"+jsondoc.Escape(name), sub, ps)
				}
			}
		},
		"additionalProperties": func(w *shapeWalk, loc string, val any, s *Shape) {
			assert.Equal(w.t, val == false, s.Closed, loc)
			if assert.NotNil(w.t, s.AdditionalProperties, loc) {
				w.walk(loc+"/additionalProperties", val, s.AdditionalProperties)
			}
		},
		"dependentSchemas": func(w *shapeWalk, loc string, val any, s *Shape) {
			deps := val.(map[string]any)
			require.Len(w.t, s.DependentSchemas, len(deps), loc)
			for _, d := range s.DependentSchemas {
				w.walk(loc+"/dependentSchemas/"+jsondoc.Escape(d.Name), deps[d.Name], d.Shape)
			}
		},
		"items": func(w *shapeWalk, loc string, val any, s *Shape) {
			if assert.NotNil(w.t, s.Items, loc) {
				w.walk(loc+"/items", val, s.Items)
			}
		},
		"$ref": func(w *shapeWalk, loc string, val any, s *Shape) {
			target := w.resolve(loc, val.(string))
			if assert.NotNil(w.t, s.Ref, "%s: $ref %s", loc, val) {
				w.walk(target, w.at(target), s.Ref)
			}
		},
		"allOf": func(w *shapeWalk, loc string, val any, s *Shape) { w.list(loc, "allOf", val, s.AllOf) },
		"anyOf": func(w *shapeWalk, loc string, val any, s *Shape) {
			w.list(loc, "anyOf", val, s.AnyOf)
			for _, a := range val.([]any) {
				if m, ok := a.(map[string]any); ok && m["type"] == "null" {
					assert.True(w.t, s.Nullable, "%s: a branch allows null alone", loc)
				}
			}
		},
		"if":   func(w *shapeWalk, loc string, val any, s *Shape) { w.sub(loc, "if", val, s.If) },
		"then": func(w *shapeWalk, loc string, val any, s *Shape) { w.sub(loc, "then", val, s.Then) },
		"else": func(w *shapeWalk, loc string, val any, s *Shape) { w.sub(loc, "else", val, s.Else) },
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// walk compares the schema raw at loc with s.
func (w *shapeWalk) walk(loc string, raw any, s *Shape) {
	w.t.Helper()
	if b, ok := raw.(bool); ok {
		assert.Equal(w.t, !b, s.Never, loc)
		return
	}
	m, ok := raw.(map[string]any)
	require.True(w.t, ok, "%s is not a schema", loc)
	if ref, ok := m["$ref"].(string); ok && onlyRef(m) {
		// Only a $ref: the Shape is its target's.
		target := w.resolve(loc, ref)
		assert.Equal(w.t, target, s.Location, "%s: $ref %s", loc, ref)
		w.walk(target, w.at(target), s)
		return
	}
	assert.Equal(w.t, loc, s.Location)
	if w.seen[loc] {
		return
	}
	w.seen[loc] = true
	for kw, val := range m {
		if annotation(kw) {
			continue
		}
		check, ok := w.checks[kw]
		if !assert.True(w.t, ok, "%s: keyword %s has no place in the Shape", loc, kw) {
			continue
		}
		w.keyword[kw]++
		check(w, loc, val, s)
	}
}

func (w *shapeWalk) sub(loc, kw string, raw any, s *Shape) {
	if assert.NotNil(w.t, s, "%s: %s", loc, kw) {
		w.walk(loc+"/"+kw, raw, s)
	}
}

func (w *shapeWalk) list(loc, kw string, raw any, shapes []*Shape) {
	items := raw.([]any)
	require.Len(w.t, shapes, len(items), "%s: %s", loc, kw)
	for i, it := range items {
		w.walk(loc+"/"+kw+"/"+itoa(i), it, shapes[i])
	}
}

// onlyRef reports whether a schema object holds nothing but a $ref and
// annotations.
func onlyRef(m map[string]any) bool {
	for kw := range m {
		if kw != "$ref" && !annotation(kw) {
			return false
		}
	}
	return true
}

// resolve is the location a $ref written at loc names.
func (w *shapeWalk) resolve(loc, ref string) string {
	file, _, _ := strings.Cut(loc, "#")
	target, frag, _ := strings.Cut(ref, "#")
	if target != "" {
		file = baseURL + target
	}
	return file + "#" + frag
}

// at is the schema at a location.
func (w *shapeWalk) at(loc string) any {
	file, ptr, _ := strings.Cut(loc, "#")
	doc, ok := w.v.docs[file]
	require.True(w.t, ok, "no schema %s", file)
	return instanceAt(doc, ptr)
}

// TestShapeOfEveryRequestSchemaIsComplete: every keyword of every request
// schema (and of the subschemas it reaches through $ref) appears in the
// Shape published for it, with its value; the resource schemas are walked
// too, and the walk must meet every kind of keyword the checks know, so a
// keyword a Shape dropped fails it.
func TestShapeOfEveryRequestSchemaIsComplete(t *testing.T) {
	v, err := New()
	require.NoError(t, err)
	tests := []struct {
		schema  string
		request bool
	}{}
	for _, name := range v.Schemas() {
		tests = append(tests, struct {
			schema  string
			request bool
		}{name, v.requests[name]})
	}
	requests := 0
	keyword, checks := map[string]int{}, keywordChecks()
	for _, tt := range tests {
		if tt.request {
			requests++
		}
		t.Run(tt.schema, func(t *testing.T) {
			s, err := v.Shape(tt.schema)
			require.NoError(t, err)
			loc := baseURL + tt.schema + ".json#"
			w := &shapeWalk{t: t, v: v, seen: map[string]bool{}, keyword: keyword, checks: checks}
			w.walk(loc, w.at(loc), s)
		})
	}
	assert.Equal(t, len(v.requests), requests, "every request schema is walked")
	for kw := range checks {
		assert.Positive(t, keyword[kw], "no schema has %s: the walk proves nothing about it", kw)
	}
	t.Logf("%d schemas (%d request schemas), keywords compared: %v", len(tests), requests, keyword)
}

// TestShapeOfEverySchema: every schema, resources too, has a Shape whose
// root is the schema file, and a name that is no schema is refused.
func TestShapeOfEverySchema(t *testing.T) {
	v, err := New()
	require.NoError(t, err)
	tests := []struct {
		name    string
		wantErr error
	}{
		{"transfer_create", nil},
		{"transfer", nil},
		{"error", nil},
		{"no_such_schema", ErrUnknownSchema},
	}
	for _, name := range v.Schemas() {
		tests = append(tests, struct {
			name    string
			wantErr error
		}{name, nil})
	}
	for _, tt := range tests {
		s, err := v.Shape(tt.name)
		if tt.wantErr != nil {
			assert.True(t, errors.Is(err, tt.wantErr), "%s: %v", tt.name, err)
			continue
		}
		require.NoError(t, err, tt.name)
		assert.True(t, s.Location == baseURL+tt.name+".json#" || strings.HasPrefix(s.Location, baseURL), "%s: %s", tt.name, s.Location)
	}
	// Built afresh: a change to one Shape is not seen by the next.
	a, err := v.Shape("transfer_create")
	require.NoError(t, err)
	a.Property("amount").Minimum = "-1"
	b, err := v.Shape("transfer_create")
	require.NoError(t, err)
	assert.NotEqual(t, json.Number("-1"), b.Property("amount").Minimum)
}

// TestShapeReadsAsTheContract: a few facts of the contract read through
// Shape, as explore reads them.
func TestShapeReadsAsTheContract(t *testing.T) {
	v, err := New()
	require.NoError(t, err)
	s, err := v.Shape("transfer_create")
	require.NoError(t, err)
	assert.Equal(t, []string{"object"}, s.Types)
	assert.True(t, s.Closed)
	for _, name := range []string{"source", "merchant", "amount", "currency"} {
		assert.True(t, s.IsRequired(name), name)
	}
	assert.False(t, s.IsRequired("fee"))
	purchase := s.Property("additional_purchase_data")
	require.NotNil(t, purchase)
	items := purchase.Property("item_data")
	require.NotNil(t, items)
	require.NotNil(t, items.Items)
	assert.Nil(t, s.Property("no_such_member"))
	tags := s.Property("tags")
	require.NotNil(t, tags)
	assert.NotNil(t, tags.AdditionalProperties, "tags is a map")
}

// TestValidFormat: the format check Shape.Format names, as the validator
// asserts it.
func TestValidFormat(t *testing.T) {
	tests := []struct {
		format, value string
		valid, known  bool
	}{
		{"date-time", "2026-11-29T00:00:00Z", true, true},
		{"date-time", "2026-11-29", false, true},
		{"uri", "https://example.com/hook", true, true},
		{"uri", "not a uri", false, true},
		{"uuid", "123e4567-e89b-12d3-a456-426614174000", true, true},
		{"uuid", "123e4567", false, true},
		{"no-such-format", "x", false, false},
	}
	for _, tt := range tests {
		valid, known := ValidFormat(tt.format, tt.value)
		assert.Equal(t, tt.valid, valid, "%s %q", tt.format, tt.value)
		assert.Equal(t, tt.known, known, "%s", tt.format)
	}
}
