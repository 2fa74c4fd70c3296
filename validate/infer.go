package validate

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
	var digit, upper, lower bool
	minLen, maxLen := -1, 0
	for _, r := range rests {
		if r == "" {
			return ""
		}
		for _, c := range r {
			switch {
			case '0' <= c && c <= '9':
				digit = true
			case 'A' <= c && c <= 'Z':
				upper = true
			case 'a' <= c && c <= 'z':
				lower = true
			default:
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
	var set strings.Builder
	set.WriteString("[")
	if digit {
		set.WriteString("0-9")
	}
	if upper {
		set.WriteString("A-Z")
	}
	if lower {
		set.WriteString("a-z")
	}
	set.WriteString("]")
	if minLen == maxLen {
		return fmt.Sprintf("%s{%d}", set.String(), minLen)
	}
	return fmt.Sprintf("%s{%d,%d}", set.String(), minLen, maxLen)
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
