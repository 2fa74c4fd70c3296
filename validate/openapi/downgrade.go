package openapi

import (
	"encoding/json"
	"maps"
	"math/big"
	"slices"
	"strings"
)

// DroppedExtension is the extension keyword a 3.0 schema carries when the
// conversion dropped (or weakened) 3.1 keywords that 3.0 cannot say: the
// sorted names of those keywords. A schema without it lost nothing.
const DroppedExtension = "x-conform-dropped"

// CommentExtension carries a 3.1 schema's $comment in 3.0, which has no
// $comment keyword.
const CommentExtension = "x-comment"

// downgrade rewrites, in place, a 3.1 document as Document builds it into
// OpenAPI 3.0.3. Every schema goes through downSchema; binary bodies get
// the 3.0 schema for raw octets.
func downgrade(doc map[string]any) {
	doc["openapi"] = "3.0.3"
	delete(doc, "jsonSchemaDialect")
	eachSchema(doc, downSchema)
	components := map[string]any{}
	if c, ok := doc["components"].(map[string]any); ok {
		components, _ = c["schemas"].(map[string]any)
	}
	var typed func(s any) any
	typed = func(s any) any {
		if m, ok := s.(map[string]any); ok {
			eachSubschema(m, typed)
			return typeNullable(m, components)
		}
		return s
	}
	eachSchema(doc, typed)
	var walk func(node any)
	walk = func(node any) {
		switch x := node.(type) {
		case map[string]any:
			if content, ok := x["content"].(map[string]any); ok {
				for mt, media := range content {
					if m, ok := media.(map[string]any); ok && m["schema"] == nil && !strings.Contains(mt, "json") {
						m["schema"] = map[string]any{"type": "string", "format": "binary"}
					}
				}
			}
			for k, v := range x {
				if k != "schema" && k != "schemas" {
					walk(v)
				}
			}
		case []any:
			for _, v := range x {
				walk(v)
			}
		}
	}
	walk(doc)
}

// oas30Keywords are the keywords of a 3.0 Schema Object; any other (but an
// x- extension) is dropped after conversion.
var oas30Keywords = map[string]bool{
	"title": true, "multipleOf": true, "maximum": true, "exclusiveMaximum": true, "minimum": true,
	"exclusiveMinimum": true, "maxLength": true, "minLength": true, "pattern": true, "maxItems": true,
	"minItems": true, "uniqueItems": true, "maxProperties": true, "minProperties": true, "required": true,
	"enum": true, "type": true, "allOf": true, "oneOf": true, "anyOf": true, "not": true, "items": true,
	"properties": true, "additionalProperties": true, "description": true, "format": true, "default": true,
	"nullable": true, "discriminator": true, "readOnly": true, "writeOnly": true, "xml": true,
	"externalDocs": true, "example": true, "deprecated": true, "$ref": true,
}

// downSchema converts one JSON Schema 2020-12 schema, and its subschemas,
// to a 3.0 Schema Object, saying in 3.0 whatever 3.0 can say:
//
//   - boolean schemas: true is {}, false is {"not": {}} (additionalProperties keeps its boolean);
//   - "type" lists: one type plus "null" is the type with nullable; several are an anyOf of types;
//     an anyOf/oneOf branch {"type": "null"} is nullable on the schema, and a lone remaining branch
//     becomes an allOf member;
//   - const is a one-value enum; numeric exclusiveMinimum/exclusiveMaximum are minimum/maximum with
//     the boolean form; examples is example (the first);
//   - if/then/else, dependentSchemas and dependentRequired are the equivalent anyOf/not/allOf;
//   - contains is not/items/not; unevaluatedProperties and unevaluatedItems on a schema without
//     applicators are additionalProperties and items;
//   - prefixItems with items is weakened to items: anyOf of them all (sound, not exact);
//   - contentEncoding base64 is format byte, a non-text contentMediaType is format binary;
//   - $comment is the x-comment extension.
//
// What 3.0 cannot say (patternProperties, propertyNames, minContains, $id, $anchor, ...) is dropped
// and named in the x-conform-dropped extension; where dropping patternProperties would make
// additionalProperties refuse valid names, additionalProperties is dropped too.
func downSchema(s any) any {
	m, ok := s.(map[string]any)
	if !ok {
		return boolSchemaObject(s)
	}
	c := &conversion{m: m, original: map[string]any{}}
	c.applicators = hasAny(c.m, "$ref", "allOf", "anyOf", "oneOf", "if", "dependentSchemas", "$dynamicRef")
	for _, k := range []string{"additionalProperties", "items", "unevaluatedProperties", "unevaluatedItems"} {
		if v, ok := c.m[k]; ok {
			c.original[k] = v
		}
	}
	nullable := dropNullBranches(c.m)
	eachSubschema(c.m, downSchema)
	if b, ok := c.original["additionalProperties"].(bool); ok {
		c.m["additionalProperties"] = b
	}
	c.unevaluated()
	c.patternProperties()
	c.types(nullable)
	c.values()
	c.conditionals()
	c.arrays()
	c.content()
	return c.finish()
}

// conversion is one schema being converted: what it adds as allOf members
// and the names of what it drops.
type conversion struct {
	m           map[string]any
	original    map[string]any // the keywords whose 2020-12 value matters after the subschemas are converted
	applicators bool           // whether the 2020-12 schema has in-place applicators (for unevaluated*)
	extra       []any
	dropped     []string
}

// unevaluated turns unevaluatedProperties and unevaluatedItems into
// additionalProperties and items where nothing else evaluates.
func (c *conversion) unevaluated() {
	m := c.m
	if u, ok := c.original["unevaluatedProperties"]; ok {
		converted := m["unevaluatedProperties"]
		delete(m, "unevaluatedProperties")
		switch {
		case u == true:
		case !c.applicators && !hasAny(m, "additionalProperties", "patternProperties"):
			if b, isBool := u.(bool); isBool {
				m["additionalProperties"] = b
			} else {
				m["additionalProperties"] = converted
			}
		default:
			c.dropped = append(c.dropped, "unevaluatedProperties")
		}
	}
	if u, ok := c.original["unevaluatedItems"]; ok {
		converted := m["unevaluatedItems"]
		delete(m, "unevaluatedItems")
		switch {
		case u == true:
		case !c.applicators && !hasAny(m, "items", "prefixItems", "contains"):
			m["items"] = converted
		default:
			c.dropped = append(c.dropped, "unevaluatedItems")
		}
	}
}

// patternProperties drops patternProperties, and the additionalProperties
// that would then refuse the names it matched.
func (c *conversion) patternProperties() {
	pp, ok := c.m["patternProperties"].(map[string]any)
	if !ok {
		return
	}
	delete(c.m, "patternProperties")
	if len(pp) > 0 {
		c.dropped = append(c.dropped, "patternProperties")
		if ap, ok := c.m["additionalProperties"]; ok && ap != true {
			delete(c.m, "additionalProperties")
			c.dropped = append(c.dropped, "additionalProperties")
		}
	}
}

// types says a type list and null in 3.0: one type with nullable, or an
// anyOf of types. nullable says whether a null branch was already removed.
func (c *conversion) types(nullable bool) {
	m := c.m
	switch t := m["type"].(type) {
	case string:
		if t == "null" {
			delete(m, "type")
			nullable = true
			if _, ok := m["enum"]; !ok {
				m["enum"] = []any{nil}
			}
		}
	case []any:
		var types []any
		for _, e := range t {
			if e == "null" {
				nullable = true
			} else {
				types = append(types, e)
			}
		}
		switch len(types) {
		case 0:
			delete(m, "type")
			if _, ok := m["enum"]; !ok {
				m["enum"] = []any{nil}
			}
		case 1:
			m["type"] = types[0]
		default:
			delete(m, "type")
			branches := make([]any, len(types))
			for i, e := range types {
				b := map[string]any{"type": e}
				if e == "array" {
					b["items"] = map[string]any{}
				}
				if nullable {
					b["nullable"] = true
				}
				branches[i] = b
			}
			c.extra = append(c.extra, map[string]any{"anyOf": branches})
			nullable = false // said in each branch
		}
	}
	if nullable {
		m["nullable"] = true
	}
}

// values converts const, the exclusive bounds and examples.
func (c *conversion) values() {
	m := c.m
	if v, ok := m["const"]; ok {
		delete(m, "const")
		if _, hasEnum := m["enum"]; hasEnum {
			c.extra = append(c.extra, map[string]any{"enum": []any{v}})
		} else {
			m["enum"] = []any{v}
		}
		if v == nil {
			m["nullable"] = true
		}
	}
	exclusiveBound(m, "exclusiveMinimum", "minimum", 1)
	exclusiveBound(m, "exclusiveMaximum", "maximum", -1)
	if ex, ok := m["examples"].([]any); ok {
		delete(m, "examples")
		if _, has := m["example"]; !has && len(ex) > 0 {
			m["example"] = ex[0]
		}
	}
}

// conditionals says if/then/else, dependentSchemas and dependentRequired
// with anyOf, allOf and not.
func (c *conversion) conditionals() {
	m := c.m
	if cond, ok := m["if"]; ok {
		then, hasThen := m["then"]
		els, hasElse := m["else"]
		switch {
		case hasThen && hasElse:
			c.extra = append(c.extra, map[string]any{"anyOf": []any{
				map[string]any{"allOf": []any{cond, then}},
				map[string]any{"allOf": []any{map[string]any{"not": clone(cond)}, els}},
			}})
		case hasThen:
			c.extra = append(c.extra, map[string]any{"anyOf": []any{map[string]any{"not": cond}, then}})
		case hasElse:
			c.extra = append(c.extra, map[string]any{"anyOf": []any{cond, els}})
		}
	}
	delete(m, "if")
	delete(m, "then")
	delete(m, "else")
	if ds, ok := m["dependentSchemas"].(map[string]any); ok {
		delete(m, "dependentSchemas")
		for _, name := range slices.Sorted(maps.Keys(ds)) {
			c.extra = append(c.extra, map[string]any{"anyOf": []any{absent(name), ds[name]}})
		}
	}
	if dr, ok := m["dependentRequired"].(map[string]any); ok {
		delete(m, "dependentRequired")
		for _, name := range slices.Sorted(maps.Keys(dr)) {
			if req, ok := dr[name].([]any); ok && len(req) > 0 {
				c.extra = append(c.extra, map[string]any{"anyOf": []any{absent(name), map[string]any{"required": req}}})
			}
		}
	}
}

// arrays converts prefixItems (weakened) and contains.
func (c *conversion) arrays() {
	m := c.m
	if prefix, ok := m["prefixItems"].([]any); ok {
		delete(m, "prefixItems")
		items, hasItems := m["items"]
		switch {
		case len(prefix) == 0:
		case c.original["items"] == false:
			m["items"] = map[string]any{"anyOf": prefix}
			if maxItems, ok := num(m["maxItems"]); !ok || maxItems.Cmp(big.NewRat(int64(len(prefix)), 1)) > 0 {
				m["maxItems"] = len(prefix)
			}
			c.dropped = append(c.dropped, "prefixItems")
		case hasItems:
			m["items"] = map[string]any{"anyOf": append(slices.Clone(prefix), items)}
			c.dropped = append(c.dropped, "prefixItems")
		default:
			c.dropped = append(c.dropped, "prefixItems")
		}
	}
	if contained, ok := m["contains"]; ok {
		delete(m, "contains")
		minContains, hasMin := num(m["minContains"])
		_, hasMax := m["maxContains"]
		delete(m, "minContains")
		delete(m, "maxContains")
		if !hasMin || minContains.Sign() > 0 {
			some := map[string]any{"not": map[string]any{"items": map[string]any{"not": contained}}}
			if m["type"] == "array" {
				c.extra = append(c.extra, some)
			} else {
				some["type"] = "array"
				some["items"] = map[string]any{}
				c.extra = append(c.extra, map[string]any{"anyOf": []any{
					map[string]any{"not": map[string]any{"type": "array", "items": map[string]any{}}}, some}})
			}
			if hasMin && minContains.Cmp(big.NewRat(1, 1)) != 0 {
				c.dropped = append(c.dropped, "minContains")
			}
		}
		if hasMax {
			c.dropped = append(c.dropped, "maxContains")
		}
	}
}

// content converts contentEncoding and contentMediaType to 3.0 formats,
// and $comment to its extension.
func (c *conversion) content() {
	m := c.m
	encoding, hasEncoding := m["contentEncoding"].(string)
	mediaType, hasMediaType := m["contentMediaType"].(string)
	_, hasFormat := m["format"]
	switch {
	case hasEncoding && strings.EqualFold(encoding, "base64") && !hasFormat:
		m["format"] = "byte"
		if hasMediaType {
			c.dropped = append(c.dropped, "contentMediaType")
		}
	case !hasEncoding && hasMediaType && !textual(mediaType) && !hasFormat:
		m["format"] = "binary"
	default:
		if hasEncoding {
			c.dropped = append(c.dropped, "contentEncoding")
		}
		if hasMediaType {
			c.dropped = append(c.dropped, "contentMediaType")
		}
	}
	delete(m, "contentEncoding")
	delete(m, "contentMediaType")
	if comment, ok := m["$comment"]; ok {
		delete(m, "$comment")
		m[CommentExtension] = comment
	}
}

// finish drops what 3.0 has no keyword for, adds the allOf members and
// names what was dropped.
func (c *conversion) finish() map[string]any {
	m := c.m
	if req, ok := m["required"].([]any); ok && len(req) == 0 {
		delete(m, "required")
	}
	if m["type"] == "array" {
		if _, ok := m["items"]; !ok {
			m["items"] = map[string]any{}
		}
	}
	for k := range m {
		if !oas30Keywords[k] && !strings.HasPrefix(k, "x-") {
			delete(m, k)
			c.dropped = append(c.dropped, k)
		}
	}
	if len(c.extra) > 0 {
		all, _ := m["allOf"].([]any)
		m["allOf"] = append(all, c.extra...)
	}
	if len(c.dropped) > 0 {
		slices.Sort(c.dropped)
		names := make([]any, 0, len(c.dropped))
		for _, d := range slices.Compact(c.dropped) {
			names = append(names, d)
		}
		m[DroppedExtension] = names
	}
	return m
}

// nullSafe are the keywords a schema may hold and still be made nullable
// by adding nullable: they constrain one type only, or annotate.
var nullSafe = map[string]bool{
	"type": true, "format": true, "pattern": true, "minLength": true, "maxLength": true, "minimum": true,
	"maximum": true, "exclusiveMinimum": true, "exclusiveMaximum": true, "multipleOf": true, "enum": true,
	"title": true, "description": true, "example": true, "default": true, "deprecated": true,
	"readOnly": true, "writeOnly": true, "nullable": true,
}

// typeNullable gives a nullable schema without a type the type OpenAPI
// 3.0.3 needs beside nullable ("a true value adds null to the allowed
// types specified by the type keyword, only if type is explicitly defined
// within the same Schema Object"), saying the same thing:
//
//   - null alone ({"nullable": true, "enum": [null]}) takes type object;
//   - a nullable reference to a component that constrains one type only
//     (the contract's nullable ids, timestamps and durations) is that
//     component inline with nullable, null added to its enum;
//   - anything else is an anyOf of the schema without nullable and null.
func typeNullable(m map[string]any, components map[string]any) map[string]any {
	if m["nullable"] != true || m["type"] != nil {
		return m
	}
	if e, ok := m["enum"].([]any); ok && len(e) == 1 && e[0] == nil {
		m["type"] = "object"
		return m
	}
	if all, ok := m["allOf"].([]any); ok && len(all) == 1 {
		member, _ := all[0].(map[string]any)
		r, _ := member["$ref"].(string)
		target, ok := components[strings.TrimPrefix(r, "#/components/schemas/")].(map[string]any)
		simple := ok && r != "" && len(member) == 1 && target["type"] != nil
		for k := range target {
			simple = simple && (nullSafe[k] || strings.HasPrefix(k, "x-"))
		}
		for k := range m {
			simple = simple && (k == "allOf" || nullSafe[k] || strings.HasPrefix(k, "x-"))
		}
		if simple {
			out := clone(target).(map[string]any)
			for k, v := range m {
				if k != "allOf" {
					out[k] = v
				}
			}
			if e, ok := out["enum"].([]any); ok && !slices.Contains(e, nil) {
				out["enum"] = append(e, nil)
			}
			return out
		}
	}
	delete(m, "nullable")
	return map[string]any{"anyOf": []any{m, map[string]any{"type": "object", "nullable": true, "enum": []any{nil}}}}
}

// dropNullBranches removes the branches {"type": "null"} from anyOf and
// oneOf and reports whether it removed any. A single remaining branch moves
// to allOf (an anyOf or oneOf of one is that one).
func dropNullBranches(m map[string]any) bool {
	found := false
	for _, k := range []string{"anyOf", "oneOf"} {
		l, ok := m[k].([]any)
		if !ok {
			continue
		}
		kept := make([]any, 0, len(l))
		for _, b := range l {
			if isNullSchema(b) {
				found = true
				continue
			}
			kept = append(kept, b)
		}
		if len(kept) == len(l) {
			continue
		}
		switch len(kept) {
		case 0:
			delete(m, k)
			m["enum"] = []any{nil}
		case 1:
			delete(m, k)
			all, _ := m["allOf"].([]any)
			m["allOf"] = append(all, kept[0])
		default:
			m[k] = kept
		}
	}
	return found
}

func isNullSchema(s any) bool {
	m, ok := s.(map[string]any)
	if !ok || len(m) != 1 {
		return false
	}
	switch t := m["type"].(type) {
	case string:
		return t == "null"
	case []any:
		return len(t) == 1 && t[0] == "null"
	}
	return false
}

// exclusiveBound turns a numeric exclusive bound into the 3.0 form: the
// bound in bound with exclusive true, unless an inclusive bound already
// there is stricter (sign 1 for a minimum, -1 for a maximum).
func exclusiveBound(m map[string]any, exclusive, bound string, sign int) {
	ex, ok := num(m[exclusive])
	if !ok {
		return
	}
	if b, ok := num(m[bound]); ok && b.Cmp(ex)*sign > 0 {
		delete(m, exclusive)
		return
	}
	m[bound] = m[exclusive]
	m[exclusive] = true
}

func num(v any) (*big.Rat, bool) {
	switch n := v.(type) {
	case json.Number:
		return new(big.Rat).SetString(n.String())
	case float64:
		r := new(big.Rat)
		if r.SetFloat64(n) == nil {
			return nil, false
		}
		return r, true
	case int:
		return big.NewRat(int64(n), 1), true
	case int64:
		return big.NewRat(n, 1), true
	}
	return nil, false
}

func hasAny(m map[string]any, keys ...string) bool {
	for _, k := range keys {
		if _, ok := m[k]; ok {
			return true
		}
	}
	return false
}

// absent is the schema of an object without the property name.
func absent(name string) map[string]any {
	return map[string]any{"not": map[string]any{"required": []any{name}}}
}

func textual(mediaType string) bool {
	mt := strings.ToLower(mediaType)
	return strings.HasPrefix(mt, "text/") || strings.Contains(mt, "json") || strings.Contains(mt, "xml")
}

// clone copies a JSON value deeply, so one subschema can appear twice.
func clone(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = clone(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = clone(e)
		}
		return out
	}
	return v
}
