package openapi

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// decode reads JSON as Document does (numbers stay json.Number).
func decode(t *testing.T, s string) any {
	t.Helper()
	var v any
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	require.NoError(t, dec.Decode(&v), "test JSON %s", s)
	return v
}

// canonical re-encodes JSON so that two documents compare as values.
func canonical(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

func TestPlain(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"a lone $ref stays", `{"$ref":"#/a"}`, `{"$ref":"#/a"}`},
		{"siblings move beside allOf", `{"$ref":"#/a","required":["x"]}`, `{"allOf":[{"$ref":"#/a"}],"required":["x"]}`},
		{"an allOf there keeps its members after the $ref", `{"$ref":"#/a","allOf":[{"required":["y"]}],"title":"t"}`,
			`{"allOf":[{"$ref":"#/a"},{"required":["y"]}],"title":"t"}`},
		{"nested in properties, items and anyOf", `{"properties":{"p":{"$ref":"#/a","title":"p"}},"items":{"$ref":"#/b","minLength":1},"anyOf":[{"$ref":"#/c","required":["z"]}]}`,
			`{"anyOf":[{"allOf":[{"$ref":"#/c"}],"required":["z"]}],"items":{"allOf":[{"$ref":"#/b"}],"minLength":1},"properties":{"p":{"allOf":[{"$ref":"#/a"}],"title":"p"}}}`},
		{"false property is not-anything", `{"properties":{"number":false,"x":true}}`, `{"properties":{"number":{"not":{}},"x":{}}}`},
		{"additionalProperties keeps its boolean", `{"additionalProperties":false,"items":false}`, `{"additionalProperties":false,"items":{"not":{}}}`},
		{"an array gets items", `{"type":"array","maxItems":3}`, `{"type":"array","maxItems":3,"items":{}}`},
		{"an array with prefixItems keeps them alone", `{"type":"array","prefixItems":[{}]}`, `{"type":"array","prefixItems":[{}]}`},
		{"a $ref named as a property is a property", `{"properties":{"$ref":{"type":"string"}}}`, `{"properties":{"$ref":{"type":"string"}}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.JSONEq(t, tt.want, canonical(t, plain(decode(t, tt.in))), tt.name)
		})
	}
}

// refsWithSiblings lists the JSON pointers of every object in doc that has
// a $ref and another key, wherever it stands.
func refsWithSiblings(node any, at string) []string {
	var found []string
	switch x := node.(type) {
	case map[string]any:
		if _, ok := x["$ref"]; ok && len(x) > 1 {
			found = append(found, at)
		}
		for k, v := range x {
			found = append(found, refsWithSiblings(v, at+"/"+strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1"))...)
		}
	case []any:
		for i, v := range x {
			found = append(found, refsWithSiblings(v, at+"/"+jsonInt(i))...)
		}
	}
	return found
}

func jsonInt(n int) string { b, _ := json.Marshal(n); return string(b) }

func TestRefsWithSiblingsFindsThem(t *testing.T) {
	doc := decode(t, `{"a":{"$ref":"#/x"},"b":[{"c":{"$ref":"#/y","title":"t"}}]}`)
	assert.Equal(t, []string{"/b/0/c"}, refsWithSiblings(doc, ""), "the one $ref with a sibling")
}
