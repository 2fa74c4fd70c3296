package explore

import (
	"encoding/json"
	"errors"
	"math/big"
	"regexp/syntax"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/conform-kit/conform/validate"
)

// Values drawn from the contract, keyword by keyword. A leaf's valid
// values come first, simplest first (a plain value, its bounds, the
// values real servers break on), then a mutation of one leaf at a time:
// each bound one past, a pattern's near misses, a format broken, each
// type swapped, null, absent. Whether a body is refused is what the
// validator says of it, never a table of this package.

// absentValue marks a leaf a draw leaves out of its body.
type absentValue struct{}

var absent any = absentValue{}

// edgeNumbers are the integers servers break on: small values, the edges
// of 16-, 24-, 32- and 53-bit storage and of int64.
var edgeNumbers = func() []*big.Int {
	var out []*big.Int
	for _, e := range []string{"0", "1", "2", "99", "100", "101", "9999", "10000", "32767", "32768", "65535", "65536",
		"16777215", "16777216", "16777217", "2147483647", "2147483648", "2147483649", "4294967295", "4294967296",
		"9007199254740991", "9007199254740992", "9007199254740993", "9223372036854775807"} {
		n, _ := new(big.Int).SetString(e, 10)
		out = append(out, n)
	}
	return out
}()

// textClasses are strings real servers break on: quotes, backslashes,
// emoji, combining marks, spaces at either end, leading zeros, scripts of
// two-, three- and four-byte characters.
var textClasses = []string{
	"O'Brien", `say "hi"`, `back\slash`, "emoji 😀🎉", "cafe\u0301 combining", " leading space", "trailing space ",
	"007", "日本語の名前", "Ünïcödé", "<b>&amp;</b>", "semi;colon,comma", "%s %d %%", "null",
}

// wideRunes are characters of two, three and four bytes in UTF-8.
var wideRunes = []rune{'é', '日', '😀'}

// sized is s cut or padded to between lo and hi characters (hi < 0: no bound).
func sized(s string, lo, hi int) string {
	r := []rune(s)
	if hi >= 0 && len(r) > hi {
		r = r[:hi]
	}
	for len(r) < lo {
		r = append(r, 'a')
	}
	return string(r)
}

// run is n copies of a character.
func run(c rune, n int) string { return strings.Repeat(string(c), max(n, 0)) }

// dedupe keeps the first of equal values, in order.
func dedupe(vals []any) []any {
	var out []any
	seen := map[string]bool{}
	for _, v := range vals {
		k := renderJSON(v)
		if _, ok := v.(absentValue); ok {
			k = "<absent>"
		}
		if !seen[k] {
			seen[k] = true
			out = append(out, v)
		}
	}
	return out
}

func num(b *big.Int) json.Number { return json.Number(b.String()) }

// numberRange is the leaf's bounds, 0 and 2^63−1 where it states none.
func numberRange(s *shape) (lo, hi *big.Int) {
	lo, hi = big.NewInt(0), new(big.Int).Set(edgeNumbers[len(edgeNumbers)-1])
	if s.Min != nil {
		lo = s.Min
	}
	if s.Max != nil {
		hi = s.Max
	}
	return lo, hi
}

// validNumbers are an integer leaf's allowed values worth a draw: a plain
// one, the bounds and one inside them, and the edge numbers within.
func validNumbers(s *shape) []any {
	lo, hi := numberRange(s)
	in := func(n *big.Int) bool { return n.Cmp(lo) >= 0 && n.Cmp(hi) <= 0 }
	one := big.NewInt(1)
	var out []any
	if p := big.NewInt(1000); in(p) {
		out = append(out, num(p))
	}
	out = append(out, num(lo), num(hi), num(new(big.Int).Add(lo, one)), num(new(big.Int).Sub(hi, one)))
	for _, e := range edgeNumbers {
		if in(e) {
			out = append(out, num(e))
		}
	}
	return dedupe(out)
}

// drawNumber draws an allowed integer: a listed one or any in a span
// from the lower bound.
func (g *generator) drawNumber(s *shape) json.Number {
	vals := s.numbers
	switch g.c.draw(3) {
	case 1:
		vals = vals[:min(len(vals), 5)] // the plain value and the bounds
	case 2:
		lo, hi := numberRange(s)
		var edges []any
		for _, e := range edgeNumbers[6:] { // from 2^15 up: storage edges
			if e.Cmp(lo) > 0 && e.Cmp(hi) < 0 {
				edges = append(edges, num(e))
			}
		}
		if len(edges) > 0 {
			vals = edges
		}
	}
	if i := g.c.draw(len(vals) + 1); i < len(vals) {
		return vals[i].(json.Number)
	}
	lo, hi := numberRange(s)
	span := new(big.Int).Sub(hi, lo)
	if span.Cmp(big.NewInt(10_000_000)) > 0 {
		span = big.NewInt(10_000_000)
	}
	return num(new(big.Int).Add(lo, big.NewInt(int64(g.c.draw(int(span.Int64())+1)))))
}

// timestamps are date-time values, the first ones in the schema's form.
var timestamps = []string{"2030-01-01T00:00:00.000Z", "2030-12-31T23:59:59.999999Z", "2031-06-15T12:30:45.5Z", "2029-02-28T00:00:00.123456789Z"}

// brokenTimestamps are timestamps a schema with fractional seconds and Z
// refuses, or no timestamp at all.
var brokenTimestamps = []string{"2030-01-01T00:00:00Z", "2030-01-01T00:00:00.000+01:00", "2030-01-01T00:00:00.000-05:30",
	"2030-01-01 00:00:00.000Z", "2030-13-01T00:00:00.000Z", "2030-01-01T00:00:00.000z", "tomorrow", ""}

// validStrings are a string leaf's allowed values worth a draw.
func (g *generator) validStrings(s *shape) []any {
	if s.Format == "date-time" {
		var out []any
		for _, t := range timestamps {
			if s.re == nil || s.re.MatchString(t) {
				out = append(out, t)
			}
		}
		return out
	}
	if s.re != nil {
		var out []any
		for _, m := range []string{s.simplest, matching(s.syn, g.c, 1), matching(s.syn, g.c, 2)} {
			if f, ok := fitLength(s, m); ok {
				out = append(out, f)
			}
		}
		return dedupe(out)
	}
	lo, hi := max(s.MinLength, 0), s.MaxLength
	plainMax := hi
	if hi > lo {
		plainMax = hi - 1 // the plain value inside the bounds, never at one
	}
	out := []any{sized("explore", lo, plainMax)}
	if lo > 0 {
		out = append(out, run('a', lo))
	}
	if hi >= 0 {
		out = append(out, run('a', hi), run(wideRunes[g.c.draw(len(wideRunes))], hi))
	}
	for _, t := range textClasses {
		out = append(out, sized(t, lo, hi))
	}
	return dedupe(out)
}

// fitLength brings a match of s's pattern within s's length bounds where
// both are keywords of the leaf (a card number: digits only, 12 to 19 of
// them): it repeats the last character, or cuts, as long as the pattern
// still matches. ok is false when no such string was found.
func fitLength(s *shape, m string) (string, bool) {
	lo, hi := max(s.MinLength, 0), s.MaxLength
	r := []rune(m)
	for len(r) < lo && len(r) > 0 {
		r = append(r, r[len(r)-1])
	}
	if hi >= 0 && len(r) > hi {
		r = r[:hi]
	}
	out := string(r)
	return out, s.re.MatchString(out) && len(r) >= lo && (hi < 0 || len(r) <= hi)
}

// matching draws a string matching pattern: mode 0 the simplest (the
// fewest repeats, the first alternative, the first character of each
// class), mode 1 drawn characters and repeats, mode 2 the most repeats a
// bound allows.
func matching(re *syntax.Regexp, c *choices, mode int) string {
	if re == nil {
		return ""
	}
	var b strings.Builder
	var gen func(*syntax.Regexp)
	count := func(lo, hi int) int {
		switch {
		case mode == 0:
			return lo
		case hi < 0:
			hi = lo + 3
		}
		if mode == 2 {
			return hi
		}
		return lo + c.draw(hi-lo+1)
	}
	gen = func(r *syntax.Regexp) {
		switch r.Op {
		case syntax.OpLiteral:
			b.WriteString(string(r.Rune))
		case syntax.OpCharClass:
			if len(r.Rune) < 2 {
				return
			}
			if mode == 0 {
				b.WriteRune(r.Rune[0])
				return
			}
			i := 2 * c.draw(len(r.Rune)/2)
			lo, hi := r.Rune[i], r.Rune[i+1]
			b.WriteRune(lo + rune(c.draw(int(min(hi-lo, 1000))+1)))
		case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
			b.WriteByte('a')
		case syntax.OpCapture:
			gen(r.Sub[0])
		case syntax.OpConcat:
			for _, s := range r.Sub {
				gen(s)
			}
		case syntax.OpAlternate:
			i := 0
			if mode != 0 {
				i = c.draw(len(r.Sub))
			}
			gen(r.Sub[i])
		case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
			lo, hi := 0, -1
			switch r.Op {
			case syntax.OpPlus:
				lo = 1
			case syntax.OpQuest:
				hi = 1
			case syntax.OpRepeat:
				lo, hi = r.Min, r.Max
			}
			for range count(lo, hi) {
				gen(r.Sub[0])
			}
		}
	}
	gen(re)
	return b.String()
}

// nearMisses are strings one step from m, a match of the leaf's pattern:
// a character more or fewer, a leading zero, a letter or a digit in place
// of the first character, a space, the other letter case.
func nearMisses(m string) []any {
	out := []any{m + lastOr(m, "0"), dropLast(m), "0" + m, swapFirst(m), m + " ", " " + m}
	if up := strings.ToUpper(m); up != m {
		out = append(out, up)
	}
	if low := strings.ToLower(m); low != m {
		out = append(out, low)
	}
	return out
}

func lastOr(m, or string) string {
	if m == "" {
		return or
	}
	_, n := utf8.DecodeLastRuneInString(m)
	return m[len(m)-n:]
}

func dropLast(m string) string {
	_, n := utf8.DecodeLastRuneInString(m)
	return m[:len(m)-n]
}

func swapFirst(m string) string {
	r, n := utf8.DecodeRuneInString(m)
	if unicode.IsLetter(r) {
		return "1" + m[n:]
	}
	return "x" + m[n:]
}

// validValue draws one allowed value of a leaf.
func (g *generator) validValue(s *shape) any {
	var vals []any
	switch {
	case len(s.Enum) > 0:
		vals = s.Enum
	case s.has("integer") || s.has("number"):
		if g.c.draw(4) == 3 && s.Nullable {
			return nil
		}
		return g.drawNumber(s)
	case s.has("boolean"):
		vals = []any{false, true}
	case s.has("string"):
		vals = append(slices.Clone(s.Examples), g.validStrings(s)...)
	case s.Items != nil:
		return g.drawArray(s)
	case s.Values != nil:
		return g.drawMap(s)
	default:
		return "explore"
	}
	if s.Nullable {
		vals = append(vals, nil)
	}
	return vals[g.c.draw(len(vals))]
}

// drawArray draws 0, 1, a few or more items than the contract mentions anywhere.
func (g *generator) drawArray(s *shape) []any {
	n := pick(g.c, 1, 0, 2, 3, 12)
	out := make([]any, 0, n)
	for range n {
		out = append(out, g.drawNode(s.Items, nil))
	}
	return out
}

// mapKeys are keys of a map leaf (tags), plain first.
var mapKeys = []string{"explore", "order", "o'key", "ключ", "clé 日本", "emoji😀", "007", " spaced "}

// drawMap draws a map with 0, 1 or several entries.
func (g *generator) drawMap(s *shape) map[string]any {
	n := pick(g.c, 1, 0, 3, 12)
	out := make(map[string]any, n)
	for i := range n {
		k := mapKeys[g.c.draw(len(mapKeys))]
		if i > 0 {
			k += strconv.Itoa(i)
		}
		out[k] = g.validValue(s.Values)
	}
	return out
}

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
	s := g.con.schemas[g.con.ops[op]]
	d := drafted{doc: map[string]any{}}
	if s == nil {
		return d
	}
	d.doc, _ = g.drawNode(s, fixes).(map[string]any)
	share := mutationShare
	if op == "authorizations.capture" {
		share = 2 * mutationShare // the last step of an authorization's life: depth lost is little
	}
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

const (
	anyItem   itemPosition = iota // an item drawn among all
	firstItem                     // item 0
	laterItem                     // an item after the first (the first when there is one item)
)

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
				obj[seg] = g.drawNode(node, fixes)
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
