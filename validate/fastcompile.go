package validate

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/conform-kit/conform/validate/internal/jsondoc"
	"github.com/santhosh-tekuri/jsonschema/v5"
)

// This file compiles the decoded schema documents into the fast path's
// nodes (fastpath.go). Anything it does not understand compiles to nil, which
// leaves the whole schema to jsonschema.

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

// compile returns the node at url#ptr, or nil when the fast path does not
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
	if n != nil {
		n.loc = key
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
	sub := func(kw string) *fnode { return c.compile(file, ptr+"/"+kw) }
	for kw, val := range m {
		okKw := true
		switch kw {
		case "type":
			okKw = n.setTypes(val)
			n.typeNames = typeNames(val)
		case "enum":
			list, isList := val.([]any)
			okKw = isList && n.setEnum(list)
		case "const":
			okKw = n.setEnum([]any{val})
		case "minLength", "maxLength", "minItems", "maxItems":
			i, isInt := intOf(val)
			okKw = isInt
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
			okKw = err == nil
			n.pattern = m
		case "format":
			s, _ := val.(string)
			n.format, okKw = jsonschema.Formats[s]
		case "minimum", "maximum", "exclusiveMinimum":
			i, isInt := intOf(val)
			okKw = isInt
			text := ""
			if num, isNum := val.(json.Number); isNum {
				text = string(num)
			}
			switch kw {
			case "minimum":
				n.min, n.minText = &i, text
			case "maximum":
				n.max, n.maxText = &i, text
			default:
				n.exclMin, n.exclMinText = &i, text
			}
		case "properties":
			props, _ := val.(map[string]any)
			n.props = make(map[string]*fnode, len(props))
			for name := range props {
				if n.props[name] = sub("properties/" + jsondoc.Escape(name)); n.props[name] == nil {
					okKw = false
				}
			}
		case "required":
			list, _ := val.([]any)
			for _, r := range list {
				s, isStr := r.(string)
				okKw = okKw && isStr
				n.required = append(n.required, s)
			}
		case "additionalProperties":
			n.additional = sub(kw)
			okKw = n.additional != nil
		case "items":
			n.items = sub(kw)
			okKw = n.items != nil
		case "$ref":
			s, _ := val.(string)
			target := c.ref(file, s)
			okKw = target != nil
			n.inplace = append(n.inplace, target)
		case "allOf", "anyOf":
			list, _ := val.([]any)
			for i := range list {
				child := sub(kw + "/" + strconv.Itoa(i))
				okKw = okKw && child != nil
				if kw == "allOf" {
					n.inplace = append(n.inplace, child)
				} else {
					n.anyOf = append(n.anyOf, child)
				}
			}
		case "if", "then", "else":
			child := sub(kw)
			okKw = child != nil
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
			n.dependents = make(map[string]*fnode, len(deps))
			for name := range deps {
				if n.dependents[name] = sub("dependentSchemas/" + jsondoc.Escape(name)); n.dependents[name] == nil {
					okKw = false
				}
			}
		default:
			okKw = annotation(kw)
		}
		if !okKw {
			return nil
		}
	}
	return n
}

// compileSchemas compiles, with jsonschema, the subschema of every node, so
// that collect can have jsonschema word the violations of one value.
func (c *fastCompiler) compileSchemas(jc *jsonschema.Compiler) {
	for _, n := range c.done {
		if n == nil {
			continue
		}
		if s, err := jc.Compile(n.loc); err == nil {
			n.schema = s
		}
	}
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

func (n *fnode) setEnum(list []any) bool {
	for _, e := range list {
		switch e.(type) {
		case string, bool, nil:
		default:
			return false
		}
	}
	n.enum = list
	return true
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
