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
	"github.com/conform-kit/conform/validate/internal/jsondoc"
	"github.com/santhosh-tekuri/jsonschema/v5"
)

// baseURL is the fixed base under which every embedded schema is registered;
// relative $refs between files resolve against it and nothing is fetched.
const baseURL = "https://conform.schemas/"

// operationsFile is the operations table; it is not a schema.
const operationsFile = "operations.json"

// judgingFile is the kit's table of how it judges (package judging reads
// it whole); the library reads only the status of each refusal code.
const judgingFile = "judging.json"

var (
	// ErrUnknownSchema is returned for a schema name that is not embedded.
	ErrUnknownSchema = errors.New("validate: unknown schema")
	// ErrUnknownOperation is returned for an operation id not in the table.
	ErrUnknownOperation = errors.New("validate: unknown operation")
	// ErrMalformed means the body is not JSON, carries trailing data, or has
	// the wrong JSON type at the top level (rendered as 400 BAD_REQUEST).
	ErrMalformed = errors.New("validate: malformed body")
)

// Validator validates documents against the compiled contract. New builds it
// whole, the wording of every failure that does not depend on the value
// included (fastcompile.go); it never changes after, and is safe for
// concurrent use.
type Validator struct {
	compiled map[string]*jsonschema.Schema
	raw      map[string][]byte
	docs     map[string]any // decoded schema documents by URL, for structured error details
	objects  map[string]bool
	fast     map[string]*fnode // the pass's programs; nil entry: none for that schema
	names    []string
	keys     map[string]string // every property name, shared by decoded documents
	requests map[string]bool   // schemas named as an operation's request body
	tab      table
	statuses map[string]int      // error code → status, from the refusals table of judging.json
	checks   []exchangeChecks    // by operation index
	progs    map[string]*program // by schema name
	bodies   []*program          // by operation index: its JSON request body's, nil when none
	rules    []*ruleSet          // by operation index: the body rules Middleware applies; nil: none
	// bodyRules is the table of body rules (bodyrules.go).
	bodyRules []bodyRule
}

// program is everything Validate needs of one schema, found with one lookup.
type program struct {
	name   string
	schema *jsonschema.Schema
	fast   *fnode // nil: jsonschema validates the schema alone
	object bool   // the schema is an object schema
}

var defaultValidator = sync.OnceValues(New)

// Default returns a Validator built by New on first use and shared afterwards.
func Default() (*Validator, error) { return defaultValidator() }

// New compiles every embedded schema (format assertions on) and loads the
// operations table. It fails if a schema does not compile, a $ref does not
// resolve, or an operation names a schema that does not exist.
func New() (*Validator, error) { return newValidator(schemas.FS) }

// newValidator is New reading the contract from fsys.
func newValidator(fsys fs.FS) (*Validator, error) {
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
	opsData, judgingData, err := v.readContract(fsys, c)
	if err != nil {
		return nil, err
	}
	fc, err := v.compileSchemas(c)
	if err != nil {
		return nil, err
	}
	if err := v.loadOperations(opsData, judgingData); err != nil {
		return nil, err
	}
	if err := v.buildExchangeChecks(c, fc); err != nil {
		return nil, fmt.Errorf("validate: compiling path id schemas: %w", err)
	}
	return v, nil
}

// readContract reads every schema of fsys, decoded and handed to c, and
// returns the operations table and judging.json, which are no schemas.
func (v *Validator) readContract(fsys fs.FS, c *jsonschema.Compiler) (opsData, judgingData []byte, err error) {
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, nil, fmt.Errorf("validate: reading embedded schemas: %w", err)
	}
	for _, e := range entries {
		file := e.Name()
		if e.IsDir() || !strings.HasSuffix(file, ".json") {
			continue
		}
		data, err := fs.ReadFile(fsys, file)
		if err != nil {
			return nil, nil, fmt.Errorf("validate: reading %s: %w", file, err)
		}
		switch file {
		case operationsFile:
			opsData = data
			continue
		case judgingFile:
			judgingData = data
			continue
		}
		doc, err := decode(data)
		if err != nil {
			return nil, nil, fmt.Errorf("validate: schema %s: %w", file, err)
		}
		if err := c.AddResource(baseURL+file, bytes.NewReader(data)); err != nil {
			return nil, nil, fmt.Errorf("validate: adding schema %s: %w", file, err)
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
	v.keys = propertyNames(v.docs)
	if opsData == nil {
		return nil, nil, fmt.Errorf("validate: %s is not embedded", operationsFile)
	}
	return opsData, judgingData, nil
}

// compileSchemas compiles every schema twice: with jsonschema, and into
// the pass's program (nil for a schema it leaves to jsonschema alone).
func (v *Validator) compileSchemas(c *jsonschema.Compiler) (*fastCompiler, error) {
	for _, name := range v.names {
		s, err := c.Compile(baseURL + name + ".json")
		if err != nil {
			return nil, fmt.Errorf("validate: compiling schema %s: %w", name, err)
		}
		v.compiled[name] = s
	}
	fc := &fastCompiler{docs: v.docs, done: make(map[string]*fnode), visiting: make(map[string]bool)}
	v.fast = make(map[string]*fnode, len(v.names))
	v.progs = make(map[string]*program, len(v.names))
	for _, name := range v.names {
		v.fast[name] = fc.compile(baseURL+name+".json", "")
		v.progs[name] = &program{name: name, schema: v.compiled[name], fast: v.fast[name], object: v.objects[name]}
	}
	for _, n := range fc.done {
		if n != nil && len(n.required) > 0 {
			if alts := v.alternatives(n.loc + "/required"); len(alts) > 1 {
				n.reqAltMsg = strings.Join(alts, " or ") + " is required"
			}
		}
	}
	return fc, nil
}

// loadOperations reads the operations table and judging.json: each
// operation's request program and body rules, the refusals' statuses.
func (v *Validator) loadOperations(opsData, judgingData []byte) error {
	t, err := newTable(opsData, func(name string) bool { _, ok := v.compiled[name]; return ok })
	if err != nil {
		return err
	}
	v.tab = t
	var ruleRows judgingRules
	if v.statuses, ruleRows, err = readJudging(judgingData); err != nil {
		return err
	}
	v.requests = make(map[string]bool)
	v.bodies = make([]*program, len(t.ops))
	for i, op := range t.ops {
		if op.HasJSONBody() {
			v.requests[op.Request] = true
			v.bodies[i] = v.progs[op.Request]
		}
	}
	v.bodyRules, v.rules, err = compileBodyRules(t, ruleRows, v.bodies)
	return err
}

// readJudging reads what the library takes of judging.json: the refusals
// table, as the status each kind of refusal is answered with by the code
// the reference sends for it (its first code; Error.Status renders with
// it), and the body rules' clauses.
func readJudging(data []byte) (map[string]int, judgingRules, error) {
	if data == nil {
		return nil, nil, fmt.Errorf("validate: %s is not embedded", judgingFile)
	}
	var table struct {
		Refusals map[string]struct {
			Status int      `json:"status"`
			Codes  []string `json:"codes"`
		} `json:"refusals"`
		BodyRules judgingRules `json:"body_rules"`
	}
	if err := json.Unmarshal(data, &table); err != nil {
		return nil, nil, fmt.Errorf("validate: parsing %s: %w", judgingFile, err)
	}
	out := make(map[string]int, len(table.Refusals))
	for kind, r := range table.Refusals {
		if len(r.Codes) == 0 {
			return nil, nil, fmt.Errorf("validate: %s: refusal %s has no code", judgingFile, kind)
		}
		out[r.Codes[0]] = r.Status
	}
	return out, table.BodyRules, nil
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

// Validate validates doc against the named schema. It returns nil, an
// *Error listing the violations (at most MaxViolations; Omitted counts the
// rest), or an error wrapping ErrMalformed or ErrUnknownSchema. The
// document is read once, as bytes, without decoding it (pass.go).
func (v *Validator) Validate(schema string, doc []byte) error {
	pr, ok := v.progs[schema]
	if !ok {
		return fmt.Errorf("%w %q", ErrUnknownSchema, schema)
	}
	return v.validate(pr, doc)
}

func (v *Validator) validate(pr *program, doc []byte) error {
	_, err := v.check(pr, doc, nil)
	return err
}

// check validates doc as validate does and, when it passed and rs names an
// operation, judges the body rules of rs (BodyRules) in the same pass: it
// returns their violations (none: nil) with a nil error. A body the pass
// cannot judge the rules of (passrules.go) is judged on the decoded body
// (decodedRuleViolations), with the same judges.
func (v *Validator) check(pr *program, doc []byte, rs *ruleSet) ([]Violation, error) {
	n := pr.fast
	if n == nil {
		val, err := decodeKeys(doc, v.keys)
		if err != nil {
			return nil, err
		}
		if err := v.validateTree(pr.name, pr.schema, val); err != nil {
			return nil, err
		}
		return v.decodedRuleViolations(rs, doc), nil
	}
	p := getPass(doc)
	defer p.release()
	if pr.object {
		// A document of another type is refused at its first byte.
		if k := p.kindAt(p.ws(0)); k != tObject && k != 0 {
			return nil, &malformedError{public: "body must be a JSON object, got " + kindName(k)}
		}
	}
	p.gather(rs)
	if p.run(n) {
		if rs == nil {
			return nil, nil
		}
		if p.facts.on {
			return p.ruleViolations(rs), nil
		}
		return v.decodedRuleViolations(rs, doc), nil
	}
	if err := collect(p, n); err != nil {
		return nil, err
	}
	// Valid after all: a later duplicate name overrides the member the
	// first run failed on, and the first run gathered nothing complete.
	return v.decodedRuleViolations(rs, doc), nil
}

// collect runs the pass again over a body the first run did not pass,
// collecting its violations; nil when it finds none (see check).
func collect(p *pass, n *fnode) error {
	if p.syntaxBad {
		return p.malformed()
	}
	// Run again, collecting: it reads the whole body (the first run stops
	// at the first failure, a syntax error may lie beyond it), evaluates
	// every keyword, and may meet an oversized number the first did not.
	p.reset()
	p.collect = true
	p.run(n)
	if p.syntaxBad {
		return p.malformed()
	}
	if p.oversized {
		p.reset()
		p.collect = true
		var vs []Violation
		p.sizes(p.ws(0), &vs)
		slices.SortStableFunc(vs, func(a, b Violation) int { return strings.Compare(a.Pointer, b.Pointer) })
		return &Error{Code: CodeInvalidField, Violations: vs, Omitted: p.omitted}
	}
	e := p.violations()
	if len(e.Violations) == 0 {
		// The first run stopped at a member a later duplicate name
		// overrides (the decoder keeps the last); the second found none.
		return nil
	}
	return e
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
			return &malformedError{public: "body must be a JSON object, got " + jsonType(doc)}
		}
	}
	if v.fast[schema] != nil {
		if data, err := json.Marshal(doc); err == nil {
			return v.Validate(schema, data)
		}
	}
	return v.validateTree(schema, s, doc)
}

// validateTree has jsonschema validate a decoded document: for a schema
// without a program.
func (v *Validator) validateTree(schema string, s *jsonschema.Schema, doc any) error {
	if v.objects[schema] {
		if _, ok := doc.(map[string]any); !ok {
			return &malformedError{public: "body must be a JSON object, got " + jsonType(doc)}
		}
	}
	// The schema library must not see numbers it cannot afford.
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

// Request validates body against the request schema of the operation,
// and nothing else: the business rules that need only the body (BodyRules)
// are not applied, so a sale whose fee is over its amount passes. Use
// RequestBody for the verdict Middleware gives the same body. It returns nil
// for operations without a JSON body ("", multipart, binary). The body is
// read once, as bytes, and nothing is decoded.
func (v *Validator) Request(operationID string, body []byte) error {
	pr, err := v.requestProgram(operationID)
	if err != nil || pr == nil {
		return err
	}
	return v.validate(pr, body)
}

// RequestBody judges a request body as Middleware does by default: against
// the operation's request schema and, once it passed, the business rules
// that need only the body (BodyRules: a sale's fee at most its amount, no
// sales_tax on a tax-exempt Level 2/3 purchase of a sale, an authorization
// or a capture), judged in the same pass over the bytes. It returns nil, an
// *Error (Where request) with the violations the middleware answers 422
// with, or an error wrapping ErrMalformed (the middleware's 400) or
// ErrUnknownOperation; nil for operations without a JSON body. One body
// gets one verdict, whether it comes through RequestBody (conform validate
// --request) or through the middleware.
func (v *Validator) RequestBody(operationID string, body []byte) error {
	i, ok := v.tab.byID[operationID]
	if !ok {
		return fmt.Errorf("%w %q", ErrUnknownOperation, operationID)
	}
	pr := v.bodies[i]
	if pr == nil {
		return nil
	}
	vs, err := v.check(pr, body, v.rules[i])
	var verr *Error
	switch {
	case errors.As(err, &verr):
		e := newRequestError(verr.Code, operationID, verr.Violations)
		e.Omitted = verr.Omitted
		return e
	case err != nil:
		return err
	case len(vs) > 0:
		return newRequestError(CodeInvalidField, operationID, vs)
	}
	return nil
}

// requestProgram is the program of an operation's request schema, nil
// when it takes no JSON body.
func (v *Validator) requestProgram(operationID string) (*program, error) {
	i, ok := v.tab.byID[operationID]
	if !ok {
		return nil, fmt.Errorf("%w %q", ErrUnknownOperation, operationID)
	}
	return v.bodies[i], nil
}

// DecodeRequest is Request that also hands back the document (maps,
// slices, json.Number, strings, bools and nil, as json.Decoder with
// UseNumber builds them), so a service builds its own types from the tree
// instead of parsing the body a second time. The body is checked first,
// without a tree, and decoded only once it passed: the document is returned
// only with a nil error, and is nil for operations without a JSON body. It
// belongs to the caller, which may keep or change it.
func (v *Validator) DecodeRequest(operationID string, body []byte) (any, error) {
	pr, err := v.requestProgram(operationID)
	if err != nil || pr == nil {
		return nil, err
	}
	if err := v.validate(pr, body); err != nil {
		return nil, err
	}
	return decodeKeys(body, v.keys)
}

// Decode decodes a JSON document into the tree DecodeRequest hands back
// (maps, slices, json.Number, strings, bools and nil), without validating
// it: for a body Request already passed, decoded only when and where it is
// needed. An error wraps ErrMalformed, or is an *Error with the one
// RuleDepth violation of a document nested deeper than MaxDepth.
func (v *Validator) Decode(doc []byte) (any, error) {
	return decodeKeys(doc, v.keys)
}

// Resource validates body against the resource schema called name (a
// response document such as "transfer" or "error"). A request schema is
// refused with an error wrapping ErrUnknownSchema: use Request for those.
func (v *Validator) Resource(name string, body []byte) error {
	if v.requests[name] {
		return fmt.Errorf("%w %q: it is a request schema, validate it with Request", ErrUnknownSchema, name)
	}
	return v.Validate(name, body)
}

// malformedError is a body that is not JSON, carries trailing data, or is
// not a JSON object. errors.Is(err, ErrMalformed) holds; public is the
// message a client may read.
type malformedError struct {
	public string
	err    error // the decoder's error, if any
}

func (e *malformedError) Error() string        { return "validate: malformed body: " + e.public }
func (e *malformedError) Is(target error) bool { return target == ErrMalformed }
func (e *malformedError) Unwrap() error        { return e.err }

// publicMessage returns the client-facing text of a malformed-body error.
func publicMessage(err error) string {
	var me *malformedError
	if errors.As(err, &me) {
		return me.public
	}
	return strings.TrimPrefix(err.Error(), ErrMalformed.Error()+": ")
}

// decode parses one JSON value with UseNumber and rejects trailing data.
func decode(data []byte) (any, error) { return decodeKeys(data, nil) }

// decodeKeys is decode taking known object keys from keys (see
// fastDecodeKeys).
func decodeKeys(data []byte, keys map[string]string) (any, error) {
	if val, ok := fastDecodeKeys(data, keys); ok {
		return val, nil
	}
	// Nested deeper than MaxDepth (fastDecode stops there too), refused
	// as the pass refuses it, before encoding/json decodes 10,000 levels.
	if err := depthCheck(data); err != nil {
		return nil, err
	}
	return slowDecode(data)
}

// propertyNames collects the property names of every schema, the keys a
// valid document holds, each as one string the decoder hands out again.
// Names a JSON string writes other than as they are (quotes, backslashes,
// control characters) are left out: the decoder matches raw bytes.
func propertyNames(docs map[string]any) map[string]string {
	keys := map[string]string{}
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			if props, ok := x["properties"].(map[string]any); ok {
				for k := range props {
					if !strings.ContainsAny(k, "\\\"") && strings.IndexFunc(k, func(r rune) bool { return r < 0x20 }) < 0 {
						keys[k] = k
					}
				}
			}
			for _, c := range x {
				walk(c)
			}
		case []any:
			for _, c := range x {
				walk(c)
			}
		}
	}
	for _, doc := range docs {
		walk(doc)
	}
	return keys
}

// slowDecode is decode with encoding/json alone: the reference for
// fastDecode, and the reporter of syntax errors.
func slowDecode(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var val any
	if err := dec.Decode(&val); err != nil {
		return nil, &malformedError{public: syntaxMessage(err), err: err}
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, &malformedError{public: "body carries data after the JSON value"}
	}
	return val, nil
}

// syntaxError words the syntax error of data, which the pass found not to
// be JSON, as slowDecode does, without building a tree.
func syntaxError(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		return &malformedError{public: syntaxMessage(err), err: err}
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return &malformedError{public: "body carries data after the JSON value"}
	}
	return &malformedError{public: "body is not valid JSON"}
}

// syntaxMessage words a decoding error for a client.
func syntaxMessage(err error) string {
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se):
		return fmt.Sprintf("body is not valid JSON: %s (at byte %d)", se.Error(), se.Offset)
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "body is not valid JSON: it ends before the value does"
	}
	return "body is not valid JSON"
}

func jsonType(v any) string { return jsondoc.Type(v) }
