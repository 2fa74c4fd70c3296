package validate

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/conform-kit/conform/validate/internal/jsondoc"
)

// Bounds on the text of a JSON number. Schema validation turns every number
// into an exact rational, and a rational of 1e999999 or of a number written
// with 500,000 digits costs tens of milliseconds to seconds of CPU each (and
// 1e999999999 crashes the schema library): a few kilobytes of them would hold
// a request for minutes. No field of the API needs more than 19 digits, so
// longer numbers, or exponents of four digits or more, are refused before
// schema validation with the rule RuleNumberSize.
const (
	maxNumberChars    = 40
	maxExponentDigits = 3
)

// numberSizeMessage words a RuleNumberSize violation.
var numberSizeMessage = "number is too long or its exponent too large (at most " + strconv.Itoa(maxNumberChars) + " characters and a " + strconv.Itoa(maxExponentDigits) + "-digit exponent)"

// RuleNumberSize is the Violation.Rule of a number too long, or with too large
// an exponent, to be validated.
const RuleNumberSize = "number_size"

// oversizedNumbers returns a violation for every number of doc (decoded with
// UseNumber) beyond the bounds above, in pointer order.
func oversizedNumbers(doc any) []Violation {
	var vs []Violation
	collectOversized(doc, "", &vs)
	return vs
}

// oversizedNumber reports whether a number's text is longer than
// maxNumberChars or has an exponent of more than maxExponentDigits digits
// (leading zeros aside).
func oversizedNumber(s string) bool {
	if len(s) > maxNumberChars {
		return true
	}
	i := strings.IndexAny(s, "eE")
	if i < 0 {
		return false
	}
	exp := strings.TrimLeft(strings.TrimLeft(s[i+1:], "+-"), "0")
	return len(exp) > maxExponentDigits
}

// collectOversized appends a violation for every oversized number in doc,
// in pointer order.
func collectOversized(doc any, pointer string, vs *[]Violation) {
	switch v := doc.(type) {
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			collectOversized(v[k], pointer+"/"+jsondoc.Escape(k), vs)
		}
	case []any:
		for i, c := range v {
			collectOversized(c, pointer+"/"+strconv.Itoa(i), vs)
		}
	case json.Number:
		if oversizedNumber(string(v)) {
			*vs = append(*vs, Violation{
				Pointer: pointer, Rule: RuleNumberSize,
				Message: numberSizeMessage,
			})
		}
	}
}
