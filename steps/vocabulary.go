package steps

import (
	"regexp"
	"strings"
)

// StepGroup is the steps of one vocabulary file, each as a feature writes
// it: "…" for a quoted text, N for a whole number, (a|b) for a choice.
type StepGroup struct {
	Name  string
	Steps []string
}

// Vocabulary is every step a feature may use, by vocabulary file, in the
// order they are matched. Any step may end " (assumed: KEY)", which judges
// its checks under that profile key (WARN rather than FAIL).
func Vocabulary() []StepGroup {
	var out []StepGroup
	for _, g := range stepGroups() {
		sg := StepGroup{Name: g.name}
		for _, d := range g.defs {
			sg.Steps = append(sg.Steps, readableStep(d.pattern))
		}
		out = append(out, sg)
	}
	return out
}

// readableStep renders a step pattern as a feature writes it.
func readableStep(pattern string) string {
	s := strings.NewReplacer(`"([^"]*)"`, `"…"`, `(-?\d+)`, "N", `(\d+)`, "N", `([a-z ]+)`, "WORDS", `([a-z_]+)`, "NAME").Replace(pattern)
	s = optionalLetter.ReplaceAllString(s, "($1)")
	return escaped.ReplaceAllString(s, "$1")
}

var (
	optionalLetter = regexp.MustCompile(`([a-z])\?`)
	escaped        = regexp.MustCompile(`\\(.)`)
	choice         = regexp.MustCompile(`\(([^()]*\|[^()]*)\)`)
	quoted         = regexp.MustCompile(`"[^"]*"`)
	number         = regexp.MustCompile(`(^|[^A-Za-z0-9_])-?\d+\b`)
)

// stepForms are the ways a step pattern may be written with each choice
// made and each optional letter present or not, placeholders for quoted
// texts and numbers ("…", N), at most limit of them.
func stepForms(pattern string, limit int) []string {
	forms := []string{readableStep(pattern)}
	for {
		var next []string
		expanded := false
		for _, f := range forms {
			loc := choice.FindStringSubmatchIndex(f)
			if loc == nil {
				loc = optionalLetterForm.FindStringSubmatchIndex(f)
				if loc == nil {
					next = append(next, f)
					continue
				}
			}
			expanded = true
			for _, alt := range strings.Split(f[loc[2]:loc[3]], "|") {
				next = append(next, f[:loc[0]]+alt+f[loc[1]:])
			}
			if f[loc[0]] == '(' && !strings.Contains(f[loc[2]:loc[3]], "|") {
				next = append(next, f[:loc[0]]+f[loc[1]:])
			}
		}
		if len(next) > limit {
			next = next[:limit]
		}
		forms = next
		if !expanded {
			return forms
		}
	}
}

// optionalLetterForm is the "(n)" readableStep writes for an optional letter.
var optionalLetterForm = regexp.MustCompile(`\(([a-z])\)`)

// normalizedStep is a step's text with its quoted texts and numbers
// replaced by the placeholders of stepForms.
func normalizedStep(text string) string {
	text = quoted.ReplaceAllString(text, `"…"`)
	return number.ReplaceAllString(text, "${1}N")
}

// nearestStep is the step of defs a step text nearest resembles, as a
// feature writes it, when one is near enough to be a slip; "" otherwise.
func nearestStep(text string, defs []stepDef) string {
	want := normalizedStep(text)
	best, bestD := "", -1
	for _, d := range defs {
		for _, form := range stepForms(d.pattern, 64) {
			if dist := levenshtein(want, form); bestD < 0 || dist < bestD {
				best, bestD = readableStep(d.pattern), dist
			}
		}
	}
	if bestD < 0 || bestD > max(4, len(want)/5) {
		return ""
	}
	return best
}

// levenshtein is the edit distance of a and b, by byte.
func levenshtein(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}
