package validate

import (
	"regexp"
	"strings"
	"testing"
)

// patternsOf collects every "pattern" of the decoded schema documents.
func patternsOf(doc any, out map[string]bool) {
	switch x := doc.(type) {
	case map[string]any:
		for k, v := range x {
			if s, ok := v.(string); ok && k == "pattern" {
				out[s] = true
			}
			patternsOf(v, out)
		}
	case []any:
		for _, v := range x {
			patternsOf(v, out)
		}
	}
}

// patternProbes are strings around each pattern's edges: empty, short,
// long, prefixes, other scripts, newlines.
func patternProbes(pattern string) []string {
	probes := []string{"", "a", "A", "0", "12", "123", "1234", "12345", "1234567", "12345678901", "123456789012", "1234567890123456789",
		"12345678901234567890", "USD", "usd", "US", "USA", "http://x", "https://x", "é", "日本", "x\n", "\n", "0123456789abcdefghijkl",
		"0123456789abcdefghijk", "0123456789abcdefghijklm", "0123456789abcdefghij-l"}
	// Prefixes the pattern names literally, with id tails of several lengths.
	lit := strings.TrimPrefix(pattern, "^")
	if i := strings.IndexAny(lit, "[(\\.?*+{$"); i > 0 {
		p := lit[:i]
		for _, tail := range []string{"", "0", "0123456789abcdefghijkl", "0123456789abcdefghijk", "0123456789abcdefghijkl0", "0123456789abcdefghij_l", "0123456789abcdefghijkl\n"} {
			probes = append(probes, p+tail, strings.ToLower(p)+tail)
		}
	}
	return probes
}

// TestSimplePatternsAgreeWithRegexp compares the loop matcher with regexp
// on every pattern of the schemas, and makes sure the id patterns use it.
func TestSimplePatternsAgreeWithRegexp(t *testing.T) {
	v, err := New()
	if err != nil {
		t.Fatal(err)
	}
	patterns := map[string]bool{"^[0-9]{3,4}$": true, "^PI[0-9A-Za-z]+$": true, "^a?$": true, "^[a-c]*$": true, "^x[0-9]{2}y$": true,
		"^([0-9]{3}|[0-9]{5})$": true, "^(ab|[0-9]{2,3}|c+)$": true}
	for _, doc := range v.docs {
		patternsOf(doc, patterns)
	}
	simple := 0
	for p := range patterns {
		m, ok := simplePattern(p)
		if !ok {
			continue
		}
		simple++
		re := regexp.MustCompile(p)
		for _, s := range patternProbes(p) {
			if got, want := m.MatchString(s), re.MatchString(s); got != want {
				t.Errorf("pattern %q on %q: loop %v, regexp %v", p, s, got, want)
			}
		}
	}
	if simple < 10 {
		t.Errorf("only %d patterns use the loop matcher", simple)
	}
	for _, p := range []string{"^https?://", "^(a+b|c)$", "^[a-z]+[0-9]$", "(?i)^ab$", "^(a|b)c$"} {
		if _, ok := simplePattern(p); ok {
			t.Errorf("pattern %q taken by the loop matcher, want regexp", p)
		}
	}
}

// FuzzSimplePattern compares the loop matcher with regexp on arbitrary strings.
func FuzzSimplePattern(f *testing.F) {
	for _, s := range patternProbes("^PI[0-9A-Za-z]{22}$") {
		f.Add(s)
	}
	patterns := []string{"^PI[0-9A-Za-z]{22}$", "^[0-9]{3,4}$", "^EL_[0-9A-Za-z]+$", "^[A-Z]{3}$", "^[0-9]{12,19}$", "^([0-9]{3}|[0-9]{5}|[0-9]{7}|[0-9]{11})$"}
	f.Fuzz(func(t *testing.T, s string) {
		for _, p := range patterns {
			m, _ := simplePattern(p)
			if m.MatchString(s) != regexp.MustCompile(p).MatchString(s) {
				t.Fatalf("pattern %q on %q: loop and regexp disagree", p, s)
			}
		}
	})
}
