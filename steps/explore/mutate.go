package explore

import (
	"encoding/json"
	"maps"
	"math/big"
	"strings"
)

// Mutations: one leaf set one step outside its contract (each bound one
// past, a pattern's near misses, a format broken, each type swapped, null,
// absent), at the position a draw picks in a body.

// mutants are the values one step outside a leaf's contract: first the
// ones at its keywords' boundaries (each bound one past, a pattern's near
// misses, a value outside the enum, a broken format), then every other
// type, null and absent. Which of them the contract refuses is the
// validator's call.
func (g *generator) mutants(s *shape) (bounds, others []any) {
	if s.Required {
		others = append(others, absent)
	}
	if !s.Nullable {
		others = append(others, nil)
	}
	switch {
	case len(s.Enum) > 0:
		if str, ok := s.Enum[0].(string); ok {
			bounds = append(bounds, strings.ToLower(str), str+"X", "")
		} else {
			bounds = append(bounds, renderJSON(s.Enum[0])+"X")
		}
		others = append(others, json.Number("1"), true)
	case s.has("integer") || s.has("number"):
		lo, hi := numberRange(s)
		one := big.NewInt(1)
		bounds = append(bounds, num(new(big.Int).Sub(lo, one)), num(new(big.Int).Add(hi, one)))
		others = append(others, json.Number("-1"), json.Number("1.5"), json.Number("1e3"), "1000", true)
	case s.has("boolean"):
		others = append(others, "true", json.Number("1"))
	case s.has("string"):
		lo, hi := s.MinLength, s.MaxLength
		if hi >= 0 {
			bounds = append(bounds, run('a', hi+1), run(wideRunes[g.c.draw(len(wideRunes))], hi+1))
			if s.re != nil { // a pattern narrower than the length: at the length is outside it
				bounds = append(bounds, run('0', hi), run(wideRunes[g.c.draw(len(wideRunes))], hi))
			}
		}
		if lo > 0 {
			bounds = append(bounds, run('a', lo-1))
		}
		if s.Format == "date-time" {
			bounds = append(bounds, brokenTimestamps[g.c.draw(len(brokenTimestamps))])
		}
		if s.Format == "uri" {
			bounds = append(bounds, pick(g.c, "not a url", "ftp://example.com/x", "http://exa mple.com"))
		}
		if s.re != nil {
			misses := nearMisses(matching(s.syn, g.c, 1))
			bounds = append(bounds, misses[g.c.draw(len(misses))])
		}
		others = append(others, json.Number("1"), true, []any{}, map[string]any{})
	case s.Items != nil:
		others = append(others, map[string]any{}, "explore")
	case s.Values != nil:
		others = append(others, map[string]any{"explore": json.Number("1")}, []any{"explore"}, "explore")
	default: // an object with properties
		others = append(others, "explore", []any{}, map[string]any{}, map[string]any{"unknown_field": "explore"})
	}
	return dedupe(bounds), dedupe(others)
}

// mutant draws one mutant of a leaf, a boundary's most often.
func (g *generator) mutant(s *shape) any {
	bounds, others := g.mutants(s)
	if len(bounds) > 0 && (len(others) == 0 || g.c.draw(6) != 5) {
		return bounds[g.c.draw(len(bounds))]
	}
	return others[g.c.draw(len(others))]
}

// underAny reports whether path is one of paths or below one.
func underAny(path string, paths []string) bool {
	for _, p := range paths {
		if path == p || strings.HasPrefix(path, p+".") || strings.HasPrefix(path, p+"[]") {
			return true
		}
	}
	return false
}

// holdsItems reports whether doc holds an item of the outermost array on
// a shape path ("a.items[].b": a non-empty a.items).
func holdsItems(doc map[string]any, path string) bool {
	var cur any = doc
	for _, seg := range splitPath(path) {
		if seg == "[]" {
			arr, _ := cur.([]any)
			return len(arr) > 0
		}
		obj, ok := cur.(map[string]any)
		if !ok {
			return false
		}
		cur = obj[seg]
	}
	return false
}

// itemPosition is where in an array a mutation lands.
type itemPosition int

// in draws the index of an item of an array of n (n > 0) at the position.
func (p itemPosition) in(c *choices, n int) int {
	switch {
	case p == firstItem || n == 1:
		return 0
	case p == laterItem:
		return 1 + c.draw(n-1)
	}
	return c.draw(n)
}

// mutationSite is a node a mutation may change, and where in an array.
type mutationSite struct {
	node *shape
	item itemPosition
}

// setAt sets the value at a shape path in doc ("a.b", "items[].c": an
// item drawn among those the body holds, the first the simplest), drawing
// the parents that are not there yet.
func (g *generator) setAt(root *shape, doc map[string]any, path string, v any, fixes map[string]func() any, item itemPosition) {
	segs := splitPath(path)
	var cur any = doc
	node := root
	for i, seg := range segs {
		last := i == len(segs)-1
		switch {
		case seg == "[]":
			node = node.Items
			arr, _ := cur.([]any)
			if len(arr) == 0 {
				return // the parent set an empty array: nothing to change in place
			}
			// Any item: a rule holds in every position, not only the
			// first (a server checking item 0 alone passes a later one).
			at := item.in(g.c, len(arr))
			if last {
				if v == absent {
					arr[at] = nil
				} else {
					arr[at] = v
				}
				return
			}
			cur = arr[at]
		default:
			obj, ok := cur.(map[string]any)
			if !ok {
				return
			}
			node = node.prop(seg)
			if node == nil {
				return
			}
			if last {
				if v == absent {
					delete(obj, seg)
				} else {
					obj[seg] = v
				}
				return
			}
			if _, has := obj[seg]; !has {
				parent := g.drawNode(node, fixes)
				if parent == absent {
					// Its fix left it out (Level 2/3 data a payment
					// sends none of): drawn anyway, the mutation needs
					// it. Set, the absent marker would be {}, a body the
					// schema takes, and the probe would be lost.
					rest := maps.Clone(fixes)
					delete(rest, node.Path)
					parent = g.drawNode(node, rest)
				}
				obj[seg] = parent
			}
			cur = obj[seg]
		}
	}
}

// splitPath splits "a.b[].c" into "a", "b", "[]", "c".
func splitPath(path string) []string {
	var out []string
	for _, part := range strings.Split(path, ".") {
		name, items := part, 0
		for strings.HasSuffix(name, "[]") {
			name, items = strings.TrimSuffix(name, "[]"), items+1
		}
		if name != "" {
			out = append(out, name)
		}
		for range items {
			out = append(out, "[]")
		}
	}
	return out
}
