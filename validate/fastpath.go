package validate

import (
	"encoding/json"
	"strconv"
	"sync/atomic"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// The fast path answers "is this document valid?" without building the error
// tree jsonschema allocates on every call. It understands only the keywords
// these schemas use; a schema using anything else gets no fast path. It is
// only ever trusted to say "valid": "invalid" and "unknown" both fall back to
// the full jsonschema validation, which stays the reference and produces the
// violations. fastpath_internal_test.go checks both agree on every fixture.

// verdict of the fast path.
type verdict uint8

const (
	fastValid verdict = iota
	fastInvalid
	fastUnknown // a value the fast path does not decide (e.g. 1.0 for an integer)
)

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
	never       bool  // the false schema
	types       uint8 // 0: any type
	enum        []any // strings, booleans and null only
	minLen      int   // -1: none
	maxLen      int
	minItems    int // -1: none
	maxItems    int
	pattern     matcher
	format      func(any) bool
	min, max    *int64 // inclusive bounds
	exclMin     *int64
	props       map[string]*fnode
	required    []string
	additional  *fnode // nil: allowed
	items       *fnode
	inplace     []*fnode // $ref and allOf
	anyOf       []*fnode
	ifNode      *fnode
	thenNode    *fnode
	elseNode    *fnode
	dependents  map[string]*fnode
	typeNames   []string // the "type" keyword as written
	minText     string   // the bounds as written in the schema
	maxText     string
	exclMinText string
	loc         string                         // absolute location of the subschema (URL#pointer)
	schema      *jsonschema.Schema             // the same subschema compiled by jsonschema, for collect
	fixed       [4]atomic.Pointer[[]Violation] // jsonschema\'s violations by fixedFailure mask, kept after the first
}

// check decides v against the node.
func (n *fnode) check(v any) verdict {
	if n.never {
		return fastInvalid
	}
	var num int64
	isNum := false
	var bit uint8
	switch x := v.(type) {
	case nil:
		bit = tNull
	case bool:
		bit = tBoolean
	case string:
		bit = tString
	case []any:
		bit = tArray
	case map[string]any:
		bit = tObject
	case json.Number:
		i, err := strconv.ParseInt(string(x), 10, 64)
		if err != nil {
			return fastUnknown
		}
		num, isNum, bit = i, true, tInteger|tNumber
	default:
		return fastUnknown
	}
	if n.types != 0 && n.types&bit == 0 {
		return fastInvalid
	}
	if n.enum != nil && !contains(n.enum, v) {
		return fastInvalid
	}
	if n.format != nil && !n.format(v) {
		return fastInvalid
	}
	switch x := v.(type) {
	case string:
		if n.minLen >= 0 || n.maxLen >= 0 {
			l := utf8.RuneCountInString(x)
			if (n.minLen >= 0 && l < n.minLen) || (n.maxLen >= 0 && l > n.maxLen) {
				return fastInvalid
			}
		}
		if n.pattern != nil && !n.pattern.MatchString(x) {
			return fastInvalid
		}
	case []any:
		if (n.minItems >= 0 && len(x) < n.minItems) || (n.maxItems >= 0 && len(x) > n.maxItems) {
			return fastInvalid
		}
		if n.items != nil {
			for _, e := range x {
				if r := n.items.check(e); r != fastValid {
					return r
				}
			}
		}
	case map[string]any:
		if r := n.checkObject(x); r != fastValid {
			return r
		}
	}
	if isNum && ((n.min != nil && num < *n.min) || (n.max != nil && num > *n.max) || (n.exclMin != nil && num <= *n.exclMin)) {
		return fastInvalid
	}
	for _, in := range n.inplace {
		if r := in.check(v); r != fastValid {
			return r
		}
	}
	if n.anyOf != nil {
		if r := n.checkAnyOf(v); r != fastValid {
			return r
		}
	}
	if n.ifNode != nil {
		switch n.ifNode.check(v) {
		case fastUnknown:
			return fastUnknown
		case fastValid:
			if n.thenNode != nil {
				return n.thenNode.check(v)
			}
		default:
			if n.elseNode != nil {
				return n.elseNode.check(v)
			}
		}
	}
	return fastValid
}

func (n *fnode) checkObject(obj map[string]any) verdict {
	for _, r := range n.required {
		if _, ok := obj[r]; !ok {
			return fastInvalid
		}
	}
	for name, val := range obj {
		if p, ok := n.props[name]; ok {
			if r := p.check(val); r != fastValid {
				return r
			}
		} else if n.additional != nil {
			if r := n.additional.check(val); r != fastValid {
				return r
			}
		}
		if d, ok := n.dependents[name]; ok {
			if r := d.check(obj); r != fastValid {
				return r
			}
		}
	}
	return fastValid
}

func (n *fnode) checkAnyOf(v any) verdict {
	result := fastInvalid
	for _, a := range n.anyOf {
		switch a.check(v) {
		case fastValid:
			return fastValid
		case fastUnknown:
			result = fastUnknown
		}
	}
	return result
}

func contains(list []any, v any) bool {
	switch v.(type) {
	case string, bool, nil:
		for _, e := range list {
			if e == v {
				return true
			}
		}
	}
	return false
}
