package validate

import (
	"strconv"

	"github.com/conform-kit/conform/validate/internal/jsondoc"
)

// Objects and arrays in the pass: members against their properties,
// required names as bits, duplicate names, dependent schemas; elements
// against items, their count.

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
		var more, okNext bool
		if i, more, okNext = p.after(end, '}'); !okNext {
			return p.bad()
		} else if !more {
			return p.objectEnd(n, start, i, seen, failed, ok && !unknown)
		}
		i = p.ws(i)
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
		var more, okNext bool
		if i, more, okNext = p.after(end, ']'); !okNext {
			return p.bad()
		} else if !more {
			return i, p.arrayEnd(n, count, ok)
		}
		i = p.ws(i)
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
