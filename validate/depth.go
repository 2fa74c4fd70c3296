package validate

import "strconv"

// MaxDepth is the deepest nesting of arrays and objects a document may have,
// the document itself being level 1. Past it, Validate, Request, Decode,
// DecodeRequest and the middleware refuse the document with one violation,
// RuleDepth, at the pointer of the array or object that opens level
// MaxDepth+1, and read no further.
//
// The contract's deepest legitimate request body has 4 levels (a sale's
// additional_purchase_data.item_data[i]) and its resources at most 6 (a
// list's _embedded items and their links); 64 leaves room for members a
// server adds to a response, while a refusal's pointer stays short and the
// pass's nesting bits fit in two words. encoding/json allows 10,000 levels,
// which a 20 KiB body reaches.
const MaxDepth = 64

// RuleDepth is the Violation.Rule of a document nested deeper than MaxDepth.
const RuleDepth = "depth"

// depthMessage words a RuleDepth violation.
var depthMessage = "arrays and objects are nested deeper than " + strconv.Itoa(MaxDepth) + " levels"

// depthError is the refusal of a document nested deeper than MaxDepth, at
// the pointer of the value that opens level MaxDepth+1.
func depthError(pointer string) *Error {
	return &Error{Code: CodeInvalidField, Violations: []Violation{{Pointer: pointer, Rule: RuleDepth, Message: depthMessage}}}
}

// tooDeep stops the pass at i, an array or object opening level MaxDepth+1:
// nothing after it is read.
func (p *pass) tooDeep(i int) (int, bool) {
	p.deepAt = i
	return p.bad()
}

// malformed is the refusal of a body the pass stopped reading
// (p.syntaxBad): nested too deep, or not JSON.
func (p *pass) malformed() error {
	if p.deepAt > 0 {
		return depthError(p.deepPointer())
	}
	return syntaxError(p.data)
}

// deepPointer is the JSON pointer of the value at p.deepAt. The pass read
// every byte before it with the grammar checked, and found no value nested
// deeper before it, so the walk stays within MaxDepth levels.
func (p *pass) deepPointer() string {
	d, at := p.data, p.deepAt
	// Skip scalars with the pass's own reading, from the top.
	p.syntaxBad, p.depth = false, 0
	defer func() { p.syntaxBad = true }()
	buf := p.arena[:0] // reused: nothing was collected at a body refused whole
	defer func() { p.arena = buf[:0] }()
	var (
		mark  [MaxDepth + 1]int // where a level's member or element segment starts in buf
		index [MaxDepth + 1]int
		obj   [MaxDepth + 1]bool
	)
	level := 0
	// member appends the segment of the member whose key is at i and
	// returns where its value starts.
	member := func(i int) int {
		key, end, ok := p.key(i)
		if !ok {
			return len(d)
		}
		buf = appendEscaped(append(buf, '/'), key)
		return p.ws(p.ws(end) + 1) // past the ':'
	}
	i := p.ws(0)
	for i < len(d) && i != at {
		// i is at a value
		if c := d[i]; c == '{' || c == '[' {
			if level == MaxDepth {
				break // not reached: p.deepAt is the first such value
			}
			level++
			obj[level], mark[level], index[level] = c == '{', len(buf), 0
			i = p.ws(i + 1)
			if i < len(d) && (d[i] == '}' || d[i] == ']') {
				level--
				i++
			} else if obj[level] {
				i = member(i)
				continue
			} else {
				buf = append(buf, "/0"...)
				continue
			}
		} else if i = p.skip(i); p.syntaxBad {
			break
		}
		// after a value: close containers, or go on to the next member
		for level > 0 {
			if i = p.ws(i); i >= len(d) {
				break
			}
			buf = buf[:mark[level]]
			if d[i] != ',' {
				level-- // its '}' or ']'
				i++
				continue
			}
			i = p.ws(i + 1)
			if obj[level] {
				i = member(i)
			} else {
				index[level]++
				buf = strconv.AppendInt(append(buf, '/'), int64(index[level]), 10)
			}
			break
		}
		if level == 0 {
			break
		}
	}
	return string(buf)
}

// depthCheck reads data for an array or object nested deeper than
// MaxDepth, with the grammar checked up to it: the refusal, or nil when
// there is none before the end or a syntax error.
func depthCheck(data []byte) error {
	p := getPass(data)
	defer p.release()
	p.skip(p.ws(0))
	if p.deepAt > 0 {
		return depthError(p.deepPointer())
	}
	return nil
}
