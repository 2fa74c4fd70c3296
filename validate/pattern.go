package validate

import (
	"regexp"
	"regexp/syntax"
	"unicode/utf8"
)

// A matcher tests a string against a schema pattern. Most patterns of the
// contract are anchored runs of character classes ("^PI[0-9A-Za-z]{22}$",
// "^[0-9]{3,4}$"); those are matched by a small loop, several times faster
// than regexp. Any other pattern uses regexp. pattern_internal_test.go
// compares the two on every pattern of the schemas.
type matcher interface {
	MatchString(s string) bool
}

// compilePattern returns the matcher of an ECMA/Go pattern, or an error
// when regexp cannot compile it.
func compilePattern(pattern string) (matcher, error) {
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, err
	}
	if m, ok := simplePattern(pattern); ok {
		return m, nil
	}
	return re, nil
}

// runMatcher matches ^item item … item$ where each item is a rune class
// repeated between min and max times. Only the last item may vary in
// length, so a greedy left-to-right scan is exact.
type runMatcher []runItem

type runItem struct {
	ranges   []rune // pairs lo, hi as in syntax.Regexp.Rune
	min, max int    // max -1: unbounded
}

func (it runItem) has(r rune) bool {
	for i := 0; i+1 < len(it.ranges); i += 2 {
		if r >= it.ranges[i] && r <= it.ranges[i+1] {
			return true
		}
	}
	return false
}

func (m runMatcher) MatchString(s string) bool {
	pos := 0
	for _, it := range m {
		n := 0
		for (it.max < 0 || n < it.max) && pos < len(s) {
			r, size := rune(s[pos]), 1
			if r >= utf8.RuneSelf {
				r, size = utf8.DecodeRuneInString(s[pos:])
			}
			if !it.has(r) {
				break
			}
			pos += size
			n++
		}
		if n < it.min {
			return false
		}
	}
	return pos == len(s)
}

// simplePattern recognises ^…$ patterns made of literals and repeated
// character classes, or an alternation of such sequences.
func simplePattern(pattern string) (matcher, bool) {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil || re.Op != syntax.OpConcat || len(re.Sub) < 3 {
		return nil, false
	}
	subs := re.Sub
	if subs[0].Op != syntax.OpBeginText || subs[len(subs)-1].Op != syntax.OpEndText {
		return nil, false
	}
	mid := subs[1 : len(subs)-1]
	if len(mid) == 1 && mid[0].Op == syntax.OpCapture {
		mid = mid[0].Sub
	}
	if len(mid) == 1 && mid[0].Op == syntax.OpAlternate {
		var alt altMatcher
		for _, a := range mid[0].Sub {
			branch := []*syntax.Regexp{a}
			if a.Op == syntax.OpConcat {
				branch = a.Sub
			}
			m, ok := runItems(branch)
			if !ok {
				return nil, false
			}
			alt = append(alt, m)
		}
		return alt, len(alt) > 0
	}
	m, ok := runItems(mid)
	return m, ok
}

// altMatcher matches ^(a|b|…)$ where each branch is a runMatcher.
type altMatcher []runMatcher

func (m altMatcher) MatchString(s string) bool {
	for _, b := range m {
		if b.MatchString(s) {
			return true
		}
	}
	return false
}

// runItems builds the runMatcher of a sequence of literals and repeated
// character classes.
func runItems(subs []*syntax.Regexp) (runMatcher, bool) {
	var m runMatcher
	for _, sub := range subs {
		if sub.Flags&syntax.FoldCase != 0 {
			return nil, false
		}
		switch sub.Op {
		case syntax.OpLiteral:
			for _, r := range sub.Rune {
				m = append(m, runItem{ranges: []rune{r, r}, min: 1, max: 1})
			}
		case syntax.OpCharClass:
			m = append(m, runItem{ranges: sub.Rune, min: 1, max: 1})
		case syntax.OpRepeat, syntax.OpPlus, syntax.OpStar, syntax.OpQuest:
			if len(sub.Sub) != 1 || sub.Sub[0].Op != syntax.OpCharClass || sub.Sub[0].Flags&syntax.FoldCase != 0 {
				return nil, false
			}
			it := runItem{ranges: sub.Sub[0].Rune}
			switch sub.Op {
			case syntax.OpRepeat:
				it.min, it.max = sub.Min, sub.Max
			case syntax.OpPlus:
				it.min, it.max = 1, -1
			case syntax.OpStar:
				it.min, it.max = 0, -1
			default:
				it.min, it.max = 0, 1
			}
			m = append(m, it)
		default:
			return nil, false
		}
	}
	if len(m) == 0 {
		return nil, false
	}
	for _, it := range m[:len(m)-1] {
		if it.min != it.max {
			return nil, false // a variable run before another item would need backtracking
		}
	}
	return m, len(m) > 0
}
