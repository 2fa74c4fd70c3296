package validate

import (
	"slices"
	"strconv"
	"strings"
)

// The violations of the collecting run: each leaf recorded with its pointer
// and message in one arena, then built into an *Error as violations
// (errors.go) builds one.

// passMark is where the collected violations stood, to go back to.
type passMark struct{ out, arena, omitted, leaves, typeHere int }

func (p *pass) mark() passMark {
	return passMark{len(p.out), len(p.arena), p.omitted, p.leaves, p.typeHere}
}

func (p *pass) restore(m passMark) {
	clear(p.out[m.out:])
	p.out, p.arena = p.out[:m.out], p.arena[:m.arena]
	p.omitted, p.leaves, p.typeHere = m.omitted, m.leaves, m.typeHere
}

// emit records one leaf at the value at hand, with a message fixed by the
// schema (for a type failure: the value's type, names the expected ones).
func (p *pass) emit(rule, msg string, names []string) {
	if rule == "type" && len(p.segs) == p.anyDepth {
		p.typeHere++
	}
	before := len(p.out)
	p.emitMsg(rule, "", false, msg)
	if names != nil && len(p.out) > before {
		p.out[before].names = names
	}
}

// emitMsg records one leaf at the value at hand, with last appended to its
// pointer when not empty, and the message parts joined. Beyond the cap it
// only counts.
func (p *pass) emitMsg(rule, last string, hasLast bool, parts ...string) {
	p.leaves++
	if len(p.out) >= MaxViolations {
		p.omitted++
		return
	}
	l := pleaf{rule: rule, ptr: p.pointer(last, hasLast)}
	l.msg.off = int32(len(p.arena))
	for _, s := range parts {
		p.arena = append(p.arena, s...)
	}
	l.msg.n = int32(len(p.arena)) - l.msg.off
	p.out = append(p.out, l)
}

// pointer appends the JSON pointer of the value at hand to the arena, with
// last as one more (escaped) segment when not empty.
func (p *pass) pointer(last string, hasLast bool) span {
	off := len(p.arena)
	for _, s := range p.segs {
		p.arena = append(p.arena, '/')
		if s.isKey {
			p.arena = appendEscaped(p.arena, s.key)
		} else {
			p.arena = strconv.AppendInt(p.arena, int64(s.index), 10)
		}
	}
	if hasLast {
		p.arena = append(p.arena, '/')
		p.arena = append(p.arena, last...)
	}
	return span{int32(off), int32(len(p.arena) - off)}
}

// appendEscaped appends a pointer segment, "~" and "/" escaped.
func appendEscaped(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '~':
			b = append(b, '~', '0')
		case '/':
			b = append(b, '~', '1')
		default:
			b = append(b, s[i])
		}
	}
	return b
}

// violations builds the error of the collected violations as violations
// (errors.go) builds them: type failures merged by pointer, sorted,
// duplicates dropped. Their strings share one copy of the arena.
func (p *pass) violations() *Error {
	// A small error is one allocation: the error, its violations and the
	// text of their pointers and messages together.
	var box *smallError
	var text string
	if len(p.out) <= len(box.vs) && len(p.arena) <= len(box.text) {
		box = new(smallError)
		copy(box.text[:], p.arena)
		text = bytesString(box.text[:len(p.arena)])
	} else {
		text = string(p.arena)
	}
	at := func(s span) string { return text[s.off : s.off+s.n] }
	// Type failures at one pointer merge into the first, with every name.
	leaves := p.out
	var merged []pleaf
	for i, l := range leaves {
		if l.rule != "type" || l.names == nil {
			continue
		}
		first := true
		for j := range merged {
			if at(merged[j].ptr) == at(l.ptr) {
				merged[j].names = append(merged[j].names, l.names...)
				first = false
				break
			}
		}
		if first {
			l.names = slices.Clone(l.names)
			merged = append(merged, l)
		}
		leaves[i].rule = "" // taken
	}
	// Sorted as newError sorts (all are in the body), through an index of
	// the leaves, then built once.
	type item struct {
		ptr, rule, msg string
	}
	var small [16]item
	items := small[:0]
	for _, l := range leaves {
		if l.rule != "" {
			items = append(items, item{at(l.ptr), l.rule, at(l.msg)})
		}
	}
	for _, t := range merged {
		slices.Sort(t.names)
		items = append(items, item{at(t.ptr), "type", typeMessage(slices.Compact(t.names), at(t.msg))})
	}
	slices.SortFunc(items, func(a, b item) int {
		if c := strings.Compare(a.ptr, b.ptr); c != 0 {
			return c
		}
		if c := strings.Compare(a.rule, b.rule); c != 0 {
			return c
		}
		return strings.Compare(a.msg, b.msg)
	})
	items = slices.Compact(items)
	var e *Error
	var out []Violation
	if box != nil && len(items) <= len(box.vs) {
		e, out = &box.err, box.vs[:len(items):len(items)]
	} else {
		e, out = new(Error), make([]Violation, len(items))
	}
	for i, it := range items {
		out[i] = Violation{Pointer: it.ptr, Rule: it.rule, Message: it.msg}
	}
	e.Code, e.Violations, e.Omitted = CodeInvalidField, out, p.omitted
	return e
}

// smallError holds an error of a few violations in one allocation.
type smallError struct {
	err  Error
	vs   [8]Violation
	text [384]byte
}

// quote words a string as jsonschema's messages quote it.
func quote(s string) string {
	q := strconv.Quote(s)
	q = strings.ReplaceAll(q, `\"`, `"`)
	q = strings.ReplaceAll(q, `'`, `\'`)
	return "'" + q[1:len(q)-1] + "'"
}
