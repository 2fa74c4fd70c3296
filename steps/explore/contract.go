package explore

import (
	"encoding/json"
	"fmt"
	"math/big"
	"regexp"
	"regexp/syntax"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/conform-kit/conform/validate"
	"github.com/conform-kit/conform/validate/judging"
)

// The request side of the contract, read from the compiled schemas: every
// request body's tree of fields with the keywords that bound each leaf, and
// the list operations' query parameters. The generator draws values from
// these keywords and the coverage table counts the boundaries they define.

// shape is one node of a request schema with its $ref and allOf merged in
// and a nullable anyOf folded into Nullable.
type shape struct {
	Path     string   // dotted from the body's root; "[]" marks array items, "*" a map's values
	Types    []string // JSON types the keywords allow ("string", "integer", "boolean", "object", "array")
	Nullable bool
	Required bool // required in its parent object
	Props    []*shape
	Name     string // the property's name in its parent
	Values   *shape // additionalProperties as a schema (tags): a map
	Items    *shape
	Enum     []any // const is a one-value enum
	// MinLength and MaxLength are -1 when absent; Min and Max nil.
	MinLength, MaxLength int
	Min, Max             *big.Int
	Pattern              string
	Format               string
	// Examples are values the contract names for the leaf beyond its
	// keywords: the values an if/then tests, the currency of the spec's
	// examples. They are drawn first.
	Examples []any
	// Conds are the object's if/then keywords: a property's value that
	// makes others required.
	Conds []cond
	re    *regexp.Regexp
	// Read once when the contract is built, for the generators that share it:
	syn      *syntax.Regexp // the pattern parsed
	simplest string         // the pattern's simplest match
	numbers  []any          // an integer leaf's valid values worth a draw
	bounded  bool           // a leaf with boundaries
	stated   bool           // a bounded leaf one of whose bounds the spec states (statedLeaves)
	all      []*shape       // every node below a schema's root
}

// cond is one if/then: when property Prop holds Value, Required are
// required, and Nested the named properties' own required members.
type cond struct {
	Prop     string
	Value    any
	Required []string
	Nested   map[string][]string
}

// isLeaf reports whether the shape is a value position of its own: a
// scalar, an array or a map (an object with properties is only a parent).
func (s *shape) isLeaf() bool { return len(s.Props) == 0 }

// has reports whether the shape allows a JSON type.
func (s *shape) has(t string) bool { return slices.Contains(s.Types, t) }

// prop returns the named property, or nil.
func (s *shape) prop(name string) *shape {
	for _, p := range s.Props {
		if p.Name == name {
			return p
		}
	}
	return nil
}

// prepare reads once what drawing from a root's nodes needs.
func (s *shape) prepare() {
	s.all = s.nodes()
	for _, n := range append(s.all, s) {
		n.bounded = n.isLeaf() && len(n.boundaries()) > 0
		if n.has("integer") || n.has("number") {
			n.numbers = validNumbers(n)
		}
	}
}

// leaves lists the shape's leaves, parents first, in property order.
func (s *shape) leaves() []*shape {
	var out []*shape
	var walk func(*shape)
	walk = func(n *shape) {
		if n.isLeaf() && n.Path != "" {
			out = append(out, n)
		}
		for _, p := range n.Props {
			walk(p)
		}
		if n.Values != nil {
			walk(n.Values)
		}
		if n.Items != nil {
			walk(n.Items)
		}
	}
	walk(s)
	return out
}

// contract is every request schema of the operations table as shapes, and
// the list query.
type contract struct {
	v        *validate.Validator
	j        *judging.Judge           // how a violation of a request schema is judged
	basis    map[string]judging.Basis // operation id → the basis of its request schema's refusals
	defaults judging.Profile          // the contract's default choices
	schemas  map[string]*shape        // request schema name → root
	names    []string                 // sorted
	query    *shape                   // the list operations' query parameters as an object
	ops      map[string]string        // operation id → request schema name ("" for none)
	share    map[string]int           // operation id → percentage of its actions sending probes
	lists    map[string]bool          // operation ids that take the list query
}

// queryName is the coverage table's name of the list query.
const queryName = "list query"

// newContract reads the request schemas of every operation of v's table.
// listMax is the largest list page size the target's profile declares
// (0: none stated).
func newContract(j *judging.Judge, listMax int) (*contract, error) {
	v := j.Validator()
	c := &contract{v: v, j: j, basis: map[string]judging.Basis{}, share: map[string]int{}, defaults: j.DefaultProfile(), schemas: map[string]*shape{}, ops: map[string]string{}, lists: map[string]bool{}}
	for _, op := range v.Operations() {
		if op.Method == "GET" && strings.HasSuffix(op.Response, "_list") {
			c.lists[op.ID] = true
		}
		if !op.HasJSONBody() {
			continue
		}
		c.ops[op.ID] = op.Request
		b := judging.Basis{Clauses: op.Clauses}
		if sb, ok := j.SchemaBasis(op.Request); ok {
			b = sb
		}
		c.basis[op.ID] = b
		if _, ok := c.schemas[op.Request]; ok {
			continue
		}
		tree, err := v.Shape(op.Request)
		if err != nil {
			return nil, fmt.Errorf("explore: %w", err)
		}
		s, err := buildShape(layersOf(tree), "", "")
		if err != nil {
			return nil, fmt.Errorf("explore: schema %s: %w", op.Request, err)
		}
		s.prepare()
		c.statedLeaves(op.Request, s)
		c.schemas[op.Request] = s
		c.names = append(c.names, op.Request)
	}
	for op := range c.ops {
		c.share[op] = c.probeShare(op)
	}
	// A merchant's Level 2/3 processing is state every sequence shares: a
	// probe would be one more write to it, after which the reads that judge
	// a refused update are not judged. Its one boolean needs no probe.
	c.share["merchants.update"] = 0
	// Two captures of three are drawn valid (payments.go), so that what
	// follows a capture is explored: each probe before one is a refused
	// capture more, and at the share its boundaries give (85) they made
	// most capture requests refused.
	c.share["authorizations.capture"] = min(c.share["authorizations.capture"], captureProbeShare)
	sort.Strings(c.names)
	// The list query: offset and limit bounded as the page object states
	// them, limit's maximum the profile's (the spec states none).
	env, err := v.Shape("list_envelope")
	if err != nil {
		return nil, fmt.Errorf("explore: %w", err)
	}
	page := env.Property("page")
	if page == nil {
		return nil, fmt.Errorf("explore: list_envelope has no page")
	}
	q := &shape{Types: []string{"object"}, MinLength: -1, MaxLength: -1}
	for _, name := range []string{"limit", "offset"} {
		p, err := buildShape(layersOf(page.Property(name)), name, name)
		if err != nil {
			return nil, fmt.Errorf("explore: list query %s: %w", name, err)
		}
		if name == "limit" && listMax > 0 {
			p.Max = big.NewInt(int64(listMax))
		}
		q.Props = append(q.Props, p)
	}
	q.prepare()
	c.query = q
	return c, nil
}

// captureProbeShare is the most percentage of capture actions sending a probe.
const captureProbeShare = 30

// probeShare is the percentage of op's actions that send a probe first:
// probeShare for a schema without boundaries, three more for every four
// boundaries, at most 90.
func (c *contract) probeShare(op string) int {
	s := c.schemas[c.ops[op]]
	if s == nil {
		return 0
	}
	n := 0
	for _, l := range s.leaves() {
		n += len(l.boundaries())
	}
	return min(probeShare+n*3/4, 90)
}

// leaf is the leaf at path of op's request schema (nil if none).
func (c *contract) leaf(op, path string) *shape {
	s := c.schemas[c.ops[op]]
	if s == nil {
		return nil
	}
	for _, n := range s.nodes() {
		if n.Path == path {
			return n
		}
	}
	return nil
}

// atLimit names the leaves doc sends at their maxLength (the largest
// value allowed) where the spec states that bound: a refusal naming one of
// them breaks §8. A bound judging.json lists among the schema's assumed
// rules is the reference's, not a stated limit.
func (c *contract) atLimit(op string, doc map[string]any) []string {
	var out []string
	schema := c.ops[op]
	c.visit(schema, doc, func(s *shape, v any, ptr string) {
		if str, ok := v.(string); ok && s.MaxLength >= 0 && utf8.RuneCountInString(str) == s.MaxLength && s.Name != "" && s.Name != "*" && c.statedBound(schema, ptr, "maxLength") {
			out = append(out, s.Name)
		}
	})
	return out
}

// visit calls f on every value doc holds where schema's tree has a node,
// with the node and the value's JSON pointer, parents before children.
func (c *contract) visit(schema string, doc any, f func(s *shape, v any, ptr string)) {
	var walk func(s *shape, v any, ptr string)
	walk = func(s *shape, v any, ptr string) {
		if s == nil {
			return
		}
		f(s, v, ptr)
		switch x := v.(type) {
		case map[string]any:
			for _, p := range s.Props {
				walk(p, x[p.Name], ptr+"/"+p.Name)
			}
		case []any:
			for i, e := range x {
				walk(s.Items, e, ptr+"/"+strconv.Itoa(i))
			}
		}
	}
	walk(c.schemas[schema], doc, "")
}

// statedBound reports whether the spec states the bound rule of schema at
// ptr: a violation of it is normative (judging.RequestBodyBasis), not one
// of the schema's assumed rules.
func (c *contract) statedBound(schema, ptr, rule string) bool {
	if c.j == nil {
		return true
	}
	b, ok := c.j.RequestBodyBasis(schema, validate.Violation{Pointer: ptr, Rule: rule, In: validate.InBody})
	return ok && b.Normative()
}

func joinPath(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

func jsonTypeOf(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case bool:
		return "boolean"
	case json.Number:
		return "integer"
	case nil:
		return "null"
	case []any:
		return "array"
	}
	return "object"
}

// Boundaries a leaf's keywords define, as the coverage table names them.
func (s *shape) boundaries() []string {
	var out []string
	if s.MaxLength >= 0 {
		n := strconv.Itoa(s.MaxLength)
		out = append(out, "maxLength "+n+": at", "maxLength "+n+": at, multi-byte", "maxLength "+n+": one past")
	}
	if s.MinLength > 0 {
		n := strconv.Itoa(s.MinLength)
		out = append(out, "minLength "+n+": at", "minLength "+n+": one short")
	}
	if s.Min != nil {
		out = append(out, "minimum "+s.Min.String()+": at", "minimum "+s.Min.String()+": one below")
	}
	if s.Max != nil {
		out = append(out, "maximum "+s.Max.String()+": at", "maximum "+s.Max.String()+": one past")
	}
	for _, e := range s.Enum {
		out = append(out, "enum "+renderJSON(e))
	}
	if len(s.Enum) > 0 {
		out = append(out, "enum: outside")
	}
	if s.Pattern != "" {
		out = append(out, "pattern: match", "pattern: miss")
	}
	if s.Format != "" {
		out = append(out, "format "+s.Format+": valid", "format "+s.Format+": invalid")
	}
	if s.has("boolean") && len(s.Enum) == 0 {
		out = append(out, "true", "false")
	}
	if s.Nullable {
		out = append(out, "null")
	}
	if s.Items != nil {
		out = append(out, "items: 0", "items: 1", "items: several")
	}
	if s.Values != nil {
		out = append(out, "entries: 0", "entries: 1", "entries: several")
	}
	return out
}

// hits lists the boundaries a value sent at the leaf reaches.
func (s *shape) hits(v any) []string {
	var out []string
	switch x := v.(type) {
	case nil:
		if s.Nullable {
			out = append(out, "null")
		}
	case bool:
		if s.has("boolean") && len(s.Enum) == 0 {
			out = append(out, strconv.FormatBool(x))
		}
	case string:
		n := utf8.RuneCountInString(x)
		if s.MaxLength >= 0 {
			m := strconv.Itoa(s.MaxLength)
			switch {
			case n == s.MaxLength && len(x) > n:
				out = append(out, "maxLength "+m+": at, multi-byte")
			case n == s.MaxLength:
				out = append(out, "maxLength "+m+": at")
			case n == s.MaxLength+1:
				out = append(out, "maxLength "+m+": one past")
			}
		}
		if s.MinLength > 0 {
			m := strconv.Itoa(s.MinLength)
			switch n {
			case s.MinLength:
				out = append(out, "minLength "+m+": at")
			case s.MinLength - 1:
				out = append(out, "minLength "+m+": one short")
			}
		}
		if s.re != nil {
			if s.re.MatchString(x) {
				out = append(out, "pattern: match")
			} else {
				out = append(out, "pattern: miss")
			}
		}
		if s.Format != "" {
			if valid, known := validate.ValidFormat(s.Format, x); valid || !known {
				out = append(out, "format "+s.Format+": valid")
			} else {
				out = append(out, "format "+s.Format+": invalid")
			}
		}
	case json.Number:
		if b, ok := new(big.Int).SetString(string(x), 10); ok {
			one := big.NewInt(1)
			if s.Min != nil {
				switch b.Cmp(s.Min) {
				case 0:
					out = append(out, "minimum "+s.Min.String()+": at")
				case -1:
					if new(big.Int).Add(b, one).Cmp(s.Min) == 0 {
						out = append(out, "minimum "+s.Min.String()+": one below")
					}
				}
			}
			if s.Max != nil {
				switch b.Cmp(s.Max) {
				case 0:
					out = append(out, "maximum "+s.Max.String()+": at")
				case 1:
					if new(big.Int).Sub(b, one).Cmp(s.Max) == 0 {
						out = append(out, "maximum "+s.Max.String()+": one past")
					}
				}
			}
		}
	case []any:
		if s.Items != nil {
			out = append(out, "items: "+countClass(len(x)))
		}
	case map[string]any:
		if s.Values != nil {
			out = append(out, "entries: "+countClass(len(x)))
		}
	}
	if len(s.Enum) > 0 {
		in := false
		for _, e := range s.Enum {
			if sameJSON(e, v) {
				in = true
				out = append(out, "enum "+renderJSON(e))
			}
		}
		if !in {
			out = append(out, "enum: outside")
		}
	}
	return out
}

func countClass(n int) string {
	switch n {
	case 0:
		return "0"
	case 1:
		return "1"
	}
	return "several"
}

// sameJSON compares two decoded JSON scalars.
func sameJSON(a, b any) bool {
	return renderJSON(a) == renderJSON(b)
}

func renderJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
