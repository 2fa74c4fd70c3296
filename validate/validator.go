package validate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strings"
	"sync"

	"github.com/conform-kit/conform/schemas"
	"github.com/santhosh-tekuri/jsonschema/v5"
)

// baseURL is the fixed base under which every embedded schema is registered;
// relative $refs between files resolve against it and nothing is fetched.
const baseURL = "https://conform.schemas/"

// operationsFile is the operations table; it is not a schema.
const operationsFile = "operations.json"

var (
	// ErrUnknownSchema is returned for a schema name that is not embedded.
	ErrUnknownSchema = errors.New("validate: unknown schema")
	// ErrUnknownOperation is returned for an operation id not in the table.
	ErrUnknownOperation = errors.New("validate: unknown operation")
	// ErrMalformed means the body is not JSON, carries trailing data, or has
	// the wrong JSON type at the top level (rendered as 400 BAD_REQUEST).
	ErrMalformed = errors.New("validate: malformed body")
)

// Validator validates documents against the compiled contract. It is
// immutable after New and safe for concurrent use.
type Validator struct {
	compiled map[string]*jsonschema.Schema
	raw      map[string][]byte
	docs     map[string]any // decoded schema documents by URL, for structured error details
	objects  map[string]bool
	fast     map[string]*fnode // nil entry: no fast path for that schema
	names    []string
	tab      table
	judging  Judging
	profile  Profile // the default profile, built from judging
	assumed  *assumedCache
}

var defaultValidator = sync.OnceValues(New)

// Default returns a Validator built by New on first use and shared afterwards.
func Default() (*Validator, error) { return defaultValidator() }

// New compiles every embedded schema (format assertions on) and loads the
// operations table. It fails if a schema does not compile, a $ref does not
// resolve, or an operation names a schema that does not exist.
func New() (*Validator, error) {
	entries, err := fs.ReadDir(schemas.FS, ".")
	if err != nil {
		return nil, fmt.Errorf("validate: reading embedded schemas: %w", err)
	}
	v := &Validator{
		compiled: make(map[string]*jsonschema.Schema),
		raw:      make(map[string][]byte),
		docs:     make(map[string]any),
		objects:  make(map[string]bool),
	}
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	c.AssertFormat = true
	c.LoadURL = func(u string) (io.ReadCloser, error) {
		return nil, fmt.Errorf("validate: %s is not an embedded schema", u)
	}
	var opsData, judgingData []byte
	for _, e := range entries {
		file := e.Name()
		if e.IsDir() || !strings.HasSuffix(file, ".json") {
			continue
		}
		data, err := fs.ReadFile(schemas.FS, file)
		if err != nil {
			return nil, fmt.Errorf("validate: reading %s: %w", file, err)
		}
		if file == operationsFile {
			opsData = data
			continue
		}
		if file == judgingFile {
			judgingData = data
			continue
		}
		doc, err := decode(data)
		if err != nil {
			return nil, fmt.Errorf("validate: schema %s: %w", file, err)
		}
		if err := c.AddResource(baseURL+file, bytes.NewReader(data)); err != nil {
			return nil, fmt.Errorf("validate: adding schema %s: %w", file, err)
		}
		name := strings.TrimSuffix(file, ".json")
		v.raw[name] = data
		v.docs[baseURL+file] = doc
		if m, ok := doc.(map[string]any); ok && m["type"] == "object" {
			v.objects[name] = true
		}
		v.names = append(v.names, name)
	}
	slices.Sort(v.names)
	for _, name := range v.names {
		s, err := c.Compile(baseURL + name + ".json")
		if err != nil {
			return nil, fmt.Errorf("validate: compiling schema %s: %w", name, err)
		}
		v.compiled[name] = s
	}
	fc := &fastCompiler{docs: v.docs, done: make(map[string]*fnode), visiting: make(map[string]bool)}
	v.fast = make(map[string]*fnode, len(v.names))
	for _, name := range v.names {
		v.fast[name] = fc.compile(baseURL+name+".json", "")
	}
	if opsData == nil {
		return nil, fmt.Errorf("validate: %s is not embedded", operationsFile)
	}
	t, err := newTable(opsData, func(name string) bool { _, ok := v.compiled[name]; return ok })
	if err != nil {
		return nil, err
	}
	v.tab = t
	if v.judging, err = newJudging(judgingData, v.names, t); err != nil {
		return nil, err
	}
	if v.profile, err = newDefaultProfile(v.judging, t); err != nil {
		return nil, err
	}
	if v.assumed, err = newAssumed(v); err != nil {
		return nil, err
	}
	return v, nil
}

// Schemas returns the sorted names of every schema (file names without .json).
func (v *Validator) Schemas() []string { return slices.Clone(v.names) }

// Schema returns the raw JSON of one schema.
func (v *Validator) Schema(name string) ([]byte, bool) {
	b, ok := v.raw[name]
	if !ok {
		return nil, false
	}
	return slices.Clone(b), true
}

// Validate decodes doc (numbers as json.Number) and validates it against the
// named schema. It returns nil, an *Error listing every violation, or an error
// wrapping ErrMalformed or ErrUnknownSchema.
func (v *Validator) Validate(schema string, doc []byte) error {
	if _, ok := v.compiled[schema]; !ok {
		return fmt.Errorf("%w %q", ErrUnknownSchema, schema)
	}
	val, err := decode(doc)
	if err != nil {
		return err
	}
	return v.ValidateValue(schema, val)
}

// ValidateValue validates a document already decoded with UseNumber (maps,
// slices, json.Number, strings, bools and nil) against the named schema.
func (v *Validator) ValidateValue(schema string, doc any) error {
	s, ok := v.compiled[schema]
	if !ok {
		return fmt.Errorf("%w %q", ErrUnknownSchema, schema)
	}
	if v.objects[schema] {
		if _, ok := doc.(map[string]any); !ok {
			return fmt.Errorf("%w: %s expects a JSON object, got %s", ErrMalformed, schema, jsonType(doc))
		}
	}
	if f := v.fast[schema]; f != nil && f.check(doc) == fastValid {
		return nil
	}
	// The fast path accepts only int64 numbers; anything else reaches the
	// schema library, which must not see numbers it cannot afford.
	if vs := oversizedNumbers(doc); len(vs) > 0 {
		return &Error{Code: CodeInvalidField, Violations: vs}
	}
	err := s.Validate(doc)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if errors.As(err, &ve) {
		return &Error{Code: CodeInvalidField, Violations: v.violations(doc, ve)}
	}
	return fmt.Errorf("validate: schema %s: %w", schema, err)
}

// Request validates body against the request schema of the operation. It
// returns nil for operations without a JSON body ("", multipart, binary).
func (v *Validator) Request(operationID string, body []byte) error {
	op, ok := v.Operation(operationID)
	if !ok {
		return fmt.Errorf("%w %q", ErrUnknownOperation, operationID)
	}
	if !op.HasJSONBody() {
		return nil
	}
	return v.Validate(op.Request, body)
}

// Resource validates body against the resource schema called name.
func (v *Validator) Resource(name string, body []byte) error {
	return v.Validate(name, body)
}

// decode parses one JSON value with UseNumber and rejects trailing data.
func decode(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var val any
	if err := dec.Decode(&val); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%w: trailing data after the JSON value", ErrMalformed)
	}
	return val, nil
}

func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case json.Number, float64:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}
