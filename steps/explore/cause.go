package explore

import (
	"regexp"
	"strings"
	"unicode"
)

// A finding's cause: the check, its basis and its message with what varies
// from one sequence to the next (the request, the operation, the roles,
// ids, numbers and generated text) replaced by its kind. Sequences failing
// with the same cause are one finding: a bug met by seventeen sequences is
// one finding counting seventeen, listing its operations and its first
// examples, shrunk once. The message is normalised whatever check made it,
// so a check added later groups without knowing of this.

// maxExamples is how many failing sequences a finding lists as examples.
const maxExamples = 5

// Example is one sequence that failed with a finding's cause, as it failed
// before shrinking.
type Example struct {
	Sequence int    `json:"sequence"` // the sequence's index under the run's seed
	Op       string `json:"op"`       // the operation it failed on
	Message  string `json:"message"`
}

// requestLine matches a request as messages write it: a method and a path
// (with its query).
var requestLine = regexp.MustCompile(`\b(GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS) /[^\s;:,)]*`)

// normalise is a finding's message with the request, the operation and the
// roles of st replaced by their kinds, then every quoted string, id-like
// word and number by its kind ({text}, {id}, {number}); the spec's
// section numbers (§4.1) stay.
func normalise(msg string, st Step) string {
	s := requestLine.ReplaceAllString(msg, "{request}")
	if st.Op != "" {
		s = replaceWord(s, st.Op, "{operation}")
	}
	for _, role := range []string{st.Save, st.Of} {
		if kind, ok := roleKind(role); ok {
			s = replaceWord(s, role, kind)
		}
	}
	return kinds(s)
}

// roleKind is the kind of a role with a letter ("card b" → "card").
func roleKind(role string) (string, bool) {
	i := strings.LastIndexByte(role, ' ')
	if i < 0 || len(role)-i != 2 || role[i+1] < 'a' || role[i+1] > 'z' {
		return "", false
	}
	return role[:i], true
}

// replaceWord replaces old in s where it stands as a word (not inside a
// longer word).
func replaceWord(s, old, repl string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, old)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		end := i + len(old)
		if (i > 0 && wordByte(s[i-1])) || (end < len(s) && wordByte(s[end])) {
			b.WriteString(s[:end])
			s = s[end:]
			continue
		}
		b.WriteString(s[:i] + repl)
		s = s[end:]
	}
}

func wordByte(c byte) bool {
	return c == '_' || c == '.' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// kinds replaces, left to right, each double-quoted string by {id} or
// {text}, each word holding letters and digits (10 characters or more) by
// {id}, and each number (a sign and a fraction included) by {number},
// except a section number after §.
func kinds(s string) string {
	var b strings.Builder
	rs := []rune(s)
	for i := 0; i < len(rs); {
		c := rs[i]
		switch {
		case c == '"':
			j := i + 1
			for j < len(rs) && rs[j] != '"' {
				if rs[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(rs) { // unterminated: the rest as it is
				b.WriteString(string(rs[i:]))
				return b.String()
			}
			if idLike(string(rs[i+1 : j])) {
				b.WriteString("{id}")
			} else {
				b.WriteString("{text}")
			}
			i = j + 1
		case c == '§':
			j := i + 1
			for j < len(rs) && (unicode.IsDigit(rs[j]) || rs[j] == '.' && j+1 < len(rs) && unicode.IsDigit(rs[j+1])) {
				j++
			}
			b.WriteString(string(rs[i:j]))
			i = j
		case isWordRune(c):
			j := i
			for j < len(rs) && isWordRune(rs[j]) {
				j++
			}
			word := string(rs[i:j])
			switch {
			case allDigits(word):
				// A number, with its fraction; a sign written before it.
				if i > 0 && rs[i-1] == '-' && (i == 1 || !isWordRune(rs[i-2])) {
					trimMinus(&b)
				}
				if j+1 < len(rs) && rs[j] == '.' && unicode.IsDigit(rs[j+1]) {
					for j++; j < len(rs) && unicode.IsDigit(rs[j]); j++ {
					}
				}
				b.WriteString("{number}")
			case idLike(word):
				b.WriteString("{id}")
			default:
				b.WriteString(word)
			}
			i = j
		default:
			b.WriteRune(c)
			i++
		}
	}
	return b.String()
}

// trimMinus drops the minus sign just written, which a number takes in.
func trimMinus(b *strings.Builder) {
	s := b.String()
	b.Reset()
	b.WriteString(strings.TrimSuffix(s, "-"))
}

func isWordRune(c rune) bool {
	return c == '_' || c < 128 && (unicode.IsLetter(c) || unicode.IsDigit(c))
}

// idLike reports whether a word is an id a server or the run generated:
// 10 characters or more of letters, digits, '_' and '-', a letter and a
// digit among them.
func idLike(s string) bool {
	if len(s) < 10 {
		return false
	}
	letter, digit := false, false
	for _, c := range s {
		switch {
		case c >= '0' && c <= '9':
			digit = true
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
			letter = true
		case c == '_' || c == '-':
		default:
			return false
		}
	}
	return letter && digit
}
