package validate

import (
	"strconv"
	"unicode/utf8"
)

// The scalar keywords of a node: a string's format, lengths and pattern, a
// number's bounds.

func (p *pass) checkString(n *fnode, s string) bool {
	ok := true
	if n.format != nil && !n.format(s) {
		ok = false
		if p.collect {
			p.emitMsg("format", "", false, quote(s), " is not valid ", n.formatMsg)
		}
	}
	if n.minLen >= 0 || n.maxLen >= 0 {
		l := utf8.RuneCountInString(s)
		if n.minLen >= 0 && l < n.minLen {
			ok = false
			if p.collect {
				p.emitMsg("minLength", "", false, "length must be >= ", strconv.Itoa(n.minLen), ", but got ", strconv.Itoa(l))
			}
		}
		if n.maxLen >= 0 && l > n.maxLen {
			ok = false
			if p.collect {
				p.emitMsg("maxLength", "", false, "length must be <= ", strconv.Itoa(n.maxLen), ", but got ", strconv.Itoa(l))
			}
		}
	}
	if n.pattern != nil && !n.pattern.MatchString(s) {
		ok = false
		if p.collect {
			p.emit("pattern", n.patternMsg, nil)
		}
	}
	return ok
}

func (p *pass) checkNumber(n *fnode, text string) bool {
	if len(n.bounds) == 0 {
		return true
	}
	ok := true
	d := parseDecimal(text)
	for i := range n.bounds {
		b := &n.bounds[i]
		if !b.fails(compareDecimal(d, b.dec)) {
			continue
		}
		ok = false
		if p.collect {
			p.emitMsg(b.rule, "", false, "must be ", b.op, " ", b.text, " but found ", text)
		}
	}
	return ok
}
