package validate

import "strings"

// Numbers are judged on their text, exactly: no float rounding, so that
// 2^53+1 and 19-digit integers compare with the bounds as jsonschema's
// rationals do.

// decimal is a number's text split into its significant digits (no leading
// or trailing zeros; empty for zero), the power of ten they are scaled by,
// and the sign.
type decimal struct {
	digits string
	exp    int
	neg    bool
}

// parseDecimal reads a number's text, already checked against the grammar.
// Exponents saturate far beyond any bound (oversized numbers never get
// here).
func parseDecimal(s string) decimal {
	var d decimal
	i := 0
	if s[0] == '-' {
		d.neg = true
		i++
	}
	start := i
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	intPart := s[start:i]
	frac := ""
	if i < len(s) && s[i] == '.' {
		j := i + 1
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		frac = s[i+1 : j]
		i = j
	}
	exp := 0
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		eneg := false
		if s[i] == '+' || s[i] == '-' {
			eneg = s[i] == '-'
			i++
		}
		for ; i < len(s); i++ {
			if exp < 1<<20 {
				exp = exp*10 + int(s[i]-'0')
			}
		}
		if eneg {
			exp = -exp
		}
	}
	// The digits are intPart followed by frac; strip leading zeros, which
	// may run from intPart into frac.
	exp -= len(frac)
	digits := intPart + frac
	if frac == "" {
		digits = intPart
	}
	k := 0
	for k < len(digits) && digits[k] == '0' {
		k++
	}
	digits = digits[k:]
	for len(digits) > 0 && digits[len(digits)-1] == '0' {
		digits = digits[:len(digits)-1]
		exp++
	}
	if digits == "" {
		return decimal{}
	}
	d.digits, d.exp = digits, exp
	return d
}

// isIntegral reports whether a number's text is an integer (1.0 and 1e3
// are, as JSON Schema counts them).
func isIntegral(s string) bool {
	d := parseDecimal(s)
	return d.digits == "" || d.exp >= 0
}

// compareDecimal compares two numbers: -1, 0 or +1.
func compareDecimal(a, b decimal) int {
	switch {
	case a.digits == "" && b.digits == "":
		return 0
	case a.digits == "":
		if b.neg {
			return 1
		}
		return -1
	case b.digits == "":
		if a.neg {
			return -1
		}
		return 1
	case a.neg != b.neg:
		if a.neg {
			return -1
		}
		return 1
	}
	c := compareMagnitude(a, b)
	if a.neg {
		return -c
	}
	return c
}

// compareMagnitude compares |a| with |b|, neither zero.
func compareMagnitude(a, b decimal) int {
	// The position of the leading digit decides first.
	if la, lb := len(a.digits)+a.exp, len(b.digits)+b.exp; la != lb {
		if la < lb {
			return -1
		}
		return 1
	}
	// Then the digits, from the leading one; neither has trailing zeros,
	// so with one a prefix of the other the longer is the larger.
	n := min(len(a.digits), len(b.digits))
	if c := strings.Compare(a.digits[:n], b.digits[:n]); c != 0 {
		return c
	}
	switch {
	case len(a.digits) < len(b.digits):
		return -1
	case len(a.digits) > len(b.digits):
		return 1
	}
	return 0
}

// sizes appends a number_size violation for every oversized number of the
// value at i, in document order, and returns where the value ends.
func (p *pass) sizes(i int, out *[]Violation) int {
	switch p.kindAt(i) {
	case tNumber:
		end := p.number(i)
		if oversizedNumber(bytesString(p.data[i:end])) && len(*out) < MaxViolations {
			ptr := p.pointer("", false)
			*out = append(*out, Violation{Pointer: string(p.arena[ptr.off : ptr.off+ptr.n]), Rule: RuleNumberSize, Message: numberSizeMessage})
		} else if oversizedNumber(bytesString(p.data[i:end])) {
			p.omitted++
		}
		return end
	case tObject:
		i = p.ws(i + 1)
		if p.data[i] == '}' {
			return i + 1
		}
		for {
			key, kend, _ := p.key(i)
			i = p.ws(p.ws(kend) + 1)
			p.segs = append(p.segs, seg{key: key, isKey: true})
			i = p.ws(p.sizes(i, out))
			p.segs = p.segs[:len(p.segs)-1]
			if p.data[i] == '}' {
				return i + 1
			}
			i = p.ws(i + 1)
		}
	case tArray:
		i = p.ws(i + 1)
		if p.data[i] == ']' {
			return i + 1
		}
		for n := 0; ; n++ {
			p.segs = append(p.segs, seg{index: n})
			i = p.ws(p.sizes(i, out))
			p.segs = p.segs[:len(p.segs)-1]
			if p.data[i] == ']' {
				return i + 1
			}
			i = p.ws(i + 1)
		}
	}
	return p.skip(i)
}
