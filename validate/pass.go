package validate

import (
	"encoding/binary"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/conform-kit/conform/validate/internal/jsondoc"
)

// The pass reads a body once, as bytes, and checks it against a schema's
// program (fastpath.go) while it reads: no tree is built. A value is checked
// against its node as it is scanned; a node's $ref and allOf members, its
// anyOf branches, its if/then/else and its dependentSchemas check the same
// value's bytes again, which the schemas' depth bounds. Values no node
// looks at are skipped with the grammar checked and nothing kept.
//
// The first run only judges (no allocation on a valid body). An invalid body
// is run again collecting the violations jsonschema would report, worded as
// violations (errors.go) words them, at most MaxViolations of them; the rest
// are only counted. Memory per call is the pass itself, reused through a
// pool, plus the violations listed.

// MaxViolations is the most violations an *Error lists; Error.Omitted counts
// the rest.
const MaxViolations = 100

// pass is the state of one run over a body.
type pass struct {
	data      []byte
	depth     int
	syntaxBad bool // the body is not JSON (encoding/json words the error), or nested too deep
	deepAt    int  // where an array or object opens level MaxDepth+1 (0: none; syntaxBad is set)
	oversized bool // a number a node looked at is beyond the number bounds
	// kinds holds one bit per nesting level while skipping: 1 for an object.
	kinds [MaxDepth/64 + 1]uint64

	// failed: the first run met a failure the body cannot recover from and
	// stopped reading (the second run reads it all); speculative counts the
	// anyOf branches and if conditions being tried, where a failure is not
	// the body's.
	failed      bool
	speculative int

	collect bool // collecting violations (the second run)
	out     []pleaf
	omitted int // violations found beyond MaxViolations
	leaves  int // leaves found, as schemaerr.Leaves counts them
	segs    []seg
	// typeHere counts type leaves at the instance of the innermost anyOf.
	typeHere  int
	anyDepth  int
	arena     []byte // the pointers and messages of the violations
	scratch   []byte // a decoded string
	keyBuf    []byte // a decoded key
	lastSlots []int32

	// facts: the members the body rules read, gathered by the first run
	// when facts.on (passrules.go).
	facts ruleFacts
}

// pleaf is a collected violation; names is set for a type failure, merged
// with the others at its pointer when the error is built.
type pleaf struct {
	rule  string
	ptr   span // in p.arena
	msg   span
	names []string
}

// span is a piece of p.arena.
type span struct{ off, n int32 }

// seg is one step of the pointer to the value at hand.
type seg struct {
	key   string
	index int
	isKey bool
}

var passes = sync.Pool{New: func() any { return &pass{} }}

func getPass(data []byte) *pass {
	p := passes.Get().(*pass)
	p.data = data
	return p
}

func (p *pass) reset() {
	p.depth, p.syntaxBad, p.oversized, p.failed, p.speculative = 0, false, false, false, 0
	p.deepAt = 0
	p.collect, p.omitted, p.leaves, p.typeHere, p.anyDepth = false, 0, 0, 0, 0
	clear(p.out)
	p.out = p.out[:0]
	p.arena = p.arena[:0]
	clear(p.segs)
	p.segs = p.segs[:0]
	p.lastSlots = p.lastSlots[:0]
	p.facts = ruleFacts{}
}

func (p *pass) release() {
	p.reset()
	p.data = nil
	if cap(p.out) > 4*MaxViolations || cap(p.arena) > 1<<16 || cap(p.scratch) > 1<<16 || cap(p.keyBuf) > 1<<12 || cap(p.segs) > 1<<10 {
		return // a hostile body grew it: let it go
	}
	passes.Put(p)
}

// run checks the whole body against n. It reports whether the body is JSON
// valid against n; p.syntaxBad and p.oversized tell why not, when so.
func (p *pass) run(n *fnode) bool {
	i := p.ws(0)
	end, ok := p.value(n, i)
	if p.syntaxBad || p.failed {
		return false
	}
	if p.ws(end) != len(p.data) {
		p.syntaxBad = true
		return false
	}
	return ok && !p.oversized
}

func (p *pass) ws(i int) int {
	for i < len(p.data) {
		switch p.data[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

func (p *pass) bad() (int, bool) {
	p.syntaxBad = true
	return len(p.data), false
}

// kindAt names the JSON type of the value starting at i (a syntax error
// reads as 0).
func (p *pass) kindAt(i int) uint8 {
	if i >= len(p.data) {
		return 0
	}
	switch c := p.data[i]; {
	case c == '{':
		return tObject
	case c == '[':
		return tArray
	case c == '"':
		return tString
	case c == '-' || (c >= '0' && c <= '9'):
		return tNumber
	case c == 't' || c == 'f':
		return tBoolean
	case c == 'n':
		return tNull
	}
	return 0
}

func kindName(k uint8) string {
	switch k {
	case tObject:
		return "object"
	case tArray:
		return "array"
	case tString:
		return "string"
	case tNumber, tInteger, tInteger | tNumber:
		return "number"
	case tBoolean:
		return "boolean"
	case tNull:
		return "null"
	}
	return "unknown"
}

// value checks the value at i against n and returns where it ends.
func (p *pass) value(n *fnode, i int) (int, bool) {
	if n == nil {
		return p.skip(i), true
	}
	k := p.kindAt(i)
	if k == 0 {
		return p.bad()
	}
	if n.never {
		end := p.skip(i)
		if p.collect {
			p.emit(n.neverRule, n.neverMsg, nil)
		}
		return end, false
	}
	start := i
	var end int
	var str string
	var boolVal bool
	switch k {
	case tString:
		var ok bool
		if str, end, ok = p.str(i); !ok {
			return p.bad()
		}
	case tNumber:
		end = p.number(i)
		if end < 0 {
			return p.bad()
		}
		text := bytesString(p.data[i:end])
		if oversizedNumber(text) {
			p.oversized = true
			return end, false
		}
		if isIntegral(text) {
			k = tInteger | tNumber
		}
	case tBoolean:
		boolVal = p.data[i] == 't'
		word := "false"
		if boolVal {
			word = "true"
		}
		if end = p.literal(i, word); end < 0 {
			return p.bad()
		}
	case tNull:
		if end = p.literal(i, "null"); end < 0 {
			return p.bad()
		}
	}
	if n.types != 0 && n.types&k == 0 {
		if k == tObject || k == tArray {
			end = p.skip(i)
		}
		if p.collect && !p.syntaxBad {
			p.emit("type", kindName(k), n.typeNames)
		}
		return end, false // jsonschema evaluates nothing else after a type failure
	}
	ok := true
	for e := range n.enums {
		set := &n.enums[e]
		if !set.has(k&^tInteger, str, boolVal) {
			ok = false
			if p.collect {
				p.emit(set.rule, set.msg, nil)
			}
		}
	}
	switch k {
	case tString:
		if !p.checkString(n, str) {
			ok = false
		}
	case tInteger | tNumber, tNumber:
		if !p.checkNumber(n, bytesString(p.data[i:end])) {
			ok = false
		}
	case tObject:
		var objOK bool
		end, objOK = p.object(n, i)
		ok = ok && objOK
	case tArray:
		var arrOK bool
		end, arrOK = p.array(n, i)
		ok = ok && arrOK
	}
	if p.syntaxBad || p.failed {
		return len(p.data), false
	}
	if !ok && !p.collect {
		return end, false
	}
	if !p.inplace(n, start) {
		ok = false
	}
	return end, ok
}

// inplace checks the value at start against n's $ref, allOf, anyOf and
// if/then/else.
func (p *pass) inplace(n *fnode, start int) bool {
	ok := true
	for _, in := range n.inplace {
		if _, inOK := p.value(in, start); !inOK {
			ok = false
			if !p.collect {
				return false
			}
		}
	}
	if n.anyOf != nil && !p.anyOf(n, start) {
		ok = false
	}
	if n.ifNode != nil {
		collect := p.collect
		p.collect = false
		p.speculative++
		_, ifOK := p.value(n.ifNode, start)
		p.speculative--
		p.collect = collect
		branch := n.elseNode
		if ifOK {
			branch = n.thenNode
		}
		if branch != nil {
			if _, bOK := p.value(branch, start); !bOK {
				ok = false
			}
		}
	}
	return ok
}

// anyOf checks the value at start against the branches. Collecting, it
// keeps the leaves of the branches schemaerr.Leaves keeps: those that failed
// on more than the value's type, when one did, and of these the fewest.
func (p *pass) anyOf(n *fnode, start int) bool {
	collect := p.collect
	p.collect = false
	p.speculative++
	for _, a := range n.anyOf {
		if _, ok := p.value(a, start); ok {
			p.speculative--
			p.collect = collect
			return true
		}
	}
	p.speculative--
	p.collect = collect
	if !collect {
		return false
	}
	type branch struct{ from, to, leaves, omitted int }
	var small [4]branch
	branches := small[:0]
	savedType, savedDepth, savedLeaves := p.typeHere, p.anyDepth, p.leaves
	p.anyDepth = len(p.segs)
	typeOnly := make([]bool, len(n.anyOf))
	anyOther := false
	for bi, a := range n.anyOf {
		b := branch{from: len(p.out)}
		p.typeHere, p.leaves = 0, 0
		om := p.omitted
		p.value(a, start)
		b.to, b.leaves, b.omitted = len(p.out), p.leaves, p.omitted-om
		typeOnly[bi] = p.leaves == p.typeHere
		anyOther = anyOther || !typeOnly[bi]
		branches = append(branches, b)
	}
	fewest := -1
	for bi, b := range branches {
		if (anyOther && typeOnly[bi]) || (fewest >= 0 && b.leaves >= fewest) {
			continue
		}
		fewest = b.leaves
	}
	kept := p.out[:branches[0].from]
	omitted := p.omitted
	leaves := 0
	for bi, b := range branches {
		if (anyOther && typeOnly[bi]) || b.leaves != fewest {
			omitted -= b.omitted
			continue
		}
		kept = append(kept, p.out[b.from:b.to]...)
		leaves += b.leaves
	}
	clear(kept[len(kept):len(p.out)])
	p.out, p.omitted = kept, omitted
	p.typeHere, p.anyDepth, p.leaves = savedType, savedDepth, savedLeaves+leaves
	return false
}

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

// object checks the object at i (its '{') against n.
func (p *pass) object(n *fnode, i int) (int, bool) {
	if p.depth++; p.depth > MaxDepth {
		return p.tooDeep(i)
	}
	slots := len(p.lastSlots)
	end, ok := p.members(n, i)
	p.lastSlots = p.lastSlots[:slots]
	p.depth--
	return end, ok
}

// members reads the members of the object at i (its '{'), one level down.
func (p *pass) members(n *fnode, i int) (int, bool) {
	start := i
	// Collecting, only the last of duplicate names counts (a decoder keeps
	// the last): on meeting a duplicate, the object is read again, with
	// slots saying which member of each name is the last.
	var slots []int32
	mark := p.mark()
again:
	var seen, failed uint64
	ok := true
	unknown := false
	i = p.ws(start + 1)
	if i < len(p.data) && p.data[i] == '}' {
		return p.objectEnd(n, start, i+1, seen, failed, ok)
	}
	for member := int32(0); ; member++ {
		if i >= len(p.data) || p.data[i] != '"' {
			return p.bad()
		}
		key, kend, okKey := p.key(i)
		if !okKey {
			return p.bad()
		}
		i = p.ws(kend)
		if i >= len(p.data) || p.data[i] != ':' {
			return p.bad()
		}
		i = p.ws(i + 1)
		if p.facts.on && p.depth <= 2 {
			p.fold(key, i)
		}
		idx, known := n.lookup(key)
		if known && p.collect && slots == nil && seen&(1<<n.entries[idx].bit) != 0 {
			p.restore(mark)
			slots = p.lastMembers(n, start)
			goto again
		}
		var child *fnode
		switch {
		case known && n.entries[idx].prop != nil:
			child = n.entries[idx].prop
		case n.closed:
			if p.collect {
				if !unknown {
					p.leaves++
				}
				p.emitMsg("additionalProperties", jsondoc.Escape(key), true, key, " is not a known field")
			} else if p.speculative == 0 {
				p.failed = true
				return len(p.data), false
			}
			unknown = true
		default:
			child = n.additional
		}
		var end int
		valOK := true
		switch {
		case child == nil:
			end = p.skip(i)
		case slots != nil && known && slots[idx] != member:
			end = p.skip(i) // a later duplicate decides
		default:
			if p.collect {
				p.segs = append(p.segs, seg{key: key, isKey: true})
			}
			end, valOK = p.value(child, i)
			if p.collect {
				p.segs = p.segs[:len(p.segs)-1]
			}
		}
		if p.syntaxBad || p.failed {
			return len(p.data), false
		}
		if !valOK && !p.collect && p.speculative == 0 {
			// Stop reading: the second run reads the rest (and a later
			// duplicate of this name, which a decoder would keep instead).
			p.failed = true
			return len(p.data), false
		}
		if known {
			bit := uint64(1) << n.entries[idx].bit
			seen |= bit
			if valOK {
				failed &^= bit
			} else {
				failed |= bit
			}
		} else if !valOK {
			ok = false
		}
		i = p.ws(end)
		if i >= len(p.data) {
			return p.bad()
		}
		switch p.data[i] {
		case ',':
			i = p.ws(i + 1)
		case '}':
			return p.objectEnd(n, start, i+1, seen, failed, ok && !unknown)
		default:
			return p.bad()
		}
	}
}

// objectEnd checks what an object's members decide together: required
// names and dependent schemas.
func (p *pass) objectEnd(n *fnode, start, end int, seen, failed uint64, ok bool) (int, bool) {
	if failed != 0 {
		ok = false
	}
	if missing := n.reqMask &^ seen; missing != 0 {
		ok = false
		if p.collect {
			p.leaves++
			for _, name := range n.required {
				if name == "" || missing&(1<<n.entries[n.names[name]].bit) == 0 {
					continue
				}
				if n.reqAltMsg != "" {
					p.emitMsg("required", jsondoc.Escape(name), true, n.reqAltMsg)
				} else {
					p.emitMsg("required", jsondoc.Escape(name), true, name, " is required")
				}
			}
		}
	}
	if n.hasDeps && (ok || p.collect) {
		// The object is read again from its start, at its own depth.
		p.depth--
		for e := range n.entries {
			d := n.entries[e].dependent
			if d == nil || seen&(1<<n.entries[e].bit) == 0 {
				continue
			}
			if _, dOK := p.value(d, start); !dOK {
				ok = false
				if !p.collect {
					break
				}
			}
		}
		p.depth++
	}
	return end, ok
}

// lastMembers finds, for each name of n, the ordinal of its last member in
// the object at i, pushed on p.lastSlots.
func (p *pass) lastMembers(n *fnode, i int) []int32 {
	base := len(p.lastSlots)
	for range n.entries {
		p.lastSlots = append(p.lastSlots, -1)
	}
	slots := p.lastSlots[base:]
	// The members after the duplicate are not read yet: at anything but
	// a member, stop (the collecting run then meets the error itself).
	i = p.ws(i + 1)
	for member := int32(0); i < len(p.data) && p.data[i] == '"'; member++ {
		key, kend, ok := p.key(i)
		if !ok {
			return slots
		}
		if idx, ok := n.lookup(key); ok {
			slots[idx] = member
		}
		if i = p.ws(kend); i >= len(p.data) || p.data[i] != ':' {
			return slots
		}
		if i = p.ws(p.skip(p.ws(i + 1))); p.syntaxBad || i >= len(p.data) || p.data[i] != ',' {
			return slots
		}
		i = p.ws(i + 1)
	}
	return slots
}

// array checks the array at i (its '[') against n.
func (p *pass) array(n *fnode, i int) (int, bool) {
	if p.depth++; p.depth > MaxDepth {
		return p.tooDeep(i)
	}
	end, ok := p.elements(n, i)
	p.depth--
	return end, ok
}

// elements reads the elements of the array at i (its '['), one level down.
func (p *pass) elements(n *fnode, i int) (int, bool) {
	ok := true
	count := 0
	i = p.ws(i + 1)
	if i < len(p.data) && p.data[i] == ']' {
		return i + 1, p.arrayEnd(n, count, ok)
	}
	for {
		if p.collect {
			p.segs = append(p.segs, seg{index: count})
		}
		end, itemOK := p.value(n.items, i)
		if p.collect {
			p.segs = p.segs[:len(p.segs)-1]
		}
		if p.syntaxBad || p.failed {
			return len(p.data), false
		}
		if !itemOK {
			ok = false
			if !p.collect && p.speculative == 0 {
				p.failed = true
				return len(p.data), false
			}
		}
		count++
		i = p.ws(end)
		if i >= len(p.data) {
			return p.bad()
		}
		switch p.data[i] {
		case ',':
			i = p.ws(i + 1)
		case ']':
			return i + 1, p.arrayEnd(n, count, ok)
		default:
			return p.bad()
		}
	}
}

func (p *pass) arrayEnd(n *fnode, count int, ok bool) bool {
	if n.minItems >= 0 && count < n.minItems {
		ok = false
		if p.collect {
			p.emitMsg("minItems", "", false, "minimum ", strconv.Itoa(n.minItems), " items required, but found ", strconv.Itoa(count), " items")
		}
	}
	if n.maxItems >= 0 && count > n.maxItems {
		ok = false
		if p.collect {
			p.emitMsg("maxItems", "", false, "maximum ", strconv.Itoa(n.maxItems), " items required, but found ", strconv.Itoa(count), " items")
		}
	}
	return ok
}

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

// ---- the grammar ----

func (p *pass) literal(i int, word string) int {
	if len(p.data)-i < len(word) || string(p.data[i:i+len(word)]) != word {
		return -1
	}
	return i + len(word)
}

// number scans a number and returns its end, or -1.
func (p *pass) number(i int) int {
	d := p.data
	if d[i] == '-' {
		i++
	}
	if i >= len(d) {
		return -1
	}
	switch c := d[i]; {
	case c == '0':
		i++
	case c >= '1' && c <= '9':
		i = digits(d, i)
	default:
		return -1
	}
	if i < len(d) && d[i] == '.' {
		j := digits(d, i+1)
		if j == i+1 {
			return -1
		}
		i = j
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		j := digits(d, i)
		if j == i {
			return -1
		}
		i = j
	}
	return i
}

func digits(d []byte, i int) int {
	for i < len(d) && d[i] >= '0' && d[i] <= '9' {
		i++
	}
	return i
}

// key reads an object key at i (its '"'), decoded, valid until the next key.
func (p *pass) key(i int) (string, int, bool) {
	j := i + 1
	for j < len(p.data) {
		c := p.data[j]
		if c == '"' {
			return bytesString(p.data[i+1 : j]), j + 1, true
		}
		if c == '\\' || c < 0x20 || c >= utf8.RuneSelf {
			break
		}
		j++
	}
	var end int
	var ok bool
	p.keyBuf, end, ok = p.decodeString(p.keyBuf[:0], i)
	if p.collect {
		return string(p.keyBuf), end, ok // pointers keep it
	}
	return bytesString(p.keyBuf), end, ok
}

// str reads a string at i (its '"'): the string as encoding/json decodes it
// (valid until the next string), and its end.
func (p *pass) str(i int) (string, int, bool) {
	j := asciiRun(p.data, i+1)
	for j < len(p.data) && !plainStop[p.data[j]] {
		j++
	}
	if j < len(p.data) && p.data[j] == '"' {
		return bytesString(p.data[i+1 : j]), j + 1, true
	}
	var end int
	var ok bool
	p.scratch, end, ok = p.decodeString(p.scratch[:0], i)
	return bytesString(p.scratch), end, ok
}

// decodeString appends the string at i, decoded as encoding/json decodes
// it (invalid UTF-8 and lone surrogates become U+FFFD), to buf.
func (p *pass) decodeString(buf []byte, i int) ([]byte, int, bool) {
	d := p.data
	i++
	for i < len(d) {
		c := d[i]
		switch {
		case c == '"':
			return buf, i + 1, true
		case c == '\\':
			if i+1 >= len(d) {
				return buf, 0, false
			}
			e := d[i+1]
			i += 2
			switch e {
			case 'u':
				r, ok := hex4(d, i)
				if !ok {
					return buf, 0, false
				}
				i += 4
				if utf16.IsSurrogate(r) {
					if r2, ok2 := surrogateAt(d, i); ok2 {
						if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
							i += 6
							buf = utf8.AppendRune(buf, dec)
							break
						}
					}
					r = utf8.RuneError
				}
				buf = utf8.AppendRune(buf, r)
			default:
				b, ok := unescaped(e)
				if !ok {
					return buf, 0, false
				}
				buf = append(buf, b)
			}
		case c < 0x20:
			return buf, 0, false
		case c < utf8.RuneSelf:
			buf = append(buf, c)
			i++
		default:
			r, size := utf8.DecodeRune(d[i:])
			if r == utf8.RuneError && size == 1 {
				buf = utf8.AppendRune(buf, utf8.RuneError)
			} else {
				buf = append(buf, d[i:i+size]...)
			}
			i += size
		}
	}
	return buf, 0, false
}

// surrogateAt reads a \uXXXX escape at i, if there is one.
func surrogateAt(d []byte, i int) (rune, bool) {
	if len(d)-i < 6 || d[i] != '\\' || d[i+1] != 'u' {
		return 0, false
	}
	return hex4(d, i+2)
}

// unescaped is the byte a one-character JSON escape stands for (\" \\ \/
// \b \f \n \r \t), or false.
func unescaped(e byte) (byte, bool) {
	switch e {
	case '"', '\\', '/':
		return e, true
	case 'b':
		return '\b', true
	case 'f':
		return '\f', true
	case 'n':
		return '\n', true
	case 'r':
		return '\r', true
	case 't':
		return '\t', true
	}
	return 0, false
}

// hex4 reads the four hex digits of a \u escape at d[i:].
func hex4(d []byte, i int) (rune, bool) {
	if len(d)-i < 4 {
		return 0, false
	}
	var r rune
	for _, c := range d[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// stringStop marks the bytes that end a run of plain string bytes when
// skipping: '"', '\\' and control characters; plainStop marks non-ASCII
// bytes too, which reading a string decodes.
var stringStop, plainStop = func() (s, p [256]bool) {
	for c := range 256 {
		s[c] = c == '"' || c == '\\' || c < 0x20
		p[c] = s[c] || c >= utf8.RuneSelf
	}
	return s, p
}()

// plainRun returns the first i' >= i where a word of eight bytes may hold
// a '"', a '\\' or a control character (classic bit tricks: a byte below
// n, a zero byte after an exclusive or).
func plainRun(d []byte, i int) int {
	const lo, hi = 0x0101010101010101, 0x8080808080808080
	for i+8 <= len(d) {
		w := binary.LittleEndian.Uint64(d[i:])
		q, b := w^(lo*'"'), w^(lo*'\\')
		if ((w-lo*0x20)&^w|(q-lo)&^q|(b-lo)&^b)&hi != 0 {
			return i
		}
		i += 8
	}
	return i
}

// asciiRun is plainRun stopping at non-ASCII bytes too.
func asciiRun(d []byte, i int) int {
	const lo, hi = 0x0101010101010101, 0x8080808080808080
	for i+8 <= len(d) {
		w := binary.LittleEndian.Uint64(d[i:])
		q, b := w^(lo*'"'), w^(lo*'\\')
		if (w|(w-lo*0x20)&^w|(q-lo)&^q|(b-lo)&^b)&hi != 0 {
			return i
		}
		i += 8
	}
	return i
}

// skipString skips the string at i (its '"') and returns its end, or -1.
func (p *pass) skipString(i int) int {
	d := p.data
	i++
	for i < len(d) {
		// Plain bytes eight at a time, then one at a time; the table
		// marks '"', '\\' and control characters.
		i = plainRun(d, i)
		for i < len(d) && !stringStop[d[i]] {
			i++
		}
		if i >= len(d) {
			return -1
		}
		c := d[i]
		switch {
		case c == '"':
			return i + 1
		case c == '\\':
			if i+1 >= len(d) {
				return -1
			}
			switch d[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if _, ok := hex4(d, i+2); !ok {
					return -1
				}
				i += 6
			default:
				return -1
			}
		case c < 0x20:
			return -1
		default:
			i++
		}
	}
	return -1
}

// skip checks the grammar of the value at i without recursion and returns
// its end (len(data), with p.syntaxBad set, on an error).
func (p *pass) skip(i int) int {
	d := p.data
	base := p.depth
	depth := base
	for {
		if i >= len(d) {
			p.syntaxBad = true
			return len(d)
		}
		// a value
		switch c := d[i]; {
		case c == '{' || c == '[':
			if depth++; depth > MaxDepth {
				p.deepAt = i
				p.syntaxBad = true
				return len(d)
			}
			w, b := uint(depth/64), uint64(1)<<(depth%64)
			if c == '{' {
				p.kinds[w] |= b
			} else {
				p.kinds[w] &^= b
			}
			i = p.ws(i + 1)
			if i < len(d) && (d[i] == '}' && c == '{' || d[i] == ']' && c == '[') {
				depth--
				i++
				break
			}
			if c == '{' {
				if i = p.memberKey(i); i < 0 {
					p.syntaxBad = true
					return len(d)
				}
			}
			continue
		case c == '"':
			if i = p.skipString(i); i < 0 {
				p.syntaxBad = true
				return len(d)
			}
		case c == '-' || (c >= '0' && c <= '9'):
			if i = p.number(i); i < 0 {
				p.syntaxBad = true
				return len(d)
			}
		case c == 't':
			i = p.literal(i, "true")
		case c == 'f':
			i = p.literal(i, "false")
		case c == 'n':
			i = p.literal(i, "null")
		default:
			i = -1
		}
		if i < 0 {
			p.syntaxBad = true
			return len(d)
		}
		// after a value: close containers, or go on to the next member
		for {
			if depth == base {
				return i
			}
			i = p.ws(i)
			if i >= len(d) {
				p.syntaxBad = true
				return len(d)
			}
			isObj := p.kinds[depth/64]&(uint64(1)<<(depth%64)) != 0
			c := d[i]
			if c == ',' {
				i = p.ws(i + 1)
				if isObj {
					if i = p.memberKey(i); i < 0 {
						p.syntaxBad = true
						return len(d)
					}
				}
				break
			}
			if (isObj && c == '}') || (!isObj && c == ']') {
				depth--
				i++
				continue
			}
			p.syntaxBad = true
			return len(d)
		}
	}
}

// memberKey skips `"key" :` at i and returns where the value starts, or -1.
func (p *pass) memberKey(i int) int {
	if i >= len(p.data) || p.data[i] != '"' {
		return -1
	}
	if i = p.skipString(i); i < 0 {
		return -1
	}
	i = p.ws(i)
	if i >= len(p.data) || p.data[i] != ':' {
		return -1
	}
	return p.ws(i + 1)
}

// quote words a string as jsonschema's messages quote it.
func quote(s string) string {
	q := strconv.Quote(s)
	q = strings.ReplaceAll(q, `\"`, `"`)
	q = strings.ReplaceAll(q, `'`, `\'`)
	return "'" + q[1:len(q)-1] + "'"
}
