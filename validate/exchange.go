package validate

import (
	"context"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// This file checks whole HTTP exchanges against the operations table: the
// route, path ids, query parameters and headers of a request, and the status,
// content type and body of a response.

// List query bounds (features/README.md, "Behaviour": default limit 20, at most 100).
const (
	maxListLimit  = 100
	maxListOffset = 1<<31 - 1
)

// Match is the operation a request was routed to, with its path parameters
// by name.
type Match struct {
	Operation Operation
	Params    map[string]string
}

type matchKey struct{}

// WithMatch returns a context carrying m; OperationFrom and MatchFrom read it.
func WithMatch(ctx context.Context, m Match) context.Context {
	return context.WithValue(ctx, matchKey{}, m)
}

// MatchFrom returns the operation and path parameters Middleware matched.
func MatchFrom(ctx context.Context) (Match, bool) {
	m, ok := ctx.Value(matchKey{}).(Match)
	return m, ok
}

// OperationFrom returns the operation Middleware matched the request to.
func OperationFrom(ctx context.Context) (Operation, bool) {
	m, ok := MatchFrom(ctx)
	return m.Operation, ok
}

// paramCheck validates one path parameter against the id schema of the
// resource its collection segment names.
type paramCheck struct {
	name   string
	fast   *fnode
	schema *jsonschema.Schema
}

// exchangeChecks are the checks of one operation beyond its body.
type exchangeChecks struct {
	params   []paramCheck
	list     bool            // offset, limit and sort apply
	sortable map[string]bool // fields of the listed resource
}

// buildExchangeChecks derives, per operation, the schema of each path id
// (the "id" property of the resource its collection names: {id} after
// /transfers is a transfer id) and the sortable fields of lists (the
// properties of the listed resource).
func (v *Validator) buildExchangeChecks(c *jsonschema.Compiler, fc *fastCompiler) error {
	v.checks = make([]exchangeChecks, len(v.tab.ops))
	for _, r := range v.tab.routes {
		var ec exchangeChecks
		for j, seg := range r.segments {
			name, ok := wildcard(seg)
			if !ok || j == 0 {
				continue
			}
			res := v.resourceOf(r.segments[j-1])
			if res == "" {
				continue
			}
			url := baseURL + res + ".json#/properties/id"
			s, err := c.Compile(url)
			if err != nil {
				return err
			}
			ec.params = append(ec.params, paramCheck{name: name, fast: fc.compile(baseURL+res+".json", "/properties/id"), schema: s})
		}
		op := v.tab.ops[r.op]
		if op.Method == http.MethodGet && strings.HasSuffix(op.Response, "_list") {
			ec.list = true
			ec.sortable = v.listedFields(op.Response)
		}
		v.checks[r.op] = ec
	}
	return nil
}

// resourceOf names the resource schema of a collection segment
// ("transfers" → "transfer"), or "" when none has an id property.
func (v *Validator) resourceOf(segment string) string {
	for _, name := range []string{strings.TrimSuffix(segment, "s"), segment} {
		doc, _ := v.docs[baseURL+name+".json"].(map[string]any)
		props, _ := doc["properties"].(map[string]any)
		if _, ok := props["id"]; ok && !v.requests[name] {
			return name
		}
	}
	return ""
}

// listedFields returns the top-level properties of the resource a list
// schema embeds (_embedded.<plural>.items.$ref).
func (v *Validator) listedFields(list string) map[string]bool {
	doc, _ := v.docs[baseURL+list+".json"].(map[string]any)
	props, _ := doc["properties"].(map[string]any)
	emb, _ := props["_embedded"].(map[string]any)
	embProps, _ := emb["properties"].(map[string]any)
	out := make(map[string]bool)
	for _, p := range embProps {
		items, _ := p.(map[string]any)["items"].(map[string]any)
		ref, _ := items["$ref"].(string)
		item, _ := v.docs[baseURL+ref].(map[string]any)
		itemProps, _ := item["properties"].(map[string]any)
		for f := range itemProps {
			out[f] = true
		}
	}
	return out
}

// HTTPRequest checks a request as Middleware does, with the body already
// read and path relative to the API's base path: the route (404 / 405), the
// path ids (404), the Accept header of operations answering JSON and the
// Content-Type of operations taking a body (406), the list parameters
// offset, limit and sort, and the body (400 / 422). It returns the match and
// nil, or an *Error (Where request) whose Code names the failure; the match
// is filled whenever the route is known.
func (v *Validator) HTTPRequest(r *http.Request, path string, body []byte) (Match, error) {
	return v.httpRequest(r, path, body, false)
}

// httpRequest is HTTPRequest; with rules, a request that passed every
// check has its body rules (BodyRules) judged in the pass that checked its
// body (passrules.go), refused as BodyRules refuses it.
func (v *Validator) httpRequest(r *http.Request, path string, body []byte, rules bool) (Match, error) {
	i, params, err := v.route(r.Method, path)
	if err != nil {
		code, msg := CodeNotFound, path+" was not found"
		if errors.Is(err, ErrMethodNotAllowed) {
			code, msg = CodeMethodNotAllowed, r.Method+" is not allowed on "+path
		}
		return Match{}, &Error{Code: code, Where: WhereRequest, Violations: []Violation{{Rule: "route", Message: msg, In: InPath}}}
	}
	op := v.tab.ops[i]
	m := Match{Operation: op.clone(), Params: params}
	fail := func(code string, vs ...Violation) (Match, error) {
		return m, newRequestError(code, op.ID, vs)
	}
	var notFound []Violation
	for _, pc := range v.checks[i].params {
		val := params[pc.name]
		ok := pc.fast != nil && pc.fast.stringOK(val)
		if !ok && pc.schema.Validate(val) != nil {
			notFound = append(notFound, Violation{Pointer: pc.name, Rule: "id", Message: val + " was not found", In: InPath})
		}
	}
	if len(notFound) > 0 {
		return fail(CodeNotFound, notFound...)
	}
	if op.Response != "" && !AcceptsJSON(r.Header.Get("Accept")) {
		return fail(CodeNotAcceptable, Violation{Pointer: "Accept", Rule: "accept", In: InHeader,
			Message: "Accept must admit application/hal+json"})
	}
	switch {
	case op.HasJSONBody():
		mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
		if err != nil || !JSONMediaType(mt) {
			return fail(CodeNotAcceptable, Violation{Pointer: "Content-Type", Rule: "content_type", In: InHeader,
				Message: "Content-Type must be application/json, application/vnd.api+json, application/vnd.json+api or application/hal+json"})
		}
	case op.Request == requestMultipart:
		mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
		if err != nil || mt != "multipart/form-data" {
			return fail(CodeNotAcceptable, Violation{Pointer: "Content-Type", Rule: "content_type", In: InHeader,
				Message: "Content-Type must be multipart/form-data"})
		}
	}
	vs := v.checkQuery(i, r.URL.Query())
	omitted := 0
	var ruleVs []Violation
	if op.HasJSONBody() {
		var rs *ruleSet
		if rules {
			rs = v.rules[i]
		}
		var err error
		ruleVs, err = v.check(v.bodies[i], body, rs)
		var verr *Error
		switch {
		case err == nil:
		case errors.As(err, &verr):
			if len(vs) == 0 {
				m, err := fail(verr.Code, verr.Violations...)
				err.(*Error).Omitted = verr.Omitted
				return m, err
			}
			if verr.Code == CodeInvalidField {
				vs = append(vs, verr.Violations...)
				omitted = verr.Omitted
			}
		case errors.Is(err, ErrMalformed):
			return fail(CodeBadRequest, Violation{Rule: "json", Message: publicMessage(err)})
		default:
			return m, err
		}
	}
	if len(vs) > 0 {
		m, err := fail(CodeInvalidField, vs...)
		err.(*Error).Omitted = omitted
		return m, err
	}
	if len(ruleVs) > 0 {
		return fail(CodeInvalidField, ruleVs...)
	}
	return m, nil
}

func newRequestError(code, opID string, vs []Violation) *Error {
	e := newError(code, vs)
	e.Where, e.Operation = WhereRequest, opID
	return e
}

// checkQuery checks offset, limit and sort on list operations; other
// parameters (filters are not shown by the spec) pass.
func (v *Validator) checkQuery(op int, q url.Values) []Violation {
	ec := v.checks[op]
	if !ec.list {
		return nil
	}
	var vs []Violation
	intParam := func(name string, lo, hi int) {
		for _, s := range q[name] {
			n, err := strconv.Atoi(s)
			if err != nil || n < lo || n > hi {
				vs = append(vs, Violation{Pointer: name, Rule: name, In: InQuery,
					Message: name + " must be an integer from " + strconv.Itoa(lo) + " to " + strconv.Itoa(hi)})
			}
		}
	}
	intParam("offset", 0, maxListOffset)
	intParam("limit", 1, maxListLimit)
	for _, s := range q["sort"] {
		field, dir, hasDir := strings.Cut(s, ",")
		if !ec.sortable[field] || (hasDir && dir != "asc" && dir != "desc") {
			vs = append(vs, Violation{Pointer: "sort", Rule: "sort", In: InQuery,
				Message: "sort must be <field>,<asc|desc> with field a field of the listed resource, got " + strconv.Quote(s)})
		}
	}
	return vs
}

// Response checks a response of the operation: a 2xx status must be the
// operation's success status, and its body, when the operation answers one,
// a JSON media type matching the response schema; a 4xx body must be the
// error envelope. It returns nil, an *Error (Code CodeInvalidResponse, Where
// response) listing every violation, or an error wrapping
// ErrUnknownOperation. 1xx, 3xx and 5xx responses are not judged.
func (v *Validator) Response(operationID string, status int, header http.Header, body []byte) error {
	i, ok := v.tab.byID[operationID]
	if !ok {
		return fmt.Errorf("%w %q", ErrUnknownOperation, operationID)
	}
	op := v.tab.ops[i]
	var vs []Violation
	omitted := 0
	schema := ""
	switch {
	case status >= 200 && status < 300:
		if status != op.Status {
			vs = append(vs, Violation{Rule: "status", In: InStatus,
				Message: "status " + strconv.Itoa(status) + ", want " + strconv.Itoa(op.Status)})
		}
		schema = op.Response
	case status >= 400 && status < 500:
		schema = "error"
	default:
		return nil
	}
	if schema != "" && status != http.StatusNoContent {
		mt, _, err := mime.ParseMediaType(header.Get("Content-Type"))
		if err != nil || !JSONMediaType(mt) {
			vs = append(vs, Violation{Pointer: "Content-Type", Rule: "content_type", In: InHeader,
				Message: "Content-Type " + strconv.Quote(header.Get("Content-Type")) + " is not a JSON media type"})
		}
		err = v.Validate(schema, body)
		var verr *Error
		switch {
		case err == nil:
		case errors.As(err, &verr):
			vs = append(vs, verr.Violations...)
			omitted = verr.Omitted
		case errors.Is(err, ErrMalformed):
			vs = append(vs, Violation{Rule: "json", Message: publicMessage(err)})
		default:
			return err
		}
	}
	if len(vs) == 0 {
		return nil
	}
	e := newError(CodeInvalidResponse, vs)
	e.Where, e.Operation, e.Omitted = WhereResponse, op.ID, omitted
	return e
}

// jsonMediaTypes are the API's JSON media types, the one list the
// validator, the reference, its faults and the OpenAPI export read.
var jsonMediaTypes = [...]string{"application/json", "application/vnd.json+api", "application/vnd.api+json", "application/hal+json"}

// JSONMediaTypes lists the JSON media types of the API, in the order an
// OpenAPI document names them: application/json first.
func JSONMediaTypes() []string { return jsonMediaTypes[:] }

// JSONMediaType reports whether mt (without parameters) is a JSON media type
// of the API: application/json, application/vnd.api+json,
// application/vnd.json+api or application/hal+json.
func JSONMediaType(mt string) bool {
	for _, t := range jsonMediaTypes {
		if mt == t {
			return true
		}
	}
	return false
}

// AcceptsJSON reports whether an Accept header admits a JSON answer: absent,
// */*, application/* or a JSON media type, with q above zero. A range whose
// q is not a number admits nothing, as a range that does not parse: RFC 9110
// §12.4.2 gives q's grammar, and guessing a weight for a malformed one would
// answer a client with what it may have refused.
func AcceptsJSON(accept string) bool {
	if strings.TrimSpace(accept) == "" {
		return true
	}
	for part := range strings.SplitSeq(accept, ",") {
		mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		if q, err := strconv.ParseFloat(params["q"], 64); params["q"] != "" && (err != nil || q == 0) {
			continue
		}
		if mt == "*/*" || mt == "application/*" || JSONMediaType(mt) {
			return true
		}
	}
	return false
}
