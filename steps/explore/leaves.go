package explore

import (
	"encoding/json"
	"math/big"
	"regexp/syntax"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Leaves: the valid values of one leaf, keyword by keyword, simplest
// first (a plain value, its bounds, the values real servers break on), and
// arrays and maps of them.

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
