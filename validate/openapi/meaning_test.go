package openapi

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/conform-kit/conform/validate"
)

func export(t *testing.T, spec Spec) []byte {
	t.Helper()
	v, err := validate.New()
	require.NoError(t, err, "validate.New")
	doc, err := Document(v, "Payments Service API", "test", spec)
	require.NoError(t, err, "Document %s", spec)
	return doc
}

func TestExportHasNoRefBesideKeywords(t *testing.T) {
	for _, spec := range Specs() {
		t.Run(string(spec), func(t *testing.T) {
			var doc any
			require.NoError(t, json.Unmarshal(export(t, spec), &doc))
			assert.Empty(t, refsWithSiblings(doc, ""), "%s: objects with a $ref and other keywords", spec)
		})
	}
}

func TestUnknownSpec(t *testing.T) {
	v, err := validate.New()
	require.NoError(t, err)
	_, err = Document(v, "t", "v", "2.0")
	var unknown *UnknownSpecError
	require.ErrorAs(t, err, &unknown, "version 2.0")
	assert.Equal(t, Spec("2.0"), unknown.Spec)
}

// TestExport30MatchesMetaSchema validates the 3.0 document against the
// OpenAPI 3.0 meta-schema (testdata/oas30-schema.json, as shipped by
// libopenapi) and checks that the contract lost nothing on the way.
func TestExport30MatchesMetaSchema(t *testing.T) {
	doc := export(t, OAS30)
	meta, err := os.ReadFile("testdata/oas30-schema.json")
	require.NoError(t, err)
	const metaURL = "https://spec.openapis.org/oas/3.0/schema/2021-09-28"
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft4
	require.NoError(t, c.AddResource(metaURL, bytes.NewReader(meta)))
	s, err := c.Compile(metaURL)
	require.NoError(t, err)
	inst := decode(t, string(doc))
	assert.NoError(t, s.Validate(inst), "the 3.0 document breaks the OpenAPI 3.0 meta-schema")

	assert.Equal(t, "3.0.3", inst.(map[string]any)["openapi"], "openapi field")
	for _, word := range []string{DroppedExtension, `"$comment"`, `"const"`, `"jsonSchemaDialect"`, `"examples"`, `"if"`, `"dependentSchemas"`} {
		assert.NotContains(t, string(doc), word, "the 3.0 document of the contract")
	}
	assert.Contains(t, string(doc), "9223372036854775807", "a bound lost its exact integer form")
}

// TestExportsKeepTheContract validates every instance of validate's
// corpus (../testdata/<schema>/{valid,invalid}/*.json) against its
// component in both documents: the 3.1 one as JSON Schema 2020-12, the 3.0
// one as JSON Schema draft 4 with nullable read as OpenAPI 3.0.3 says (it
// adds null to the type beside it, and does nothing without one). Each
// verdict must be the corpus's.
func TestExportsKeepTheContract(t *testing.T) {
	files, err := filepath.Glob("../testdata/*/*/*.json")
	require.NoError(t, err)
	require.NotEmpty(t, files, "the corpus of package validate")

	compile := map[Spec]func(name string) (*jsonschema.Schema, error){}
	{
		c := jsonschema.NewCompiler()
		c.Draft = jsonschema.Draft2020
		require.NoError(t, c.AddResource("https://conform.test/31.json", bytes.NewReader(export(t, OAS31))))
		compile[OAS31] = func(name string) (*jsonschema.Schema, error) {
			return c.Compile("https://conform.test/31.json#/components/schemas/" + name)
		}
	}
	{
		var doc map[string]any
		require.NoError(t, json.Unmarshal(export(t, OAS30), &doc))
		eachSchema(doc, asDraft4)
		b, err := json.Marshal(doc)
		require.NoError(t, err)
		c := jsonschema.NewCompiler()
		c.Draft = jsonschema.Draft4
		require.NoError(t, c.AddResource("https://conform.test/30.json", bytes.NewReader(b)))
		compile[OAS30] = func(name string) (*jsonschema.Schema, error) {
			return c.Compile("https://conform.test/30.json#/components/schemas/" + name)
		}
	}
	checked := 0
	for _, file := range files {
		parts := strings.Split(filepath.ToSlash(file), "/")
		name, kind := parts[len(parts)-3], parts[len(parts)-2]
		if kind != "valid" && kind != "invalid" {
			continue
		}
		raw, err := os.ReadFile(file)
		require.NoError(t, err)
		inst := decode(t, string(raw))
		for _, spec := range Specs() {
			s, err := compile[spec](name)
			require.NoError(t, err, "%s: component %s", spec, name)
			err = s.Validate(inst)
			assert.Equal(t, kind == "valid", err == nil, "%s: %s/%s/%s: %v", spec, name, kind, filepath.Base(file), err)
		}
		checked++
	}
	assert.Greater(t, checked, 100, "instances checked")
}

// asDraft4 reads a 3.0 schema as JSON Schema draft 4: nullable beside a
// type adds null to it; nullable without a type, and the annotations draft
// 4 has not (format is left out on both sides), go.
func asDraft4(s any) any {
	m, ok := s.(map[string]any)
	if !ok {
		return s
	}
	eachSubschema(m, asDraft4)
	if m["nullable"] == true {
		if t, ok := m["type"].(string); ok {
			m["type"] = []any{t, "null"}
		}
	}
	for k := range m {
		if k == "nullable" || k == "format" || k == "example" || strings.HasPrefix(k, "x-") {
			delete(m, k)
		}
	}
	return m
}
