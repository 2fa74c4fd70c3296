package reference

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/conform-kit/conform/validate"
)

// Bounds on the text of a JSON number in a request body. Schema validation
// turns every number into an exact rational, and a rational of 1e999999 or of
// a number written with 500,000 digits costs tens of milliseconds to seconds
// of CPU each: a few kilobytes of them would hold a request for minutes. No
// field of the API needs more than 19 digits, so longer numbers, or exponents
// of four digits or more, are refused before validation.
const (
	maxNumberChars    = 40
	maxExponentDigits = 3
)

// screenNumbers refuses a JSON body holding a number beyond the bounds above
// with 422 INVALID_FIELD, one violation per such number at its pointer. It is
// a byte scan on the hot path; only a body that has such a number is decoded.
// A body that is not JSON passes, for the validator to report.
func screenNumbers(body []byte) error {
	if !hasOversizedNumber(body) {
		return nil
	}
	var doc any
	if decodeNumbers(body, &doc) != nil {
		return nil
	}
	if _, scalar := doc.(json.Number); scalar {
		return nil // the wrong type at the top level: the validator's 400
	}
	var vs []validate.Violation
	collectOversized(doc, "", &vs)
	if len(vs) == 0 {
		return nil
	}
	return &validate.Error{Code: validate.CodeInvalidField, Violations: vs}
}

// hasOversizedNumber scans body for a number token outside strings that
// oversizedNumber refuses.
func hasOversizedNumber(body []byte) bool {
	inString := false
	for i := 0; i < len(body); i++ {
		c := body[i]
		switch {
		case inString:
			if c == '\\' {
				i++
			} else if c == '"' {
				inString = false
			}
		case c == '"':
			inString = true
		case c == '-' || c >= '0' && c <= '9':
			j := i
			for j < len(body) && isNumberByte(body[j]) {
				j++
			}
			if oversizedNumber(string(body[i:j])) {
				return true
			}
			i = j - 1
		}
	}
	return false
}

func isNumberByte(c byte) bool {
	return c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'
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
func collectOversized(doc any, pointer string, vs *[]validate.Violation) {
	switch v := doc.(type) {
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			collectOversized(v[k], pointer+"/"+escapePointer(k), vs)
		}
	case []any:
		for i, c := range v {
			collectOversized(c, pointer+"/"+strconv.Itoa(i), vs)
		}
	case json.Number:
		if oversizedNumber(string(v)) {
			*vs = append(*vs, validate.Violation{
				Pointer: pointer, Rule: "number_size",
				Message: "number is too long or its exponent too large (at most " + strconv.Itoa(maxNumberChars) + " characters and a " + strconv.Itoa(maxExponentDigits) + "-digit exponent)",
			})
		}
	}
}

// escapePointer escapes a key as a JSON pointer reference token (RFC 6901).
func escapePointer(k string) string {
	return strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
}
