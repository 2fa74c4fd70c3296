package validate

import (
	"strings"
	"unicode/utf8"
	"unsafe"
)

// The schemas compile, besides jsonschema's own compilation (the source of
// truth), into a program of fnodes that pass.go runs over the bytes of a
// body. fastcompile.go builds them; it understands only the keywords these
// schemas use, and a schema using anything else gets no program (jsonschema
// then validates that schema alone, over a decoded tree).

// typeMask bits, one per JSON Schema type.
const (
	tNull uint8 = 1 << iota
	tBoolean
	tInteger
	tNumber
	tString
	tArray
	tObject
)

// fnode is one compiled subschema.
type fnode struct {
	never       bool   // the false schema
	neverRule   string // the rule and message of its failure, as violations words them
	neverMsg    string
	types       uint8 // 0: any type
	typeNames   []string
	enums       []enumSet // enum and const
	minLen      int       // -1: none
	maxLen      int
	minItems    int // -1: none
	maxItems    int
	pattern     matcher
	format      func(any) bool
	patternText string // the keywords as written (Shape)
	formatName  string
	patternMsg  string // "does not match pattern '…'"
	formatMsg   string // the format's name, quoted
	bounds      []numBound
	names       map[string]int // property, required and dependent names → entries
	entries     []nameEntry
	required    []string // in schema order
	reqMask     uint64   // bits of the required names
	reqAltMsg   string   // "a or b is required" when required sits alone in an anyOf branch
	hasDeps     bool
	additional  *fnode // nil: allowed
	closed      bool   // additionalProperties: false
	items       *fnode
	inplace     []*fnode // $ref and allOf
	ref         *fnode   // the $ref among them (Shape)
	allOf       []*fnode // the allOf members among them (Shape)
	anyOf       []*fnode
	ifNode      *fnode
	thenNode    *fnode
	elseNode    *fnode
	loc         string // absolute location of the subschema (URL#pointer)
	alias       *fnode // while compiling: the node is only a $ref to alias
}

// nameEntry is one name an object node knows.
type nameEntry struct {
	name      string
	bit       uint   // its bit in masks
	prop      *fnode // its properties subschema, nil when it has none
	dependent *fnode // its dependentSchemas subschema, nil when it has none
}

// numBound is one minimum, exclusiveMinimum or maximum keyword.
type numBound struct {
	rule string  // the keyword
	op   string  // its comparison, as messages word it (">=")
	text string  // the bound as written in the schema
	dec  decimal // its value
}

// fails reports whether a number whose comparison with the bound is c
// breaks it.
func (b *numBound) fails(c int) bool {
	switch b.rule {
	case "minimum":
		return c < 0
	case "exclusiveMinimum":
		return c <= 0
	}
	return c > 0 // maximum
}

// enumSet is one enum or const keyword of strings, booleans and nulls.
type enumSet struct {
	rule                       string // "enum" or "const"
	msg                        string // jsonschema's wording of its failure
	values                     []any  // as written (Shape)
	strs                       []string
	hasTrue, hasFalse, hasNull bool
}

// has reports whether the scalar of kind k (with string value s) is listed.
func (e *enumSet) has(k uint8, s string, b bool) bool {
	switch k {
	case tString:
		for _, x := range e.strs {
			if x == s {
				return true
			}
		}
	case tBoolean:
		return (b && e.hasTrue) || (!b && e.hasFalse)
	case tNull:
		return e.hasNull
	}
	return false
}

// lookup finds the entry of a name: a few are compared in turn, faster
// than hashing the key.
func (n *fnode) lookup(key string) (int, bool) {
	if len(n.entries) <= 16 {
		for i := range n.entries {
			if n.entries[i].name == key {
				return i, true
			}
		}
		return 0, false
	}
	i, ok := n.names[key]
	return i, ok
}

// typeBit maps a JSON Schema type name to its bit (0: not a type).
func typeBit(name string) uint8 {
	switch name {
	case "null":
		return tNull
	case "boolean":
		return tBoolean
	case "integer":
		return tInteger
	case "number":
		return tNumber
	case "string":
		return tString
	case "array":
		return tArray
	case "object":
		return tObject
	}
	return 0
}

// stringOK decides a string (a path parameter) against the node.
func (n *fnode) stringOK(s string) bool {
	if n.never || (n.types != 0 && n.types&tString == 0) {
		return false
	}
	for i := range n.enums {
		if !n.enums[i].has(tString, s, false) {
			return false
		}
	}
	if n.format != nil && !n.format(s) {
		return false
	}
	if n.minLen >= 0 || n.maxLen >= 0 {
		l := utf8.RuneCountInString(s)
		if (n.minLen >= 0 && l < n.minLen) || (n.maxLen >= 0 && l > n.maxLen) {
			return false
		}
	}
	if n.pattern != nil && !n.pattern.MatchString(s) {
		return false
	}
	for _, in := range n.inplace {
		if !in.stringOK(s) {
			return false
		}
	}
	if n.anyOf != nil {
		ok := false
		for _, a := range n.anyOf {
			ok = ok || a.stringOK(s)
		}
		if !ok {
			return false
		}
	}
	if n.ifNode != nil {
		if n.ifNode.stringOK(s) {
			return n.thenNode == nil || n.thenNode.stringOK(s)
		}
		return n.elseNode == nil || n.elseNode.stringOK(s)
	}
	return true
}

// bytesString views b as a string without copying; the string must not
// outlive the call that holds b unchanged.
func bytesString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// typeMessage words a type failure as violations does.
func typeMessage(names []string, got string) string {
	return "expected " + strings.Join(names, " or ") + ", but got " + got
}
