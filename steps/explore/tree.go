package explore

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math/big"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"

	"github.com/conform-kit/conform/validate"
)

// The request schemas' trees are read from the validator's compiled
// Shapes: one shape per value position, with the keywords of its $ref,
// its own and its allOf's merged as a validator applies them all, a
// nullable anyOf folded into Nullable and if/then read as conditions.

// maxDepth bounds a tree's nesting (the contract's deepest body has 4 levels).
const maxDepth = 32

// errTooDeep reports a schema nesting past maxDepth.
var errTooDeep = errors.New("explore: schema nests too deep")

// layersOf lists the Shapes whose keywords hold at s's value position, in
// the order a later one's apply over an earlier's: its $ref's target's
// first, then its own, then each allOf member's.
func layersOf(s *validate.Shape) []*validate.Shape {
	if s == nil {
		return nil
	}
	out := append(layersOf(s.Ref), s)
	for _, a := range s.AllOf {
		out = append(out, layersOf(a)...)
	}
	return out
}

// keywords are the keywords of a value position's layers merged: each
// bound keeps the narrower value, required lists join, properties and
// items merge, and any other keyword keeps the last layer's.
type keywords struct {
	types           []string
	enum, constant  []any
	minLen, maxLen  int // -1 when absent
	minimum         *big.Int
	maximum         *big.Int
	exclusiveMin    *big.Int
	pattern, format string
	required        []string
	hasProps        bool
	props           map[string][]*validate.Shape // name → its layers; nil layers: forbidden
	items           []*validate.Shape
	values          []*validate.Shape // additionalProperties as a schema; nil when closed or absent
	anyOf           []*validate.Shape
	conds           []cond
}

// mergeLayers merges the keywords of ls.
func mergeLayers(ls []*validate.Shape) *keywords {
	k := &keywords{minLen: -1, maxLen: -1, props: map[string][]*validate.Shape{}}
	for _, l := range ls {
		k.add(l)
	}
	return k
}

// add applies the keywords of one layer over k.
func (k *keywords) add(l *validate.Shape) {
	if len(l.Types) > 0 {
		k.types = slices.Clone(l.Types)
	}
	if l.Enum != nil {
		k.enum = l.Enum
	}
	if l.Const != nil {
		k.constant = l.Const
	}
	if l.MinLength >= 0 && l.MinLength > k.minLen {
		k.minLen = l.MinLength
	}
	if l.MaxLength >= 0 && (k.maxLen < 0 || l.MaxLength < k.maxLen) {
		k.maxLen = l.MaxLength
	}
	k.minimum = narrower(k.minimum, l.Minimum, 1)
	k.maximum = narrower(k.maximum, l.Maximum, -1)
	k.exclusiveMin = narrower(k.exclusiveMin, l.ExclusiveMinimum, 1)
	if l.Pattern != "" {
		k.pattern = l.Pattern
	}
	if l.Format != "" {
		k.format = l.Format
	}
	for _, r := range l.Required {
		if !slices.Contains(k.required, r) {
			k.required = append(k.required, r)
		}
	}
	for _, p := range l.Properties {
		k.hasProps = true
		ls, had := k.props[p.Name]
		switch {
		case p.Shape.Never:
			k.props[p.Name] = nil // false: the property is forbidden
		case had && ls == nil:
			k.props[p.Name] = layersOf(p.Shape) // over a forbidden one: replaces it
		default:
			k.props[p.Name] = append(ls, layersOf(p.Shape)...)
		}
	}
	k.items = append(k.items, layersOf(l.Items)...)
	if ap := l.AdditionalProperties; ap != nil {
		k.values = nil
		if !ap.Never {
			k.values = layersOf(ap)
		}
	}
	if len(l.AnyOf) > 0 {
		k.anyOf = l.AnyOf
	}
	if l.If != nil {
		k.conds = append(k.conds, condsOf(l.If, l.Then)...)
	}
}

// narrower is the narrower of a bound and a layer's (dir 1: the larger, a
// minimum; -1: the smaller, a maximum); a bound not an integer is none.
func narrower(cur *big.Int, text json.Number, dir int) *big.Int {
	v, ok := new(big.Int).SetString(string(text), 10)
	if !ok {
		return cur
	}
	if cur == nil || v.Cmp(cur) == dir {
		return v
	}
	return cur
}

// condsOf reads an if/then: each property the if holds to a const value
// makes the then's required members required, and the then's properties'
// own required members.
func condsOf(ifs, then *validate.Shape) []cond {
	if then == nil || len(then.Required) == 0 {
		return nil
	}
	var out []cond
	for _, p := range ifs.Properties {
		if len(p.Shape.Const) == 0 {
			continue
		}
		cd := cond{Prop: p.Name, Value: p.Shape.Const[0], Required: slices.Clone(then.Required), Nested: map[string][]string{}}
		for _, tp := range then.Properties {
			if req := mergeLayers(layersOf(tp.Shape)).required; len(req) > 0 {
				cd.Nested[tp.Name] = slices.Sorted(slices.Values(req))
			}
		}
		out = append(out, cd)
	}
	return out
}

// foldAnyOf folds the anyOf of a value position: an alternative that is
// null alone makes it nullable, one that is a required list alone is
// validity, not shape, and a single alternative left applies over the
// rest.
func (k *keywords) foldAnyOf() (nullable bool) {
	alts := k.anyOf
	k.anyOf = nil
	var rest []*validate.Shape
	for _, a := range alts {
		switch {
		case onlyKeyword(a, "type") && len(a.Types) == 1 && a.Types[0] == "null":
			nullable = true
		case onlyKeyword(a, "required"):
		default:
			rest = append(rest, a)
		}
	}
	if len(rest) == 1 {
		for _, l := range layersOf(rest[0]) {
			k.add(l)
		}
	}
	return nullable
}

// onlyKeyword reports whether s holds the one keyword named and no other.
func onlyKeyword(s *validate.Shape, kw string) bool {
	bare := validate.Shape{MinLength: -1, MaxLength: -1, MinItems: -1, MaxItems: -1}
	x := *s
	x.Location = ""
	switch kw {
	case "type":
		x.Types, x.Nullable = nil, false
	case "required":
		x.Required = nil
	}
	return x.Never == bare.Never && len(x.Types) == 0 && x.Enum == nil && x.Const == nil && x.MinLength == -1 && x.MaxLength == -1 &&
		x.Pattern == "" && x.Format == "" && x.Minimum == "" && x.Maximum == "" && x.ExclusiveMinimum == "" &&
		len(x.Properties) == 0 && len(x.Required) == 0 && x.AdditionalProperties == nil && !x.Closed && len(x.DependentSchemas) == 0 &&
		x.Items == nil && x.MinItems == -1 && x.MaxItems == -1 && x.Ref == nil && len(x.AllOf) == 0 && len(x.AnyOf) == 0 &&
		x.If == nil && x.Then == nil && x.Else == nil
}

// buildShape is the shape at path of the value position whose keywords ls hold.
func buildShape(ls []*validate.Shape, path, name string) (*shape, error) {
	if strings.Count(path, ".")+strings.Count(path, "[]") > maxDepth {
		return nil, fmt.Errorf("%w: %s", errTooDeep, path)
	}
	k := mergeLayers(ls)
	s := &shape{Path: path, Name: name, MinLength: k.minLen, MaxLength: k.maxLen}
	s.Nullable = k.foldAnyOf()
	s.Types = k.types
	if i := slices.Index(s.Types, "null"); i >= 0 {
		s.Types = slices.Delete(s.Types, i, i+1)
		s.Nullable = true
	}
	s.Enum = k.constant
	if k.enum != nil {
		s.Enum = k.enum
	}
	if len(s.Types) == 0 && len(s.Enum) > 0 {
		s.Types = []string{jsonTypeOf(s.Enum[0])}
	}
	s.MinLength, s.MaxLength = k.minLen, k.maxLen
	s.Min, s.Max = k.minimum, k.maximum
	if k.exclusiveMin != nil {
		s.Min = new(big.Int).Add(k.exclusiveMin, big.NewInt(1)) // integers: the least allowed
	}
	if err := s.setPattern(k.pattern); err != nil {
		return nil, err
	}
	s.Format = k.format
	s.Conds = k.conds
	if err := s.buildChildren(k); err != nil {
		return nil, err
	}
	return s, nil
}

// setPattern compiles the leaf's pattern and reads its simplest match.
func (s *shape) setPattern(p string) error {
	if p == "" {
		return nil
	}
	re, err := regexp.Compile(p)
	if err != nil {
		return fmt.Errorf("%s: pattern %q: %w", s.Path, p, err)
	}
	syn, err := syntax.Parse(p, syntax.Perl)
	if err != nil {
		return fmt.Errorf("%s: pattern %q: %w", s.Path, p, err)
	}
	s.Pattern, s.re, s.syn = p, re, syn
	s.simplest = matching(syn, nil, 0)
	return nil
}

// buildChildren builds the properties, the map values and the items of s.
func (s *shape) buildChildren(k *keywords) error {
	if k.hasProps {
		for _, name := range slices.Sorted(maps.Keys(k.props)) {
			ls := k.props[name]
			if ls == nil {
				continue // false: the property is forbidden
			}
			p, err := buildShape(ls, joinPath(s.Path, name), name)
			if err != nil {
				return err
			}
			p.Required = slices.Contains(k.required, name)
			if name == "currency" && p.re != nil && p.re.MatchString("USD") {
				p.Examples = append(p.Examples, "USD") // the spec's examples' currency: a schema cannot list ISO 4217
			}
			s.Props = append(s.Props, p)
		}
		for _, cd := range s.Conds {
			if p := s.prop(cd.Prop); p != nil {
				p.Examples = append(p.Examples, cd.Value)
			}
		}
		if len(s.Types) == 0 {
			s.Types = []string{"object"}
		}
	}
	if len(k.values) > 0 {
		vals, err := buildShape(k.values, joinPath(s.Path, "*"), "*")
		if err != nil {
			return err
		}
		s.Values = vals
	}
	if len(k.items) > 0 {
		items, err := buildShape(k.items, s.Path+"[]", "")
		if err != nil {
			return err
		}
		s.Items = items
	}
	return nil
}
