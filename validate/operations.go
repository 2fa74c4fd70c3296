package validate

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
)

var (
	// ErrNoRoute means no operation has the requested path.
	ErrNoRoute = errors.New("validate: no operation has this path")
	// ErrMethodNotAllowed means the path is known but not with this method.
	ErrMethodNotAllowed = errors.New("validate: method not allowed for this path")
)

// Request values of an operation that carry no JSON body.
const (
	requestNone      = ""
	requestMultipart = "multipart"
	requestBinary    = "binary"
)

// Operation is one row of schemas/operations.json.
type Operation struct {
	ID          string   `json:"id"`
	Method      string   `json:"method"`
	Path        string   `json:"path"`     // e.g. "/authorizations/{id}"
	Request     string   `json:"request"`  // schema name, "", "multipart", "binary"
	Response    string   `json:"response"` // schema name or ""
	Status      int      `json:"status"`
	Roles       []string `json:"roles"`
	Source      string   `json:"source"` // "spec" | "extension"
	AlsoMethods []string `json:"also_methods,omitempty"`
	Clauses     []string `json:"clauses"`           // spec sections the operation implements
	Says        string   `json:"says,omitempty"`    // the spec's words naming the operation (normative rows)
	Assumed     string   `json:"assumed,omitempty"` // profile key when the operation itself is assumed
	// BodyRules names the business rules the operation's body alone shows
	// broken (BodyRuleTable), which Middleware and RequestBody judge.
	BodyRules []string `json:"body_rules,omitempty"`
}

// HasJSONBody reports whether the operation's request body is a JSON
// document validated against a schema.
func (o Operation) HasJSONBody() bool {
	switch o.Request {
	case requestNone, requestMultipart, requestBinary:
		return false
	}
	return true
}

// allows reports whether the operation answers to method (HEAD counts as GET).
func (o Operation) allows(method string) bool {
	if method == "HEAD" {
		method = "GET"
	}
	return o.Method == method || slices.Contains(o.AlsoMethods, method)
}

// route is one operation with its path split into segments; a segment
// "{name}" is a wildcard.
type route struct {
	op       int
	segments []string
}

// table is the parsed operations table.
type table struct {
	ops    []Operation
	byID   map[string]int
	routes []route
}

func newTable(data []byte, hasSchema func(string) bool) (table, error) {
	var file struct {
		Operations []Operation `json:"operations"`
	}
	if err := json.Unmarshal(data, &file); err != nil {
		return table{}, fmt.Errorf("validate: parsing %s: %w", operationsFile, err)
	}
	t := table{ops: file.Operations, byID: make(map[string]int, len(file.Operations))}
	for i, op := range t.ops {
		if _, dup := t.byID[op.ID]; dup {
			return table{}, fmt.Errorf("validate: %s: duplicate operation id %q", operationsFile, op.ID)
		}
		if op.HasJSONBody() && !hasSchema(op.Request) {
			return table{}, fmt.Errorf("validate: operation %s: %w %q (request)", op.ID, ErrUnknownSchema, op.Request)
		}
		if op.Response != "" && !hasSchema(op.Response) {
			return table{}, fmt.Errorf("validate: operation %s: %w %q (response)", op.ID, ErrUnknownSchema, op.Response)
		}
		if !strings.HasPrefix(op.Path, "/") {
			return table{}, fmt.Errorf("validate: operation %s: path %q does not start with /", op.ID, op.Path)
		}
		t.byID[op.ID] = i
		t.routes = append(t.routes, route{op: i, segments: strings.Split(op.Path[1:], "/")})
	}
	return t, nil
}

// Operations returns every operation in table order (a copy).
func (v *Validator) Operations() []Operation {
	out := make([]Operation, len(v.tab.ops))
	for i, op := range v.tab.ops {
		out[i] = op.clone()
	}
	return out
}

// Operation returns the operation with the given id.
func (v *Validator) Operation(id string) (Operation, bool) {
	i, ok := v.tab.byID[id]
	if !ok {
		return Operation{}, false
	}
	return v.tab.ops[i].clone(), true
}

// Lookup finds the operation serving method and path and returns it with the
// path parameters by name. The most specific path wins (literal segments beat
// wildcards, as in net/http.ServeMux). It returns an error wrapping ErrNoRoute
// when no operation has the path and ErrMethodNotAllowed when the path is
// known but not with this method (also_methods count).
func (v *Validator) Lookup(method, path string) (Operation, map[string]string, error) {
	i, params, err := v.route(method, path)
	if err != nil {
		return Operation{}, nil, err
	}
	return v.tab.ops[i].clone(), params, nil
}

// route is Lookup returning the operation's index in the table.
func (v *Validator) route(method, path string) (int, map[string]string, error) {
	if !strings.HasPrefix(path, "/") {
		return 0, nil, fmt.Errorf("%w: %s %s", ErrNoRoute, method, path)
	}
	segs := strings.Split(path[1:], "/")
	best := -1
	pathKnown := false
	for i, r := range v.tab.routes {
		if !r.matches(segs) {
			continue
		}
		pathKnown = true
		if !v.tab.ops[r.op].allows(method) {
			continue
		}
		if best < 0 || moreSpecific(r.segments, v.tab.routes[best].segments) {
			best = i
		}
	}
	if best < 0 {
		if pathKnown {
			return 0, nil, fmt.Errorf("%w: %s %s", ErrMethodNotAllowed, method, path)
		}
		return 0, nil, fmt.Errorf("%w: %s %s", ErrNoRoute, method, path)
	}
	r := v.tab.routes[best]
	params := make(map[string]string)
	for i, s := range r.segments {
		if name, ok := wildcard(s); ok {
			params[name] = segs[i]
		}
	}
	return r.op, params, nil
}

func (r route) matches(segs []string) bool {
	if len(segs) != len(r.segments) {
		return false
	}
	for i, s := range r.segments {
		if _, ok := wildcard(s); ok {
			if segs[i] == "" {
				return false
			}
			continue
		}
		if s != segs[i] {
			return false
		}
	}
	return true
}

// moreSpecific reports whether pattern a beats pattern b: at the first
// position where one is literal and the other a wildcard, the literal wins.
func moreSpecific(a, b []string) bool {
	for i := range a {
		_, wa := wildcard(a[i])
		_, wb := wildcard(b[i])
		if wa != wb {
			return !wa
		}
	}
	return false
}

func wildcard(seg string) (string, bool) {
	if len(seg) > 2 && seg[0] == '{' && seg[len(seg)-1] == '}' {
		return seg[1 : len(seg)-1], true
	}
	return "", false
}

func (o Operation) clone() Operation {
	o.Roles = slices.Clone(o.Roles)
	o.AlsoMethods = slices.Clone(o.AlsoMethods)
	o.Clauses = slices.Clone(o.Clauses)
	o.BodyRules = slices.Clone(o.BodyRules)
	return o
}
