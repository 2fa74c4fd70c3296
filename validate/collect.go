package validate

import (
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/conform-kit/conform/validate/internal/jsondoc"
	"github.com/santhosh-tekuri/jsonschema/v5"
)

// This file finds the violations of a document the fast path judged invalid
// without running the schema library over the whole document. It walks the
// document and the fast path's nodes together, down to the smallest
// subschema that fails on its own, and asks jsonschema to validate only that
// value against only that subschema: jsonschema still words every message,
// but over a few scalars instead of the whole body. Violations of
// "required" and of "additionalProperties": false are built directly, as
// explain does from the schema and the instance. Anything the walk does not
// decide (a value the fast path cannot judge) returns ok=false and the whole
// document goes to jsonschema. fastpath_internal_test.go checks that both
// give the same violations.

// collect returns the violations of doc against n, which the fast path
// found invalid, as an *Error, or ok=false.
func (v *Validator) collect(n *fnode, doc any) (*Error, bool) {
	c := collector{v: v, out: make([]Violation, 0, 8)}
	if !c.walk(n, doc, "", fastInvalid) {
		return nil, false
	}
	for _, t := range c.types {
		slices.Sort(t.names)
		c.out = append(c.out, Violation{Pointer: t.ptr, Rule: "type",
			Message: "expected " + strings.Join(slices.Compact(t.names), " or ") + ", but got " + jsonType(t.val)})
	}
	return newError(CodeInvalidField, c.out), true
}

type collector struct {
	v     *Validator
	out   []Violation
	types []typeFailure // merged by pointer, as violations does
}

type typeFailure struct {
	ptr   string
	val   any
	names []string
}

// walk adds the violations of val against n; verdict is n.check(val).
func (c *collector) walk(n *fnode, val any, ptr string, verdict verdict) bool {
	switch verdict {
	case fastValid:
		return true
	case fastUnknown:
		return false
	}
	if n.never || n.anyOf != nil || n.ifNode != nil || n.dependents != nil || !n.ownOK(val) {
		if mask, ok := n.fixedFailure(val); ok {
			return c.delegateFixed(n, mask, val, ptr)
		}
		return c.delegate(n, val, ptr)
	}
	if n.types != 0 && n.types&typeOf(val) == 0 {
		c.addType(ptr, val, n.typeNames) // jsonschema stops at a type failure
		return true
	}
	if num, ok := val.(json.Number); ok {
		i, _ := strconv.ParseInt(string(num), 10, 64)
		for _, b := range []struct {
			rule  string
			bound *int64
			text  string
			fails bool
		}{
			{"minimum", n.min, n.minText, n.min != nil && i < *n.min},
			{"exclusiveMinimum", n.exclMin, n.exclMinText, n.exclMin != nil && i <= *n.exclMin},
			{"maximum", n.max, n.maxText, n.max != nil && i > *n.max},
		} {
			if b.fails {
				msg, _ := boundMessage(b.rule, json.Number(b.text), num)
				c.out = append(c.out, Violation{Pointer: ptr, Rule: b.rule, Message: msg})
			}
		}
	}
	switch x := val.(type) {
	case map[string]any:
		if !c.object(n, x, ptr) {
			return false
		}
	case []any:
		if n.items != nil {
			for i, e := range x {
				if r := n.items.check(e); r != fastValid && !c.walk(n.items, e, ptr+"/"+strconv.Itoa(i), r) {
					return false
				}
			}
		}
	}
	for _, in := range n.inplace {
		if !c.walk(in, val, ptr, in.check(val)) {
			return false
		}
	}
	return true
}

func (c *collector) addType(ptr string, val any, names []string) {
	for i := range c.types {
		if c.types[i].ptr == ptr {
			c.types[i].names = append(c.types[i].names, names...)
			return
		}
	}
	c.types = append(c.types, typeFailure{ptr: ptr, val: val, names: slices.Clone(names)})
}

// ownOK reports whether val passes the node's own keywords other than
// type, the integer bounds and the structure (properties, required,
// additionalProperties, items), which walk words itself.
func (n *fnode) ownOK(val any) bool {
	if n.types != 0 && n.types&typeOf(val) == 0 {
		return true // nothing else is evaluated after a type failure
	}
	if n.enum != nil && !contains(n.enum, val) {
		return false
	}
	if n.format != nil && !n.format(val) {
		return false
	}
	switch x := val.(type) {
	case string:
		if n.minLen >= 0 || n.maxLen >= 0 {
			l := utf8.RuneCountInString(x)
			if (n.minLen >= 0 && l < n.minLen) || (n.maxLen >= 0 && l > n.maxLen) {
				return false
			}
		}
		if n.pattern != nil && !n.pattern.MatchString(x) {
			return false
		}
	case []any:
		if (n.minItems >= 0 && len(x) < n.minItems) || (n.maxItems >= 0 && len(x) > n.maxItems) {
			return false
		}
	}
	return true
}

// typeOf is the type bit of a decoded value (json.Number counts as both
// integer and number; check has already refused non-int64 numbers).
func typeOf(val any) uint8 {
	switch val.(type) {
	case nil:
		return tNull
	case bool:
		return tBoolean
	case string:
		return tString
	case []any:
		return tArray
	case map[string]any:
		return tObject
	case json.Number:
		return tInteger | tNumber
	}
	return 0
}

func (c *collector) object(n *fnode, obj map[string]any, ptr string) bool {
	for _, name := range n.required {
		if _, ok := obj[name]; !ok && name != "" {
			c.out = append(c.out, Violation{Pointer: ptr + "/" + jsondoc.Escape(name), Rule: "required", Message: name + " is required"})
		}
	}
	for name, val := range obj {
		if p, ok := n.props[name]; ok {
			if p.never {
				c.out = append(c.out, Violation{Pointer: ptr + "/" + jsondoc.Escape(name), Rule: "false", Message: "must not be present here"})
			} else if r := p.check(val); r != fastValid && !c.walk(p, val, ptr+"/"+jsondoc.Escape(name), r) {
				return false
			}
			continue
		}
		switch {
		case n.additional == nil:
		case n.additional.never:
			c.out = append(c.out, Violation{Pointer: ptr + "/" + jsondoc.Escape(name), Rule: "additionalProperties", Message: name + " is not a known field"})
		default:
			if r := n.additional.check(val); r != fastValid && !c.walk(n.additional, val, ptr+"/"+jsondoc.Escape(name), r) {
				return false
			}
		}
	}
	return true
}

// Failing keywords whose jsonschema message does not depend on the value.
const (
	failPattern uint8 = 1 << iota
	failEnum
)

// fixedFailure reports whether val, a scalar of the right type, fails n
// only on pattern and enum, whose messages name the schema, never the
// value: jsonschema's violations for n are then the same for every such
// value and the node keeps them after the first. It returns which failed.
func (n *fnode) fixedFailure(val any) (uint8, bool) {
	if n.never || n.anyOf != nil || n.ifNode != nil || n.dependents != nil || len(n.inplace) > 0 || n.format != nil ||
		n.minLen >= 0 || n.maxLen >= 0 || n.min != nil || n.max != nil || n.exclMin != nil {
		return 0, false
	}
	if n.types != 0 && n.types&typeOf(val) == 0 {
		return 0, false
	}
	var mask uint8
	switch x := val.(type) {
	case string:
		if n.pattern != nil && !n.pattern.MatchString(x) {
			mask |= failPattern
		}
	case map[string]any, []any:
		return 0, false
	}
	if n.enum != nil && !contains(n.enum, val) {
		mask |= failEnum
	}
	return mask, mask != 0
}

// delegateFixed is delegate for a fixedFailure: jsonschema words the
// violations once per node and mask, later failures reuse them.
func (c *collector) delegateFixed(n *fnode, mask uint8, val any, ptr string) bool {
	cached := n.fixed[mask].Load()
	if cached == nil {
		sub := collector{v: c.v}
		if !sub.delegate(n, val, "") {
			return false
		}
		n.fixed[mask].CompareAndSwap(nil, &sub.out)
		cached = &sub.out
	}
	for _, viol := range *cached {
		viol.Pointer = ptr + viol.Pointer
		c.out = append(c.out, viol)
	}
	return true
}

// delegate has jsonschema validate val against n's own compiled subschema
// and adds its violations under ptr.
func (c *collector) delegate(n *fnode, val any, ptr string) bool {
	if n.schema == nil || len(oversizedNumbers(val)) > 0 {
		return false
	}
	err := n.schema.Validate(val)
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return false // valid for jsonschema although the fast path said invalid: let the full run decide
	}
	for _, viol := range c.v.violations(val, ve) {
		viol.Pointer = ptr + viol.Pointer
		c.out = append(c.out, viol)
	}
	return true
}
