package openapi

// Keywords whose values are subschemas, by shape: a map of names to
// schemas, one schema, or a list of schemas.
var (
	schemaMapKeywords  = []string{"properties", "patternProperties", "dependentSchemas", "$defs"}
	schemaKeywords     = []string{"additionalProperties", "items", "not", "if", "then", "else", "propertyNames", "contains", "unevaluatedProperties", "unevaluatedItems", "contentSchema"}
	schemaListKeywords = []string{"allOf", "anyOf", "oneOf", "prefixItems"}
)

// eachSubschema replaces every direct subschema of the schema s with f of
// it. Boolean subschemas are passed too.
func eachSubschema(s map[string]any, f func(any) any) {
	for _, k := range schemaMapKeywords {
		if m, ok := s[k].(map[string]any); ok {
			for name, sub := range m {
				m[name] = f(sub)
			}
		}
	}
	for _, k := range schemaKeywords {
		if sub, ok := s[k]; ok {
			s[k] = f(sub)
		}
	}
	for _, k := range schemaListKeywords {
		if l, ok := s[k].([]any); ok {
			for i, sub := range l {
				l[i] = f(sub)
			}
		}
	}
}

// eachSchema replaces every schema of an OpenAPI document with f of it:
// the components and every "schema" of a parameter or media type. It does
// not descend into the schemas; f does that if it wants.
func eachSchema(doc map[string]any, f func(any) any) {
	if c, ok := doc["components"].(map[string]any); ok {
		if schemas, ok := c["schemas"].(map[string]any); ok {
			for name, s := range schemas {
				schemas[name] = f(s)
			}
		}
	}
	var walk func(node any)
	walk = func(node any) {
		switch x := node.(type) {
		case map[string]any:
			for k, v := range x {
				if k == "schema" {
					x[k] = f(v)
					continue
				}
				if k == "schemas" { // components.schemas, done above
					continue
				}
				walk(v)
			}
		case []any:
			for _, v := range x {
				walk(v)
			}
		}
	}
	walk(doc)
}

// plain rewrites s and all its subschemas into the forms every OpenAPI
// tool reads, each saying in JSON Schema 2020-12 exactly what it replaces:
//
//   - a $ref beside other keywords becomes an allOf member:
//     {"$ref": R, K: V} is {"allOf": [{"$ref": R}], K: V} (OpenAPI 3.0
//     ignores the siblings of a $ref, and many 3.1 tools mishandle them:
//     code generators drop them, so a list envelope extended by its items
//     became the bare envelope);
//   - a boolean schema becomes an object: true is {}, false is
//     {"not": {}} (Go OpenAPI libraries cannot decode a boolean where they
//     expect a schema); additionalProperties, which OpenAPI allows to be a
//     boolean, keeps it;
//   - an array schema without items or prefixItems gets items: {} (linters
//     require it, and OpenAPI 3.0 too).
func plain(s any) any {
	m, ok := s.(map[string]any)
	if !ok {
		return boolSchemaObject(s)
	}
	ap, apBool := m["additionalProperties"].(bool)
	eachSubschema(m, plain)
	if apBool {
		m["additionalProperties"] = ap
	}
	if m["type"] == "array" && !hasAny(m, "items", "prefixItems") {
		m["items"] = map[string]any{}
	}
	r, ok := m["$ref"]
	if !ok || len(m) == 1 {
		return m
	}
	delete(m, "$ref")
	all, _ := m["allOf"].([]any)
	m["allOf"] = append([]any{map[string]any{"$ref": r}}, all...)
	return m
}

// boolSchemaObject is a boolean schema as the object saying the same (true
// is {}, false is {"not": {}}); anything else is returned as it is.
func boolSchemaObject(s any) any {
	b, ok := s.(bool)
	if !ok {
		return s
	}
	if b {
		return map[string]any{}
	}
	return map[string]any{"not": map[string]any{}}
}
