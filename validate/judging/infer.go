package judging

import (
	"fmt"
	"strings"
)

// These helpers turn what a target was observed to send into profile
// values, for writing a profile of a target's choices.

// IDFormOf returns an id_form matching every given id remainder (what
// follows the prefix): the character classes seen (digits, upper and lower
// case letters) and the range of lengths, e.g. "[0-9A-Za-z]{21,22}". It
// returns "" for no remainders or any character outside [0-9A-Za-z] (which
// the spec does not allow).
func IDFormOf(rests ...string) string {
	var set charClasses
	minLen, maxLen := -1, 0
	for _, r := range rests {
		if r == "" {
			return ""
		}
		for _, c := range r {
			if !set.add(c) {
				return ""
			}
		}
		n := len(r)
		if minLen < 0 || n < minLen {
			minLen = n
		}
		maxLen = max(maxLen, n)
	}
	if minLen < 0 {
		return ""
	}
	if minLen == maxLen {
		return fmt.Sprintf("[%s]{%d}", set, minLen)
	}
	return fmt.Sprintf("[%s]{%d,%d}", set, minLen, maxLen)
}

// charClasses records which of the classes digits, upper and lower case
// letters a string holds, as a regular expression's set writes them.
type charClasses struct{ digit, upper, lower bool }

// add records r's class; false when r is none of the three.
func (c *charClasses) add(r rune) bool {
	switch {
	case '0' <= r && r <= '9':
		c.digit = true
	case 'A' <= r && r <= 'Z':
		c.upper = true
	case 'a' <= r && r <= 'z':
		c.lower = true
	default:
		return false
	}
	return true
}

// String writes the classes seen in set order: "0-9A-Za-z".
func (c charClasses) String() string {
	var b strings.Builder
	if c.digit {
		b.WriteString("0-9")
	}
	if c.upper {
		b.WriteString("A-Z")
	}
	if c.lower {
		b.WriteString("a-z")
	}
	return b.String()
}

// TimestampPrecisionOf returns the timestamp_precision of the given
// timestamps: their number of fractional digits when all agree, else 0
// (any). ok is false when a timestamp has no fractional seconds.
func TimestampPrecisionOf(timestamps ...string) (digits int, ok bool) {
	for i, ts := range timestamps {
		dot := strings.IndexByte(ts, '.')
		if dot < 0 {
			return 0, false
		}
		n := 0
		for j := dot + 1; j < len(ts) && '0' <= ts[j] && ts[j] <= '9'; j++ {
			n++
		}
		if n == 0 {
			return 0, false
		}
		if i == 0 {
			digits = n
		} else if n != digits {
			digits = 0
		}
	}
	return digits, len(timestamps) > 0
}
