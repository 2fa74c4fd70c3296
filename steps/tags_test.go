package steps

import (
	"errors"
	"strings"
	"testing"
)

func TestTagExpressions(t *testing.T) {
	transfer := []string{"@transfers", "@spec-4.2"}
	assumedTransfer := []string{"@transfers", "@assumed"}
	webhook := []string{"@webhooks", "@spec-6"}
	tests := []struct {
		expr string
		want [3]bool // transfer, assumedTransfer, webhook
	}{
		{"", [3]bool{true, true, true}},
		{"@transfers", [3]bool{true, true, false}},
		{"transfers", [3]bool{true, true, false}},
		{"not @assumed", [3]bool{true, false, true}},
		{"NOT @assumed", [3]bool{true, false, true}},
		{"~@assumed", [3]bool{true, false, true}},
		{"@transfers and not @assumed", [3]bool{true, false, false}},
		{"@transfers && ~@assumed", [3]bool{true, false, false}},
		{"@webhooks or @assumed", [3]bool{false, true, true}},
		{"@webhooks || @assumed", [3]bool{false, true, true}},
		{"@webhooks,@assumed", [3]bool{false, true, true}},
		{"@transfers && @assumed,@spec-4.2", [3]bool{true, true, false}},     // godog: , binds tighter than &&
		{"@webhooks or @transfers and @assumed", [3]bool{false, true, true}}, // cucumber: and binds tighter than or
		{"(@webhooks or @transfers) and not @assumed", [3]bool{true, false, true}},
		{"not (@webhooks or @assumed)", [3]bool{true, false, false}},
		{"not not @webhooks", [3]bool{false, false, true}},
	}
	for _, tt := range tests {
		e, err := parseTags(tt.expr)
		if err != nil {
			t.Errorf("parseTags(%q): %v", tt.expr, err)
			continue
		}
		for i, tags := range [][]string{transfer, assumedTransfer, webhook} {
			if got := e.match(tags); got != tt.want[i] {
				t.Errorf("%q matches %v = %v, want %v", tt.expr, tags, got, tt.want[i])
			}
		}
	}
}

// TestBadTagExpressions: an error naming the problem, never a panic.
func TestBadTagExpressions(t *testing.T) {
	tests := map[string]string{
		"@transfers &&":     `expected a tag after "&&"`,
		"@transfers and":    `expected a tag after "and"`,
		"not":               `expected a tag after "not"`,
		"~":                 `expected a tag after "~"`,
		"(@a or @b":         `missing ")"`,
		"@a)":               `unexpected ")"`,
		"@a @b":             `unexpected "@b"`,
		"and @a":            `expected a tag, found "and"`,
		",@a":               `expected a tag, found ","`,
		"@a & @b":           `unexpected "&"`,
		"!@a":               `unexpected "!"`,
		"@":                 "an empty tag name",
		"@a || || @b":       `expected a tag, found "||"`,
		"(@a and (@b or))":  `expected a tag, found ")"`,
		"@a and not (@b))":  `unexpected ")"`,
		"@transfers &&&&@x": `expected a tag, found "&&"`,
	}
	for expr, want := range tests {
		_, err := parseTags(expr)
		if !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), want) {
			t.Errorf("parseTags(%q) = %v, want a usage error containing %q", expr, err, want)
		}
	}
}

func FuzzParseTags(f *testing.F) {
	for _, s := range []string{"@a and not (@b or @c)", "@a && ~@b,@c", "((", "~~@a", "@a ||"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, expr string) {
		e, err := parseTags(expr)
		if err == nil {
			e.match([]string{"@a", "@b"})
		}
	})
}

// TestGodogFilterAgrees: the filter handed to godog selects exactly what the
// expression selects, on every combination of four tags.
func TestGodogFilterAgrees(t *testing.T) {
	names := []string{"@a", "@b", "@c", "@d"}
	for _, expr := range []string{
		"@a", "not @a", "@a and not @b", "@a or @b and @c", "not (@a or (@b and not @c))",
		"(@a or @b) and (@c or @d)", "(@a and @b) or (@c and @d)", "@a && ~@b,@c", "not not @d",
	} {
		e, err := parseTags(expr)
		if err != nil {
			t.Fatal(err)
		}
		filter, ok := e.godogFilter()
		if !ok {
			t.Fatalf("%q: no godog filter", expr)
		}
		g, err := parseTags(filter)
		if err != nil {
			t.Fatalf("%q: godog filter %q does not parse: %v", expr, filter, err)
		}
		for mask := range 16 {
			var tags []string
			for i, n := range names {
				if mask&(1<<i) != 0 {
					tags = append(tags, n)
				}
			}
			if e.match(tags) != g.match(tags) || e.match(tags) != godogMatch(filter, tags) {
				t.Errorf("%q and its godog filter %q disagree on %v", expr, filter, tags)
			}
		}
	}
}

// godogMatch is godog's own filter semantics (clauses joined by &&, literals by ",").
func godogMatch(filter string, tags []string) bool {
	has := func(t string) bool {
		for _, x := range tags {
			if x == t {
				return true
			}
		}
		return false
	}
	for _, clause := range strings.Split(filter, "&&") {
		ok := false
		for _, lit := range strings.Split(clause, ",") {
			if neg, found := strings.CutPrefix(lit, "~"); found {
				ok = ok || !has(neg)
			} else {
				ok = ok || has(lit)
			}
		}
		if !ok {
			return false
		}
	}
	return true
}
