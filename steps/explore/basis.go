package explore

import (
	"errors"
	"slices"
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

// shapes reads which fields the normative schemas show, from the
// validator's compiled trees: a dotted path is shown when each segment is
// a declared property (or an item of a declared array, or an entry of a
// declared map) of the schema, following $ref and the allOf/anyOf
// branches.
type shapes struct {
	mu    sync.Mutex
	trees map[string]*validate.Shape // schema name → its tree (nil: no such schema)
}

// declares reports whether schema shows the dotted field path.
func (s *shapes) declares(v *validate.Validator, schema, field string) bool {
	root := s.load(v, schema)
	return root != nil && showsPath(root, strings.Split(field, "."), 0)
}

// load is the named schema's tree, built once.
func (s *shapes) load(v *validate.Validator, name string) *validate.Shape {
	name = strings.TrimSuffix(name, ".json")
	s.mu.Lock()
	defer s.mu.Unlock()
	if t, ok := s.trees[name]; ok {
		return t
	}
	if s.trees == nil {
		s.trees = map[string]*validate.Shape{}
	}
	t, err := v.Shape(name)
	if err != nil {
		t = nil // no such schema: it shows nothing
	}
	s.trees[name] = t
	return t
}

// showsPath reports whether node shows path, through its $ref and its
// allOf and anyOf branches.
func showsPath(node *validate.Shape, path []string, depth int) bool {
	if node == nil || node.Never || depth > maxDepth {
		return false
	}
	if len(path) == 0 {
		return true
	}
	if showsPath(node.Ref, path, depth+1) {
		return true
	}
	for _, b := range slices.Concat(node.AllOf, node.AnyOf) {
		if showsPath(b, path, depth+1) {
			return true
		}
	}
	if showsPath(node.Property(path[0]), path[1:], depth+1) {
		return true
	}
	if _, err := strconv.Atoi(path[0]); err == nil && showsPath(node.Items, path[1:], depth+1) {
		return true
	}
	return showsPath(node.AdditionalProperties, path[1:], depth+1)
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
