package judging

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/conform-kit/conform/validate"
	"github.com/conform-kit/conform/validate/internal/jsondoc"
)

// SchemaRow is one row of the schemas table of judging.json: the basis of
// the schema's violations and, for a normative request schema, the rules
// of it the spec does not state (AssumedRules).
type SchemaRow struct {
	Basis
	// AssumedRules are keywords of a normative schema that hold the
	// reference's choice, not the spec's (a field the spec does not say is
	// required, a bound it does not give): a violation of one is judged
	// under its profile key, every other violation of the schema by the
	// row's basis.
	AssumedRules []AssumedRule `json:"assumed_rules,omitempty"`
	// StatedRules are keywords of a normative request schema with the
	// sentence that states each (a limit of §8, a required field of a
	// body table): a violation of one is judged by the rule's sections and
	// words, more precisely than by the row's.
	StatedRules []StatedRule `json:"stated_rules,omitempty"`
}

func (r SchemaRow) clone() SchemaRow {
	r.Basis = r.Basis.clone()
	r.AssumedRules = slices.Clone(r.AssumedRules)
	r.StatedRules = slices.Clone(r.StatedRules)
	return r
}

// StatedRule names where the spec states one keyword of a normative
// request schema at one or more places (Pointers and Rule as in
// AssumedRule): the sections and their words.
type StatedRule struct {
	Pointers []string `json:"pointers"`
	Rule     string   `json:"rule"`
	Clauses  []string `json:"clauses"`
	Says     string   `json:"says"`
}

// String renders "maxLength at /address/city".
func (r StatedRule) String() string { return r.Rule + " at " + strings.Join(r.Pointers, ", ") }

func (r StatedRule) basis() Basis { return Basis{Clauses: slices.Clone(r.Clauses), Says: r.Says} }

// matches reports whether a violation is one of the rule's.
func (r StatedRule) matches(vi validate.Violation) bool {
	return AssumedRule{Pointers: r.Pointers, Rule: r.Rule}.matches(vi)
}

// AssumedRule marks one keyword of a normative schema as assumed at one or
// more places. Pointers are the JSON pointers a violation of it names
// (validate.Violation.Pointer: for required and additionalProperties the
// field's own pointer), a segment "*" standing for any array index or
// member name; Rule is the schema keyword (validate.Violation.Rule);
// Assumed the profile key; Why the spec's words that leave the rule open.
type AssumedRule struct {
	Pointers []string `json:"pointers"`
	Rule     string   `json:"rule"`
	Assumed  string   `json:"assumed"`
	Why      string   `json:"why"`
}

// String renders "required at /merchant".
func (r AssumedRule) String() string { return r.Rule + " at " + strings.Join(r.Pointers, ", ") }

// matches reports whether a violation is one of the rule's.
func (r AssumedRule) matches(vi validate.Violation) bool {
	if vi.In != validate.InBody || vi.Rule != r.Rule {
		return false
	}
	return slices.ContainsFunc(r.Pointers, func(p string) bool { return PointerMatches(p, vi.Pointer) })
}

// PointerMatches reports whether the JSON pointer ptr is pattern, a segment
// "*" of pattern matching any one segment (the pointers of assumed and
// stated rules: /additional_purchase_data/item_data/*/quantity).
func PointerMatches(pattern, ptr string) bool {
	want, got := strings.Split(pattern, "/"), strings.Split(ptr, "/")
	if len(want) != len(got) {
		return false
	}
	for i := range want {
		if want[i] != "*" && want[i] != got[i] {
			return false
		}
	}
	return true
}

// RequestBodyBasis returns the basis of one violation of a request body
// against its schema (a validate.Violation of In validate.InBody, other
// than a body that is not JSON): the schema's basis from judging.json or,
// when the schema is normative and one of its assumed rules names the
// violation's pointer and keyword, that rule's profile key with the
// schema's sections; when one of its stated rules does, that rule's
// sections and words. ok is false for a schema judging.json does not know.
// The proxy and the exploration judge a request body by it, so the same
// violation has the same basis in both.
func (j *Judge) RequestBodyBasis(schema string, vi validate.Violation) (Basis, bool) {
	row, ok := j.table.Schemas[schema]
	if !ok {
		return Basis{}, false
	}
	for _, r := range row.AssumedRules { // on a schema assumed as a whole: a rule judged under another key
		if r.matches(vi) {
			return Basis{Assumed: r.Assumed, Clauses: slices.Clone(row.Clauses)}, true
		}
	}
	if row.Normative() {
		for _, r := range row.StatedRules {
			if r.matches(vi) {
				return r.basis(), true
			}
		}
	}
	return row.Basis.clone(), true
}

// AssumedRules returns the assumed rules of a schema's row.
func (j *Judge) AssumedRules(schema string) []AssumedRule {
	return slices.Clone(j.table.Schemas[schema].AssumedRules)
}

// checkAssumedRules checks every assumed rule against its schema, so that
// an edit of a schema cannot leave a stale one: the row is normative (a
// schema assumed as a whole needs none), the pointer reaches the keyword
// (required: a required list naming the field, on the object holding it;
// additionalProperties: false there; any other keyword: on the field's
// schema; false: the schema false as the field's, "must not be present
// here"), following $ref, the allOf, anyOf, oneOf, then and else branches
// and dependentSchemas.
func checkAssumedRules(v *validate.Validator, rows map[string]SchemaRow) error {
	sr := &schemaReader{v: v, docs: map[string]any{}}
	for _, name := range slices.Sorted(maps.Keys(rows)) {
		row := rows[name]
		for _, r := range row.AssumedRules {
			where := fmt.Sprintf("judging: %s: schema %s: assumed rule %s", judgingFile, name, r)
			if !row.Normative() && r.Assumed == row.Assumed {
				return fmt.Errorf("%s: the schema is assumed as a whole under %s already", where, row.Assumed)
			}
			if r.Rule == "" || r.Why == "" || len(r.Pointers) == 0 {
				return fmt.Errorf("%s: want JSON pointers, a keyword and why", where)
			}
			for _, ptr := range r.Pointers {
				if ptr != "" && !strings.HasPrefix(ptr, "/") {
					return fmt.Errorf("%s: %q is no JSON pointer", where, ptr)
				}
				if !sr.reaches(name, ptr, r.Rule) {
					return fmt.Errorf("%s: the schema has no %s at %s", where, r.Rule, ptr)
				}
			}
		}
		for _, r := range row.StatedRules {
			where := fmt.Sprintf("judging: %s: schema %s: stated rule %s", judgingFile, name, r)
			if !row.Normative() {
				return fmt.Errorf("%s: the schema is assumed as a whole (%s)", where, row.Assumed)
			}
			if r.Rule == "" || len(r.Pointers) == 0 {
				return fmt.Errorf("%s: want JSON pointers and a keyword", where)
			}
			for _, ptr := range r.Pointers {
				if !sr.reaches(name, ptr, r.Rule) {
					return fmt.Errorf("%s: the schema has no %s at %s", where, r.Rule, ptr)
				}
			}
		}
	}
	return nil
}

// schemaReader reads the contract's schemas as JSON documents.
type schemaReader struct {
	v    *validate.Validator
	docs map[string]any // schema name → decoded document (nil: none)
}

// node is a schema object and the schema file it is in.
type node struct {
	file string
	m    map[string]any
}

func (s *schemaReader) doc(name string) any {
	name = strings.TrimSuffix(name, ".json")
	if d, ok := s.docs[name]; ok {
		return d
	}
	var d any
	if raw, ok := s.v.Schema(name); ok {
		_ = json.Unmarshal(raw, &d)
	}
	s.docs[name] = d
	return d
}

// reaches reports whether keyword rule is where a violation at pointer
// ptr of schema name comes from.
func (s *schemaReader) reaches(name, ptr, rule string) bool {
	segs := strings.Split(strings.TrimPrefix(ptr, "/"), "/")
	if ptr == "" {
		segs = nil
	}
	field := ""
	if rule == "required" || rule == "additionalProperties" || rule == "false" {
		if len(segs) == 0 {
			return false
		}
		field, segs = segs[len(segs)-1], segs[:len(segs)-1]
	}
	root, ok := s.doc(name).(map[string]any)
	if !ok {
		return false
	}
	nodes := s.expand([]node{{file: name, m: root}})
	for _, seg := range segs {
		var next []node
		for _, n := range nodes {
			next = append(next, s.child(n, seg)...)
		}
		nodes = s.expand(next)
	}
	for _, n := range nodes {
		switch rule {
		case "required":
			req, _ := n.m["required"].([]any)
			if slices.ContainsFunc(req, func(x any) bool { return x == field || (field == "*" && x != nil) }) {
				return true
			}
		case "additionalProperties":
			if n.m["additionalProperties"] == false {
				return true
			}
		case "false": // the schema false at the field: "must not be present here"
			if props, ok := n.m["properties"].(map[string]any); ok && props[field] == false {
				return true
			}
		default:
			if _, ok := n.m[rule]; ok {
				return true
			}
		}
	}
	return false
}

// child returns the schemas of a member or item seg of n ("*": any).
func (s *schemaReader) child(n node, seg string) []node {
	var out []node
	add := func(x any) {
		if m, ok := x.(map[string]any); ok {
			out = append(out, node{file: n.file, m: m})
		}
	}
	if props, ok := n.m["properties"].(map[string]any); ok {
		if seg == "*" {
			for _, k := range slices.Sorted(maps.Keys(props)) {
				add(props[k])
			}
		} else {
			add(props[seg])
		}
	}
	if isIndex(seg) {
		add(n.m["items"])
	}
	add(n.m["additionalProperties"])
	return out
}

func isIndex(seg string) bool {
	if seg == "*" {
		return true
	}
	for _, c := range seg {
		if c < '0' || c > '9' {
			return false
		}
	}
	return seg != ""
}

// expand adds to nodes every schema they apply through $ref, the allOf,
// anyOf, oneOf, then and else branches and the schemas of
// dependentSchemas.
func (s *schemaReader) expand(nodes []node) []node {
	var out []node
	var visit func(n node, depth int)
	visit = func(n node, depth int) {
		if depth > 32 {
			return
		}
		out = append(out, n)
		if ref, ok := n.m["$ref"].(string); ok {
			file, frag, _ := strings.Cut(ref, "#")
			if file == "" {
				file = n.file
			}
			file = strings.TrimSuffix(file, ".json")
			if t, ok := jsondoc.At(s.doc(file), frag); ok {
				if m, ok := t.(map[string]any); ok {
					visit(node{file: file, m: m}, depth+1)
				}
			}
		}
		for _, k := range []string{"allOf", "anyOf", "oneOf"} {
			branches, _ := n.m[k].([]any)
			for _, b := range branches {
				if m, ok := b.(map[string]any); ok {
					visit(node{file: n.file, m: m}, depth+1)
				}
			}
		}
		for _, k := range []string{"then", "else"} {
			if m, ok := n.m[k].(map[string]any); ok {
				visit(node{file: n.file, m: m}, depth+1)
			}
		}
		if deps, ok := n.m["dependentSchemas"].(map[string]any); ok {
			for _, k := range slices.Sorted(maps.Keys(deps)) {
				if m, ok := deps[k].(map[string]any); ok {
					visit(node{file: n.file, m: m}, depth+1)
				}
			}
		}
	}
	for _, n := range nodes {
		visit(n, 0)
	}
	return out
}

// BodyBasis is the basis of refusing body, sent to op, for its request
// schema: ok is false when op takes no JSON body, its schema has no row, or
// body breaks no keyword of it (a refusal of a valid body rests on a
// business rule, not on the schema). Otherwise ViolationsBasis of the
// validator's verdict. The suite, the exploration and the proxy judge a
// body the target took or refused by it, so one body has one basis
// whoever sent it.
func (j *Judge) BodyBasis(op validate.Operation, body []byte) (Basis, bool) {
	if !op.HasJSONBody() || op.Request == "" {
		return Basis{}, false
	}
	if _, ok := j.table.Schemas[op.Request]; !ok {
		return Basis{}, false
	}
	var ve *validate.Error
	if err := j.v.Validate(op.Request, body); !errors.As(err, &ve) {
		return Basis{}, false
	}
	return j.ViolationsBasis(op.Request, ve)
}

// ViolationsBasis is the basis of refusing a body for the violations ve of
// its request schema, by RequestBodyBasis of each: the first normative one
// (a stated rule's sections and words before the row's; the row's when the
// validator left violations unlisted, which may be the spec's), or, when
// every violation is an assumed rule's, the first one's profile key. ok is
// false when ve lists no violation of the body.
func (j *Judge) ViolationsBasis(schema string, ve *validate.Error) (Basis, bool) {
	row, known := j.table.Schemas[schema]
	if ve == nil || !known {
		return Basis{}, false
	}
	var normative, assumed []Basis
	for _, vi := range ve.Violations {
		if vi.In != validate.InBody {
			continue
		}
		b, _ := j.RequestBodyBasis(schema, vi)
		if b.Normative() {
			normative = append(normative, b)
		} else {
			assumed = append(assumed, b)
		}
	}
	if ve.Omitted > 0 && len(normative) == 0 {
		normative = append(normative, row.Basis.clone())
	}
	switch {
	case len(normative) > 0:
		for _, b := range normative { // a stated rule's words before the row's
			if b.Says != "" && b.Says != row.Says {
				return b, true
			}
		}
		return normative[0], true
	case len(assumed) > 0:
		return assumed[0], true
	}
	return Basis{}, false
}
