package validate

import (
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/conform-kit/conform/validate/internal/jsondoc"
	"github.com/conform-kit/conform/validate/internal/schemaerr"
	"github.com/santhosh-tekuri/jsonschema/v5"
)

// Error codes carried by *Error, as rendered in the error envelope.
const (
	// CodeInvalidField: a field breaks a schema or limit rule (422).
	CodeInvalidField = "INVALID_FIELD"
	// CodeUnprocessable: a state or business rule refuses the request (422).
	CodeUnprocessable = "UNPROCESSABLE_ENTITY"
	// CodeBadRequest: the body is not JSON or not a JSON object (400).
	CodeBadRequest = "BAD_REQUEST"
	// CodeNotFound: no operation has the path, or a path id cannot exist (404).
	CodeNotFound = "NOT_FOUND"
	// CodeMethodNotAllowed: the path is known, not with this method (405).
	CodeMethodNotAllowed = "METHOD_NOT_ALLOWED"
	// CodeNotAcceptable: the Content-Type or Accept header names no JSON type (406).
	CodeNotAcceptable = "NOT_ACCEPTABLE"
	// CodeTooLarge: the body is over MaxBodyBytes (413).
	CodeTooLarge = "REQUEST_TOO_LARGE"
	// CodeInvalidResponse: a response breaks the contract (Response, and
	// the middleware's response validation). Never rendered to a client.
	CodeInvalidResponse = "INVALID_RESPONSE"
)

// Where says which side of an exchange an *Error is about.
type Where string

// Sides of an exchange.
const (
	WhereDocument Where = ""         // a document checked on its own (Validate, the rule checks)
	WhereRequest  Where = "request"  // a request (Request, Middleware)
	WhereResponse Where = "response" // a response (Response, the middleware's response validation)
)

// Parts of a message a Violation points into (Violation.In).
const (
	InBody   = ""       // Pointer is a JSON pointer into the body
	InPath   = "path"   // Pointer names a path parameter
	InQuery  = "query"  // Pointer names a query parameter
	InHeader = "header" // Pointer names a header
	InStatus = "status" // the status code itself
)

// Error is the one error type for violations: of a schema, a business rule,
// a request's path, query or headers, or a response. Inspect it with
// errors.As; errors.Is(err, ErrMalformed) holds for CodeBadRequest.
type Error struct {
	Code       string      // one of the Code constants
	Where      Where       // request, response, or a document on its own
	Operation  string      // the operation id, when one is known
	Violations []Violation // every violation, sorted by In, then Pointer (at most MaxViolations for a body)
	Omitted    int         // violations found beyond MaxViolations and not listed
}

// Violation is one broken rule.
type Violation struct {
	Pointer string `json:"pointer"`      // JSON pointer to the offending field (for a missing required field, the field's own pointer), or the parameter or header name
	Rule    string `json:"rule"`         // the schema keyword ("maxLength", "required", ...) or the rule name ("capture_amount_max")
	Message string `json:"message"`      // plain text for the client, no Go prefixes
	In      string `json:"in,omitempty"` // InBody (""), InPath, InQuery, InHeader or InStatus
}

// Status is the HTTP status WriteError renders the error with: the status of
// the refusals-table row whose first code is the error's code (422 when no
// row names it), or 500 for an invalid response.
func (e *Error) Status() int {
	if e.Code == CodeInvalidResponse {
		return 500
	}
	if v, err := Default(); err == nil {
		if s, ok := v.statuses[e.Code]; ok {
			return s
		}
	}
	return 422
}

// Is makes errors.Is(err, ErrMalformed) true for a CodeBadRequest error.
func (e *Error) Is(target error) bool {
	return target == ErrMalformed && e.Code == CodeBadRequest
}

// Error lists every violation on one line, prefixed with "validate: ".
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("validate: ")
	if e.Where != WhereDocument {
		b.WriteString(string(e.Where))
		b.WriteByte(' ')
	}
	if e.Operation != "" {
		b.WriteString(e.Operation)
		b.WriteByte(' ')
	}
	b.WriteString(e.Code)
	for i, v := range e.Violations {
		if i == 0 {
			b.WriteString(": ")
		} else {
			b.WriteString("; ")
		}
		if v.In != InBody {
			b.WriteString(v.In)
			b.WriteByte(' ')
		}
		if v.Pointer == "" {
			b.WriteString("(document)")
		} else {
			b.WriteString(v.Pointer)
		}
		b.WriteString(": ")
		b.WriteString(v.Message)
	}
	if e.Omitted > 0 {
		b.WriteString("; and " + strconv.Itoa(e.Omitted) + " more")
	}
	return b.String()
}

// newError sorts and de-duplicates violations into an *Error.
func newError(code string, vs []Violation) *Error {
	slices.SortFunc(vs, func(a, b Violation) int { return compareViolations(&a, &b) })
	return &Error{Code: code, Violations: slices.Compact(vs)}
}

// compareViolations orders violations by In, Pointer, Rule, then Message.
func compareViolations(a, b *Violation) int {
	if c := strings.Compare(a.In, b.In); c != 0 {
		return c
	}
	if c := strings.Compare(a.Pointer, b.Pointer); c != 0 {
		return c
	}
	if c := strings.Compare(a.Rule, b.Rule); c != 0 {
		return c
	}
	return strings.Compare(a.Message, b.Message)
}

// violations turns the leaves of a jsonschema error tree into violations.
func (v *Validator) violations(doc any, ve *jsonschema.ValidationError) []Violation {
	var out []Violation
	types := map[string][]string{} // "type" leaves by instance pointer, merged into one violation
	for _, leaf := range schemaerr.Leaves(ve) {
		if ruleOf(leaf.KeywordLocation) == "type" {
			if names := typeNames(v.schemaAt(leaf.AbsoluteKeywordLocation)); len(names) > 0 {
				types[leaf.InstanceLocation] = append(types[leaf.InstanceLocation], names...)
				continue
			}
		}
		out = append(out, v.explain(doc, leaf)...)
	}
	for ptr, names := range types {
		slices.Sort(names)
		out = append(out, violation(ptr, "type", "expected %s, but got %s",
			strings.Join(slices.Compact(names), " or "), jsonType(instanceAt(doc, ptr))))
	}
	return newError(CodeInvalidField, out).Violations
}

// typeNames reads the value of a "type" keyword.
func typeNames(t any) []string {
	switch x := t.(type) {
	case string:
		return []string{x}
	case []any:
		var out []string
		for _, e := range x {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// explain turns one leaf into violations. "required" and
// "additionalProperties" become one violation per property, read from the
// schema and the instance rather than from the message text.
func (v *Validator) explain(doc any, leaf *jsonschema.ValidationError) []Violation {
	ptr := leaf.InstanceLocation
	rule := ruleOf(leaf.KeywordLocation)
	switch rule {
	case "required":
		names, _ := v.schemaAt(leaf.AbsoluteKeywordLocation).([]any)
		obj, _ := instanceAt(doc, ptr).(map[string]any)
		alts := v.alternatives(leaf.AbsoluteKeywordLocation)
		var out []Violation
		for _, n := range names {
			name, _ := n.(string)
			if _, ok := obj[name]; ok || name == "" {
				continue
			}
			msg := name + " is required"
			if len(alts) > 1 {
				msg = strings.Join(alts, " or ") + " is required"
			}
			out = append(out, Violation{Pointer: ptr + "/" + jsondoc.Escape(name), Rule: rule, Message: msg})
		}
		if len(out) > 0 {
			return out
		}
	case "additionalProperties":
		parent, _ := v.schemaAt(strings.TrimSuffix(leaf.AbsoluteKeywordLocation, "/additionalProperties")).(map[string]any)
		props, _ := parent["properties"].(map[string]any)
		obj, _ := instanceAt(doc, ptr).(map[string]any)
		var out []Violation
		for name := range obj {
			if _, ok := props[name]; !ok {
				out = append(out, Violation{Pointer: ptr + "/" + jsondoc.Escape(name), Rule: rule, Message: name + " is not a known field"})
			}
		}
		if len(out) > 0 {
			return out
		}
	case "false":
		return []Violation{{Pointer: ptr, Rule: rule, Message: "must not be present here"}}
	case "oneOf":
		return []Violation{{Pointer: ptr, Rule: rule, Message: "matches more than one of the accepted forms"}}
	case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf":
		if msg, ok := boundMessage(rule, v.schemaAt(leaf.AbsoluteKeywordLocation), instanceAt(doc, ptr)); ok {
			return []Violation{{Pointer: ptr, Rule: rule, Message: msg}}
		}
	}
	return []Violation{{Pointer: ptr, Rule: rule, Message: leaf.Message}}
}

// alternatives names the members required by the sibling branches when a
// "required" keyword sits directly in an anyOf/oneOf branch, so that
// {"anyOf": [{"required": ["a"]}, {"required": ["b"]}]} reads "a or b is
// required". It returns nil otherwise.
func (v *Validator) alternatives(requiredLoc string) []string {
	branch := strings.TrimSuffix(requiredLoc, "/required")
	group := branch[:strings.LastIndexByte(branch, '/')+1]
	group = strings.TrimSuffix(group, "/")
	if kw := schemaerr.LastSegment(group); kw != "anyOf" && kw != "oneOf" {
		return nil
	}
	branches, _ := v.schemaAt(group).([]any)
	var out []string
	for _, b := range branches {
		m, _ := b.(map[string]any)
		req, _ := m["required"].([]any)
		if len(m) != 1 || len(req) != 1 {
			return nil
		}
		name, _ := req[0].(string)
		out = append(out, name)
	}
	return out
}

// ruleOf names the failing keyword of a keyword location. A location ending
// in a property name (or an index) is a false schema: rule "false".
func ruleOf(loc string) string {
	segs := strings.Split(loc, "/")
	n := len(segs)
	last := segs[n-1]
	if last == "" {
		return "false"
	}
	if n >= 2 {
		switch segs[n-2] {
		case "properties", "patternProperties", "$defs", "dependentSchemas":
			return "false"
		}
	}
	if _, err := strconv.Atoi(last); err == nil {
		return "false"
	}
	return jsondoc.Unescape(last)
}

// schemaAt resolves an absolute keyword location (URL#pointer) in the
// decoded schema documents.
func (v *Validator) schemaAt(loc string) any {
	u, frag, _ := strings.Cut(loc, "#")
	doc, ok := v.docs[u]
	if !ok {
		return nil
	}
	if f, err := url.PathUnescape(frag); err == nil {
		frag = f
	}
	return instanceAt(doc, frag)
}

// violation is a small constructor for rule checks.
func violation(ptr, rule, format string, args ...any) Violation {
	return Violation{Pointer: ptr, Rule: rule, Message: fmt.Sprintf(format, args...)}
}

// boundMessage words a numeric bound with the numbers exactly as written in
// the schema and the document (the schema library prints them as floats,
// 9223372036854775807 as 9.223372036854776e+18).
func boundMessage(rule string, bound, value any) (string, bool) {
	b, ok1 := bound.(json.Number)
	n, ok2 := value.(json.Number)
	if !ok1 || !ok2 {
		return "", false
	}
	return boundText(rule, string(b), string(n)), true
}

// boundText is boundMessage on the texts of the bound and the number.
func boundText(rule, b, n string) string {
	var op string
	switch rule {
	case "minimum":
		op = ">="
	case "maximum":
		op = "<="
	case "exclusiveMinimum":
		op = ">"
	case "exclusiveMaximum":
		op = "<"
	default: // multipleOf
		return n + " not multipleOf " + b
	}
	return "must be " + op + " " + b + " but found " + n
}
