package openapi_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/conform-kit/conform/validate"
	"github.com/conform-kit/conform/validate/openapi"
)

func document(t *testing.T) []byte {
	t.Helper()
	v, err := validate.New()
	if err != nil {
		t.Fatal(err)
	}
	doc, err := openapi.Document(v, "Payments Service API", "test", openapi.OAS31)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// TestDocumentMatchesMetaSchema validates the document against the OpenAPI
// 3.1 meta-schema (testdata/oas31-schema.json, as shipped by libopenapi).
func TestDocumentMatchesMetaSchema(t *testing.T) {
	doc := document(t)
	meta, err := os.ReadFile("testdata/oas31-schema.json")
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	if err := c.AddResource("https://spec.openapis.org/oas/3.1/schema/2022-10-07", bytes.NewReader(meta)); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("https://spec.openapis.org/oas/3.1/schema/2022-10-07")
	if err != nil {
		t.Fatal(err)
	}
	var inst any
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	if err := dec.Decode(&inst); err != nil {
		t.Fatal(err)
	}
	if err := s.Validate(inst); err != nil {
		t.Fatalf("the document breaks the OpenAPI 3.1 meta-schema: %#v", err)
	}
	// The meta-schema does not judge the schemas themselves: each component
	// must compile as draft 2020-12, every $ref resolving inside the document.
	sc := jsonschema.NewCompiler()
	sc.Draft = jsonschema.Draft2020
	if err := sc.AddResource("https://conform.test/openapi.json", bytes.NewReader(doc)); err != nil {
		t.Fatal(err)
	}
	names, err := openapi.Names(doc)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		if _, err := sc.Compile("https://conform.test/openapi.json#/components/schemas/" + n); err != nil {
			t.Errorf("component %s: %v", n, err)
		}
	}
	if bytes.Contains(doc, []byte(`.json`)) && bytes.Contains(doc, []byte(`"$ref": "common.json`)) {
		t.Error("the document still refers to schema files")
	}
	if !bytes.Contains(doc, []byte("9223372036854775807")) && bytes.Contains(doc, []byte("e+18")) {
		t.Error("a bound lost its exact integer form")
	}
}

func TestDocumentCoversTheTable(t *testing.T) {
	doc := document(t)
	var d struct {
		Paths map[string]map[string]struct {
			OperationID string                     `json:"operationId"`
			Responses   map[string]json.RawMessage `json:"responses"`
			RequestBody *json.RawMessage           `json:"requestBody"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(doc, &d); err != nil {
		t.Fatal(err)
	}
	v, _ := validate.New()
	for _, op := range v.Operations() {
		got, ok := d.Paths[op.Path][strings.ToLower(op.Method)]
		if !ok || got.OperationID != op.ID {
			t.Errorf("%s %s: operationId %q, want %q", op.Method, op.Path, got.OperationID, op.ID)
			continue
		}
		if _, ok := got.Responses[strings.TrimSpace(jsonInt(op.Status))]; !ok {
			t.Errorf("%s: no %d response", op.ID, op.Status)
		}
		if _, ok := got.Responses["4XX"]; !ok {
			t.Errorf("%s: no 4XX error envelope", op.ID)
		}
		if op.HasJSONBody() != (got.RequestBody != nil) && op.Request != "multipart" && op.Request != "binary" {
			t.Errorf("%s: request body present %v, want %v", op.ID, got.RequestBody != nil, op.HasJSONBody())
		}
	}
}

func jsonInt(n int) string { b, _ := json.Marshal(n); return string(b) }

// TestLibOpenAPIValidatesRequests loads each document (3.1 and 3.0) with
// libopenapi and validates requests with libopenapi-validator,
// independently of package validate.
func TestLibOpenAPIValidatesRequests(t *testing.T) {
	for _, spec := range openapi.Specs() {
		t.Run(string(spec), func(t *testing.T) { libOpenAPIValidatesRequests(t, spec) })
	}
}

func libOpenAPIValidatesRequests(t *testing.T, spec openapi.Spec) {
	v, err := validate.New()
	if err != nil {
		t.Fatal(err)
	}
	raw, err := openapi.Document(v, "Payments Service API", "test", spec)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := libopenapi.NewDocument(raw)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := doc.BuildV3Model(); err != nil {
		t.Fatalf("libopenapi cannot build the model: %v", err)
	}
	val, errs := validator.NewValidator(doc)
	if len(errs) > 0 {
		t.Fatalf("libopenapi-validator: %v", errs)
	}
	if ok, verrs := val.ValidateDocument(); !ok {
		for _, e := range verrs {
			t.Errorf("document: %s: %s", e.Message, e.Reason)
		}
	}
	tests := []struct {
		name      string
		method    string
		path      string
		body      string
		wantValid bool
		wantIn    string // a word of one error's message or reason, when invalid
	}{
		{"valid sale", "POST", "/transfers", `{"source":"PI0123456789abcdefghijkl","merchant":"MU0123456789abcdefghijkl","amount":100,"currency":"USD"}`, true, ""},
		{"negative amount", "POST", "/transfers", `{"source":"PI0123456789abcdefghijkl","merchant":"MU0123456789abcdefghijkl","amount":-1,"currency":"USD"}`, false, "amount"},
		{"missing fields", "POST", "/transfers", `{"amount":1}`, false, "source"},
		{"unknown path", "GET", "/nope", "", false, "nope"},
		{"list with a bad limit", "GET", "/disputes?limit=1000", "", false, "limit"},
		{"list in bounds", "GET", "/disputes?limit=10", "", true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := httptest.NewRequest(tt.method, "https://api.example.com"+tt.path, strings.NewReader(tt.body))
			if tt.body != "" {
				req.Header.Set("Content-Type", "application/json")
			}
			req.SetBasicAuth("US0123456789abcdefghijkl", "secret")
			ok, verrs := val.ValidateHttpRequest(req)
			if ok != tt.wantValid {
				t.Fatalf("valid = %v, want %v; errors %v", ok, tt.wantValid, messages(verrs))
			}
			if !ok && !slices.ContainsFunc(messages(verrs), func(m string) bool { return strings.Contains(m, tt.wantIn) }) {
				t.Errorf("no error mentions %q: %v", tt.wantIn, messages(verrs))
			}
		})
	}
	_ = http.MethodGet
}

func messages[E interface{ Error() string }](errs []E) []string {
	var out []string
	for _, e := range errs {
		out = append(out, e.Error())
	}
	return out
}
