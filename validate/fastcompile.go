package validate

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/conform-kit/conform/validate/internal/jsondoc"
	"github.com/santhosh-tekuri/jsonschema/v5"
)

// This file compiles the decoded schema documents into the pass's program
// (fastpath.go, pass.go). Anything it does not understand compiles to nil,
// which leaves the whole schema to jsonschema.

// annotation reports whether kw is a keyword without assertion.
func annotation(kw string) bool {
	switch kw {
	case "$schema", "$comment", "$defs", "title", "description", "examples", "default":
		return true
	}
	return false
}

// fastCompiler compiles the decoded schema documents into fnodes.
type fastCompiler struct {
	docs     map[string]any // by absolute URL
	done     map[string]*fnode
	visiting map[string]bool
}

// compile returns the node at url#ptr, or nil when the program does not
// support it.
func (c *fastCompiler) compile(file, ptr string) *fnode {
	key := file + "#" + ptr
	if n, ok := c.done[key]; ok {
		return n
	}
	if c.visiting[key] { // a cycle: leave it to jsonschema
		return nil
	}
	c.visiting[key] = true
	defer delete(c.visiting, key)
	doc, ok := c.docs[file]
	if !ok {
		return nil
	}
	n := c.node(file, ptr, instanceAt(doc, ptr))
	if n != nil && n.alias != nil {
		// A subschema that is only a $ref is its target: checked once, not
		// twice (its failures are the target's, at the same places).
		n = n.alias
	} else if n != nil {
		n.loc = key
		if n.never {
			n.neverRule = ruleOf(ptr)
			n.neverMsg = "not allowed"
			if n.neverRule == "false" {
				n.neverMsg = "must not be present here"
			}
		}
	}
	c.done[key] = n
	return n
}

func (c *fastCompiler) node(file, ptr string, raw any) *fnode {
	if b, ok := raw.(bool); ok {
		return &fnode{never: !b, minLen: -1, maxLen: -1, minItems: -1, maxItems: -1}
	}
	m, ok := raw.(map[string]any)
	if !ok {
		return nil
	}
	n := &fnode{minLen: -1, maxLen: -1, minItems: -1, maxItems: -1}
	onlyRef := true
	for kw, val := range m {
		if kw != "$ref" && !annotation(kw) {
			onlyRef = false
		}
		okKw, known := n.assertion(kw, val)
		if !known {
			okKw = c.applicator(n, file, ptr, kw, val)
		}
		if !okKw || len(n.names) > 64 {
			return nil
		}
	}
	if n.additional != nil && n.additional.never {
		n.closed = true
	}
	if onlyRef && len(n.inplace) == 1 {
		return &fnode{alias: n.inplace[0]}
	}
	return n
}

// assertion compiles a keyword that checks the value itself. known is
// false for any other keyword; ok is false for one the program does not
// support.
func (n *fnode) assertion(kw string, val any) (ok, known bool) {
	ok = true
	switch kw {
	case "type":
		ok = n.setTypes(val)
		n.typeNames = typeNames(val)
	case "enum":
		list, isList := val.([]any)
		ok = isList && n.setEnum("enum", list)
	case "const":
		ok = n.setEnum("const", []any{val})
	case "minLength", "maxLength", "minItems", "maxItems":
		i, isInt := intOf(val)
		ok = isInt
		switch kw {
		case "minLength":
			n.minLen = int(i)
		case "maxLength":
			n.maxLen = int(i)
		case "minItems":
			n.minItems = int(i)
		default:
			n.maxItems = int(i)
		}
	case "pattern":
		s, _ := val.(string)
		m, err := compilePattern(s)
		ok = err == nil
		n.pattern, n.patternText, n.patternMsg = m, s, "does not match pattern "+quote(s)
	case "format":
		s, _ := val.(string)
		n.format, ok = jsonschema.Formats[s]
		n.formatName, n.formatMsg = s, quote(s)
	case "minimum", "maximum", "exclusiveMinimum":
		num, isNum := val.(json.Number)
		ok = isNum && !oversizedNumber(string(num))
		if ok {
			op := map[string]string{"minimum": ">=", "maximum": "<=", "exclusiveMinimum": ">"}[kw]
			n.bounds = append(n.bounds, numBound{rule: kw, op: op, text: string(num), dec: parseDecimal(string(num))})
		}
	case "required":
		list, _ := val.([]any)
		for _, r := range list {
			s, isStr := r.(string)
			ok = ok && isStr
			n.required = append(n.required, s)
			n.reqMask |= 1 << n.name(s).bit
		}
	default:
		return false, false
	}
	return ok, true
}

// applicator compiles a keyword that applies subschemas (to members,
// elements or the value itself), or an annotation; false for anything the
// program does not support.
func (c *fastCompiler) applicator(n *fnode, file, ptr, kw string, val any) bool {
	sub := func(kw string) *fnode { return c.compile(file, ptr+"/"+kw) }
	ok := true
	switch kw {
	case "properties":
		props, _ := val.(map[string]any)
		for name := range props {
			p := sub("properties/" + jsondoc.Escape(name))
			ok = ok && p != nil
			n.name(name).prop = p
		}
	case "additionalProperties":
		n.additional = sub(kw)
		ok = n.additional != nil
	case "items":
		n.items = sub(kw)
		ok = n.items != nil
	case "$ref":
		s, _ := val.(string)
		target := c.ref(file, s)
		ok = target != nil
		n.inplace = append(n.inplace, target)
		n.ref = target
	case "allOf", "anyOf":
		list, _ := val.([]any)
		for i := range list {
			child := sub(kw + "/" + strconv.Itoa(i))
			ok = ok && child != nil
			if kw == "allOf" {
				n.inplace = append(n.inplace, child)
				n.allOf = append(n.allOf, child)
			} else {
				n.anyOf = append(n.anyOf, child)
			}
		}
	case "if", "then", "else":
		child := sub(kw)
		ok = child != nil
		switch kw {
		case "if":
			n.ifNode = child
		case "then":
			n.thenNode = child
		default:
			n.elseNode = child
		}
	case "dependentSchemas":
		deps, _ := val.(map[string]any)
		for name := range deps {
			d := sub("dependentSchemas/" + jsondoc.Escape(name))
			ok = ok && d != nil
			n.name(name).dependent = d
			n.hasDeps = true
		}
	default:
		ok = annotation(kw)
	}
	return ok
}

// ref resolves a $ref ("other.json#/ptr", "#/ptr" or "other.json").
func (c *fastCompiler) ref(file, ref string) *fnode {
	target, frag, _ := strings.Cut(ref, "#")
	if target != "" {
		if strings.Contains(target, "/") || strings.Contains(target, ":") {
			return nil
		}
		file = baseURL + target
	}
	return c.compile(file, frag)
}

func (n *fnode) setTypes(val any) bool {
	switch t := val.(type) {
	case string:
		n.types = typeBit(t)
		return n.types != 0
	case []any:
		for _, e := range t {
			s, _ := e.(string)
			if typeBit(s) == 0 {
				return false
			}
			n.types |= typeBit(s)
		}
		return true
	}
	return false
}

// setEnum adds an enum or const keyword of strings, booleans and nulls,
// worded as jsonschema words its failure.
func (n *fnode) setEnum(rule string, list []any) bool {
	e := enumSet{rule: rule, values: list}
	words := make([]string, len(list))
	for i, item := range list {
		switch x := item.(type) {
		case string:
			e.strs = append(e.strs, x)
		case bool:
			if x {
				e.hasTrue = true
			} else {
				e.hasFalse = true
			}
		case nil:
			e.hasNull = true
		default:
			return false
		}
		words[i] = fmt.Sprintf("%#v", item)
	}
	if len(list) == 1 {
		e.msg = "value must be " + words[0]
	} else {
		e.msg = "value must be one of " + strings.Join(words, ", ")
	}
	n.enums = append(n.enums, e)
	return true
}

// name returns the entry of a property, required or dependent name,
// adding it (with the next bit) the first time.
func (n *fnode) name(s string) *nameEntry {
	if i, ok := n.names[s]; ok {
		return &n.entries[i]
	}
	if n.names == nil {
		n.names = make(map[string]int)
	}
	n.names[s] = len(n.entries)
	n.entries = append(n.entries, nameEntry{name: s, bit: uint(len(n.entries))})
	return &n.entries[len(n.entries)-1]
}

// intOf reads an integral schema number.
func intOf(v any) (int64, bool) {
	num, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	i, err := strconv.ParseInt(string(num), 10, 64)
	return i, err == nil
}
