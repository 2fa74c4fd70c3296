package explore

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"sync"

	"github.com/conform-kit/conform/validate"
	"github.com/conform-kit/conform/validate/judging"
)

// Bases from the data: every check the oracle makes takes its basis from
// what the suite takes it from (judging.json's schemas and operations, the
// normative schemas' fields), whatever basis the generator wrote on a step.
// A rule about a request is normative only when the operation and its
// request schema are; a field read back is normative only when the
// resource's normative schema shows it. Anything else is the reference's
// choice, judged under its profile key.

// keyFieldNotShown is the profile key of a value the reference shows in a
// field the spec does not show on the resource (webhook tags): the
// reference's value, not the spec's.
const keyFieldNotShown = "resource_values"

// keyRoutes is the profile key of the webhook create and update routes.
const keyRoutes = judging.KeyWebhookRoutes

// opBasis is the basis of op itself as st reached it
// (judging.OperationBasisOnRoute): normative where its only assumption is
// its route and the target answered that route.
func opBasis(op validate.Operation, st Step) judging.Basis {
	return judging.OperationBasisOnRoute(op, st.routeAnswered)
}

// opRuleBasis is the basis of a rule about a request st to op: b when
// assumed; else the operation's when the operation itself is assumed
// (opBasis), the request schema's when the spec does not show its
// payload; else b.
func (r *runner) opRuleBasis(b judging.Basis, op validate.Operation, st Step) judging.Basis {
	if !b.Normative() {
		return b
	}
	if ob := opBasis(op, st); !ob.Normative() {
		return judging.Basis{Assumed: ob.Assumed, Clauses: union(ob.Clauses, b.Clauses)}
	}
	if op.HasJSONBody() && op.Request != "" {
		if sb, ok := r.j.SchemaBasis(op.Request); ok && !sb.Normative() {
			return judging.Basis{Assumed: sb.Assumed, Clauses: union(sb.Clauses, b.Clauses)}
		}
	}
	return b
}

// bodyBasis is the basis of refusing a body of op that breaks its request
// schema (err, the validator's verdict): the judge's (judging's
// ViolationsBasis, as the suite and the proxy judge a body), within the
// operation's basis: a stated rule's sections and words, the row's when a
// violation is the spec's without a rule of its own, or the first assumed
// rule's key when every violation is one (an enrollment without merchant:
// request_rules). An operation or schema assumed as a whole gives its key.
func (c *contract) bodyBasis(op string, err error) judging.Basis {
	b := c.basis[op]
	var ve *validate.Error
	schema := c.ops[op]
	if schema == "" || !errors.As(err, &ve) {
		return b
	}
	vb, ok := c.j.ViolationsBasis(schema, ve)
	if !ok {
		return b
	}
	if !b.Normative() {
		// An operation or schema assumed as a whole: its key, unless an
		// assumed rule of the schema names another for every violation
		// (an unknown field of an extension's body: request_rules).
		if !vb.Normative() && vb.Assumed != b.Assumed && ve.Omitted == 0 && allUnder(c.j, schema, ve, vb.Assumed) {
			return judging.Basis{Assumed: vb.Assumed, Clauses: union(b.Clauses, vb.Clauses)}
		}
		return b
	}
	if !vb.Normative() {
		return judging.Basis{Assumed: vb.Assumed, Clauses: union(b.Clauses, vb.Clauses)}
	}
	return judging.Basis{Clauses: union(b.Clauses, vb.Clauses), Says: vb.Says}
}

// allUnder reports whether every body violation of ve is judged under key.
func allUnder(j *judging.Judge, schema string, ve *validate.Error, key string) bool {
	for _, vi := range ve.Violations {
		if vi.In != validate.InBody {
			continue
		}
		if b, _ := j.RequestBodyBasis(schema, vi); b.Assumed != key {
			return false
		}
	}
	return true
}

// opAnswerBasis is the basis of a check on op's answer to st (a list
// walked, a read): b unless the operation itself is assumed (opBasis).
func (r *runner) opAnswerBasis(b judging.Basis, op validate.Operation, st Step) judging.Basis {
	if !b.Normative() {
		return b
	}
	if ob := opBasis(op, st); !ob.Normative() {
		return judging.Basis{Assumed: ob.Assumed, Clauses: union(ob.Clauses, b.Clauses)}
	}
	return b
}

// fieldBasis is the basis of a field read back from op's answer to st: b
// when assumed; else the operation's or the response schema's when
// assumed; else keyFieldNotShown when the response's normative schema
// does not show the field.
func (r *runner) fieldBasis(b judging.Basis, op validate.Operation, st Step, field string) judging.Basis {
	if b = r.opAnswerBasis(b, op, st); !b.Normative() || op.Response == "" {
		return b
	}
	if sb, ok := r.j.SchemaBasis(op.Response); ok && !sb.Normative() {
		return judging.Basis{Assumed: sb.Assumed, Clauses: union(sb.Clauses, b.Clauses)}
	}
	if !r.shapes.declares(r.v, op.Response, field) {
		return judging.Basis{Assumed: keyFieldNotShown, Clauses: b.Clauses}
	}
	return b
}

// basisFor is the basis of a finding of check on st, given the basis the
// step or the oracle wrote: the data's, as above.
func (r *runner) basisFor(check string, st Step, b judging.Basis) judging.Basis {
	op, ok := r.v.Operation(st.Op)
	if !ok {
		return b
	}
	switch check {
	case checkForbidden, checkAllowed:
		return r.opRuleBasis(b, op, st)
	case checkShape, checkListWalk, checkListComplete, checkSuccessStatus:
		return r.opAnswerBasis(b, op, st)
	}
	return b
}

// shapes reads which fields the normative schemas show: a dotted path is
// shown when each segment is a declared property (or an item of a declared
// array, or an entry of a declared map) of the schema, following $ref and
// the allOf/anyOf/oneOf branches.
type shapes struct {
	mu  sync.Mutex
	raw map[string]any // schema file name → decoded schema
}

// declares reports whether schema shows the dotted field path.
func (s *shapes) declares(v *validate.Validator, schema, field string) bool {
	root, ok := s.load(v, schema)
	if !ok {
		return false
	}
	return s.walk(v, schema, root, strings.Split(field, "."), 0)
}

func (s *shapes) load(v *validate.Validator, name string) (any, bool) {
	name = strings.TrimSuffix(name, ".json")
	s.mu.Lock()
	defer s.mu.Unlock()
	if doc, ok := s.raw[name]; ok {
		return doc, doc != nil
	}
	if s.raw == nil {
		s.raw = map[string]any{}
	}
	var doc any
	if data, ok := v.Schema(name); ok {
		_ = json.Unmarshal(data, &doc)
	}
	s.raw[name] = doc
	return doc, doc != nil
}

// resolve follows a $ref ("common.json#/$defs/tags", "#/$defs/x") from file.
func (s *shapes) resolve(v *validate.Validator, file, ref string) (string, any, bool) {
	target, frag, _ := strings.Cut(ref, "#")
	if target != "" {
		file = strings.TrimSuffix(target, ".json")
	}
	node, ok := s.load(v, file)
	if !ok {
		return file, nil, false
	}
	for part := range strings.SplitSeq(strings.Trim(frag, "/"), "/") {
		if part == "" {
			continue
		}
		m, ok := node.(map[string]any)
		if !ok {
			return file, nil, false
		}
		if node, ok = m[part]; !ok {
			return file, nil, false
		}
	}
	return file, node, true
}

func (s *shapes) walk(v *validate.Validator, file string, node any, path []string, depth int) bool {
	m, ok := node.(map[string]any)
	if !ok || depth > 32 {
		return false
	}
	if len(path) == 0 {
		return true
	}
	if ref, ok := m["$ref"].(string); ok {
		if f, n, ok := s.resolve(v, file, ref); ok && s.walk(v, f, n, path, depth+1) {
			return true
		}
	}
	for _, k := range []string{"allOf", "anyOf", "oneOf"} {
		branches, _ := m[k].([]any)
		for _, b := range branches {
			if s.walk(v, file, b, path, depth+1) {
				return true
			}
		}
	}
	if props, ok := m["properties"].(map[string]any); ok {
		if p, ok := props[path[0]]; ok && s.walk(v, file, p, path[1:], depth+1) {
			return true
		}
	}
	if _, err := strconv.Atoi(path[0]); err == nil {
		if items, ok := m["items"]; ok && s.walk(v, file, items, path[1:], depth+1) {
			return true
		}
	}
	if extra, ok := m["additionalProperties"].(map[string]any); ok && s.walk(v, file, extra, path[1:], depth+1) {
		return true
	}
	return false
}

// union is a followed by the members of b it lacks.
func union(a, b []string) []string {
	out := append([]string(nil), a...)
	for _, x := range b {
		found := false
		for _, y := range out {
			found = found || x == y
		}
		if !found {
			out = append(out, x)
		}
	}
	return out
}
