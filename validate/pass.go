package validate

import (
	"sync"
	"unicode/utf8"
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
	scanner        // the body's bytes, the nesting, whether it is JSON
	oversized bool // a number a node looked at is beyond the number bounds

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
	if f := &p.facts; f.on {
		clear(f.vals[:f.rs.nSlots]) // only what was gathered
		f.on, f.rs, f.pos, f.in = false, nil, 0, ""
	}
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
