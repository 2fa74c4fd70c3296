package validate

// The pass gathers the members an operation's body rules read
// (bodyrules.go) while it reads the body for the schema, so the middleware
// judges the rules without decoding the body again and without
// allocating.
//
// They are gathered as the decoded document holds them: members are folded
// in document order, the last of duplicate names wins (a member read by a
// rule, or the object holding one, whose members a later duplicate
// replaces whole). A member is folded once, the first time the pass reads
// it: the pass reads a value again for $ref, allOf, anyOf, if and
// dependentSchemas, always after its first reading, so a member whose
// value starts at or before the last one folded is a second reading.

// maxSlots is the most members the rules of one operation read that the
// pass gathers.
const maxSlots = 8

// passRulesFit reports whether the pass can gather the members slots name
// from a schema's program: each a member of the
// body or of a member of the body that the root reads with a subschema
// (not skipping it), so the first reading of the body descends into it.
// An operation that does not fit has its rules judged on the decoded body.
func passRulesFit(root *fnode, slots []ruleSlot) bool {
	if root == nil || root.never {
		return false
	}
	for _, s := range slots {
		if s.name == "" {
			return false // deeper than two members
		}
		if s.parent == "" {
			continue
		}
		i, ok := root.lookup(s.parent)
		if !ok || root.entries[i].prop == nil {
			return false
		}
	}
	return true
}

// ruleFact is one gathered member: its kind and, for a number, its text.
type ruleFact struct {
	kind     uint8 // valueAbsent, …
	from, to int
}

// ruleFacts is what the pass gathers for the body rules.
type ruleFacts struct {
	on   bool     // gather (the first run of a body with rules)
	rs   *ruleSet // what to gather: the operation's
	pos  int      // where the value of the last member folded starts
	in   string   // the parent of slots the last member of the body folded opens ("": none)
	vals [maxSlots]ruleFact
}

// gather has the first run gather the members the rules of rs read, when
// the pass can.
func (p *pass) gather(rs *ruleSet) {
	if rs != nil && rs.inPass {
		p.facts.on, p.facts.rs = true, rs
	}
}

// fold records the member named key whose value starts at i, read in an
// object at depth p.depth (1: the body).
func (p *pass) fold(key string, i int) {
	f := &p.facts
	if i <= f.pos {
		return // read again
	}
	f.pos = i
	if p.depth == 1 {
		f.in = ""
	}
	if len(key) >= 64 || f.rs.lens&(1<<len(key)) == 0 {
		return // no name of that length
	}
	if p.depth == 1 {
		for s, sl := range f.rs.slotList() {
			if sl.parent == "" && sl.name == key {
				f.vals[s] = p.fact(i)
			}
			if sl.parent == key {
				f.vals[s] = ruleFact{} // this member replaces an earlier one of its name
				if p.kindAt(i) == tObject {
					f.in = sl.parent
				}
			}
		}
		return
	}
	if f.in == "" {
		return
	}
	for s, sl := range f.rs.slotList() {
		if sl.parent == f.in && sl.name == key {
			f.vals[s] = p.fact(i)
		}
	}
}

// fact reads a gathered value at i.
func (p *pass) fact(i int) ruleFact {
	switch p.kindAt(i) {
	case tNumber:
		if end := p.number(i); end > i {
			return ruleFact{kind: valueNumber, from: i, to: end}
		}
	case tNull:
		return ruleFact{kind: valueNull}
	case tBoolean:
		if p.data[i] == 't' {
			return ruleFact{kind: valueTrue}
		}
		return ruleFact{kind: valueFalse}
	}
	return ruleFact{kind: valueOther}
}

// ruleViolations judges the gathered members by the rules of rs, with the
// judges the decoded check calls.
func (p *pass) ruleViolations(rs *ruleSet) []Violation {
	var vs []Violation
	for _, r := range rs.ruleList() {
		var vals ruleValues
		for m := range r.n {
			vals[m] = p.factValue(p.facts.vals[r.at[m]])
		}
		if vi, broken := r.judge(vals); broken {
			vs = append(vs, vi)
		}
	}
	return vs
}

// factValue is a gathered member as a rule reads it: a number's text as
// json.Number.Int64 reads it.
func (p *pass) factValue(f ruleFact) ruleValue {
	if f.kind != valueNumber {
		return ruleValue{kind: f.kind}
	}
	n, ok := parseInt64(bytesString(p.data[f.from:f.to]))
	return ruleValue{kind: valueNumber, isInt: ok, n: n}
}

// parseInt64 reads a JSON number's text as strconv.ParseInt(s, 10, 64)
// does (json.Number.Int64): digits with an optional '-', within int64;
// anything else (a fraction, an exponent) is not one. It allocates
// nothing, where ParseInt's error does.
func parseInt64(s string) (int64, bool) {
	neg := false
	if s != "" && (s[0] == '-' || s[0] == '+') {
		neg = s[0] == '-'
		s = s[1:]
	}
	if s == "" {
		return 0, false
	}
	const limit = uint64(1) << 63
	var n uint64
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		if n > (limit+9)/10 {
			return 0, false
		}
		n = n*10 + uint64(c-'0')
		if n > limit {
			return 0, false
		}
	}
	switch {
	case neg:
		return -int64(n), true // n == 1<<63 wraps to math.MinInt64, as ParseInt gives
	case n == limit:
		return 0, false
	}
	return int64(n), true
}
