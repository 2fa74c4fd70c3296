package explore

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"

	"github.com/conform-kit/conform/validate"
)

// Values drawn from the contract, keyword by keyword. A leaf's valid
// values come first, simplest first (a plain value, its bounds, the
// values real servers break on), then a mutation of one leaf at a time:
// each bound one past, a pattern's near misses, a format broken, each
// type swapped, null, absent. Whether a body is refused is what the
// validator says of it, never a table of this package.

// timestamps are date-time values, the first ones in the schema's form.
var timestamps = []string{"2030-01-01T00:00:00.000Z", "2030-12-31T23:59:59.999999Z", "2031-06-15T12:30:45.5Z", "2029-02-28T00:00:00.123456789Z"}

// brokenTimestamps are timestamps a schema with fractional seconds and Z
// refuses, or no timestamp at all.
var brokenTimestamps = []string{"2030-01-01T00:00:00Z", "2030-01-01T00:00:00.000+01:00", "2030-01-01T00:00:00.000-05:30",
	"2030-01-01 00:00:00.000Z", "2030-13-01T00:00:00.000Z", "2030-01-01T00:00:00.000z", "tomorrow", ""}

// mapKeys are keys of a map leaf (tags), plain first.
var mapKeys = []string{"explore", "order", "o'key", "ключ", "clé 日本", "emoji😀", "007", " spaced "}

// drawNode draws a valid value of a node: an object with each required
// property and each optional one present or not, or a leaf's value. fixes
// decide the values of some paths (ids, values the rules relate).
func (g *generator) drawNode(s *shape, fixes map[string]func() any) any {
	if f, ok := fixes[s.Path]; ok && s.Path != "" {
		return f()
	}
	if s.isLeaf() {
		return g.validValue(s)
	}
	obj := map[string]any{}
	for _, p := range s.Props {
		if _, fixed := fixes[p.Path]; !fixed && !p.Required && g.c.draw(3) == 0 {
			continue
		}
		if v := g.drawNode(p, fixes); v != absent {
			obj[p.Name] = v
		}
	}
	for _, c := range s.Conds {
		if v, ok := obj[c.Prop]; ok && sameJSON(v, c.Value) {
			for _, name := range c.Required {
				p := s.prop(name)
				if p == nil {
					continue
				}
				if _, ok := obj[name]; !ok {
					obj[name] = g.drawNode(p, fixes)
				}
				inner, _ := obj[name].(map[string]any)
				for _, n := range c.Nested[name] {
					if _, ok := inner[n]; !ok && inner != nil && p.prop(n) != nil {
						inner[n] = g.drawNode(p.prop(n), fixes)
					}
				}
			}
		}
	}
	return obj
}

// nodes lists every node of a shape below its root (parents and leaves).
func (s *shape) nodes() []*shape {
	var out []*shape
	var walk func(*shape)
	walk = func(n *shape) {
		if n != s {
			out = append(out, n)
		}
		for _, p := range n.Props {
			walk(p)
		}
		if n.Items != nil {
			walk(n.Items)
		}
		if n.Values != nil {
			walk(n.Values)
		}
	}
	walk(s)
	return out
}

// drafted is a body drawn for an operation.
type drafted struct {
	doc     map[string]any
	mutated string // the path a mutation changed, "" for none
	err     error  // the validator's verdict: nil, or why the body is refused
}

// mutationShare is the percentage of bodies with one leaf mutated;
// probeShare the percentage of body actions that first send a probe, the
// same action's body with one leaf mutated, refused by its schema (it
// costs a request, not the sequence's depth).
const (
	mutationShare = 20
	probeShare    = 20
)

// body draws a body of op's request schema: mostly valid over every leaf,
// sometimes with one leaf mutated. fixes hold the values an action
// decides; keep names the fixed paths a mutation may not change (their
// values are what the sequence goes on with).
func (g *generator) body(op string, fixes map[string]func() any, keep ...string) drafted {
	share := mutationShare
	if op == "authorizations.capture" {
		// The last step of an authorization's life: depth lost is little.
		// Two captures of three are drawn valid, never mutated (payments.go):
		// the others are mutated twice as often as another body, as before.
		share = 2 * mutationShare
	}
	return g.draft(op, share, fixes, keep...)
}

// draft is body with share the percentage of bodies with one leaf mutated
// (0: none, unless the step is a probe). It makes the same draws whatever
// share is, so a step drawn with another share leaves every later draw
// meaning what it meant.
func (g *generator) draft(op string, share int, fixes map[string]func() any, keep ...string) drafted {
	s := g.con.schemas[g.con.ops[op]]
	d := drafted{doc: map[string]any{}}
	if s == nil {
		return d
	}
	d.doc, _ = g.drawNode(s, fixes).(map[string]any)
	// The mutation is drawn from a stream of its own, seeded by a draw made
	// whether or not a leaf is mutated: lowering the decision to 0 (the
	// simplest, no mutation) while shrinking leaves every later draw
	// meaning what it meant.
	sub := g.c.draw(1 << 30)
	if g.force || g.c.draw(100) >= 100-share {
		main := g.c
		g.c = newChoices(uint64(sub))
		defer func() { g.c = main }()
		// A leaf with boundaries most often, any node (parents too)
		// otherwise. A leaf under an array whose bound a sentence states is
		// a candidate once per position, as the coverage table counts it:
		// at the first item and at a later one (a rule holds in every
		// position); any other lands on any item.
		// Half the time a body holding array items mutates one of them, on
		// a leaf whose bound the spec states: an item's stated rules are
		// asked in each position, not once per body.
		var cands, bounded, items []mutationSite
		for _, n := range s.all {
			if !underAny(n.Path, keep) && n.Name != "*" {
				cands = append(cands, mutationSite{n, anyItem})
				if n.isLeaf() && n.bounded {
					if n.stated && strings.Contains(n.Path, "[]") {
						bounded = append(bounded, mutationSite{n, firstItem}, mutationSite{n, laterItem})
						if holdsItems(d.doc, n.Path) {
							items = append(items, mutationSite{n, firstItem}, mutationSite{n, laterItem})
						}
					} else {
						bounded = append(bounded, mutationSite{n, anyItem})
					}
				}
			}
		}
		if len(bounded) > 0 && g.c.draw(5) != 4 {
			cands = bounded
			if len(items) > 0 && g.c.draw(2) == 1 {
				cands = items
			}
		}
		m := cands[g.c.draw(len(cands))]
		g.setAt(s, d.doc, m.node.Path, g.mutant(m.node), fixes, m.item)
		d.mutated = m.node.Path
	}
	g.scrub(d.doc)
	d.err = g.con.check(op, s, d.doc)
	g.lastErr = d.err
	return d
}

// scrub changes each string equal to a secret the sequence sent (a
// security code) into another of the same length and kind of character.
func (g *generator) scrub(v any) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if str, ok := e.(string); ok && slices.Contains(g.secrets, str) {
				x[k] = shifted(str)
			} else {
				g.scrub(e)
			}
		}
	case []any:
		for i, e := range x {
			if str, ok := e.(string); ok && slices.Contains(g.secrets, str) {
				x[i] = shifted(str)
			} else {
				g.scrub(e)
			}
		}
	}
}

// shifted moves each digit of s one up (9 to 0), other characters kept.
func shifted(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return '0' + (r-'0'+1)%10
		}
		return r
	}, s)
}

const (
	anyItem   itemPosition = iota // an item drawn among all
	firstItem                     // item 0
	laterItem                     // an item after the first (the first when there is one item)
)

// check validates a drawn body as the target will receive it: each
// {placeholder} of an id stands for an id of the leaf's form.
func (c *contract) check(op string, s *shape, doc map[string]any) error {
	data, err := json.Marshal(stand(s, doc))
	if err != nil {
		return err
	}
	return c.v.Request(op, data)
}

// stand copies v with each "{role}" string replaced by the simplest value
// of its leaf's pattern.
func stand(s *shape, v any) any {
	switch x := v.(type) {
	case string:
		if s != nil && s.re != nil && strings.HasPrefix(x, "{") && strings.HasSuffix(x, "}") {
			return s.simplest + "0"
		}
		return x
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			var child *shape
			if s != nil {
				if child = s.prop(k); child == nil {
					child = s.Values
				}
			}
			out[k] = stand(child, e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			var child *shape
			if s != nil {
				child = s.Items
			}
			out[i] = stand(child, e)
		}
		return out
	}
	return v
}

// violation is the validator's first reason for refusing a body.
func violation(err error) string {
	var ve *validate.Error
	if errors.As(err, &ve) && len(ve.Violations) > 0 {
		v := ve.Violations[0]
		return strings.TrimPrefix(v.Pointer, "/") + ": " + v.Message
	}
	return err.Error()
}

// encodeBody renders a drawn body: keys sorted, no HTML escaping, so the
// same draws are the same bytes.
func encodeBody(doc map[string]any) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(doc) // maps, slices, strings, json.Number, bools: always encodable
	return strings.TrimSuffix(b.String(), "\n")
}
