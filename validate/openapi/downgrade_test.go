package openapi

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestDownSchema(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		// null
		{"type with null is nullable", `{"type":["string","null"],"maxLength":3}`, `{"type":"string","nullable":true,"maxLength":3}`},
		{"null first", `{"type":["null","object"]}`, `{"type":"object","nullable":true}`},
		{"several types are an anyOf of types", `{"type":["string","integer","null"]}`,
			`{"allOf":[{"anyOf":[{"type":"string","nullable":true},{"type":"integer","nullable":true}]}]}`},
		{"null alone", `{"type":"null"}`, `{"nullable":true,"enum":[null]}`},
		{"anyOf null or a ref", `{"anyOf":[{"type":"null"},{"$ref":"#/components/schemas/x"}]}`,
			`{"nullable":true,"allOf":[{"$ref":"#/components/schemas/x"}]}`},
		{"oneOf of null and two keeps two", `{"oneOf":[{"type":"string"},{"type":"null"},{"type":"integer"}]}`,
			`{"nullable":true,"oneOf":[{"type":"string"},{"type":"integer"}]}`},
		{"a single type stays", `{"type":["integer"]}`, `{"type":"integer"}`},
		// const, bounds, examples
		{"const is a one-value enum", `{"const":"DISPUTE"}`, `{"enum":["DISPUTE"]}`},
		{"const null", `{"const":null}`, `{"enum":[null],"nullable":true}`},
		{"const beside enum is an allOf enum", `{"enum":["A","B"],"const":"A"}`, `{"enum":["A","B"],"allOf":[{"enum":["A"]}]}`},
		{"exclusiveMinimum number", `{"type":"integer","exclusiveMinimum":0}`, `{"type":"integer","minimum":0,"exclusiveMinimum":true}`},
		{"exclusiveMaximum number", `{"exclusiveMaximum":10.5}`, `{"maximum":10.5,"exclusiveMaximum":true}`},
		{"a stricter minimum wins", `{"minimum":5,"exclusiveMinimum":3}`, `{"minimum":5}`},
		{"a looser minimum yields", `{"minimum":3,"exclusiveMinimum":3}`, `{"minimum":3,"exclusiveMinimum":true}`},
		{"a stricter maximum wins", `{"maximum":5,"exclusiveMaximum":9}`, `{"maximum":5}`},
		{"exact big bounds stay exact", `{"exclusiveMaximum":9223372036854775807}`, `{"maximum":9223372036854775807,"exclusiveMaximum":true}`},
		{"examples is example", `{"type":"string","examples":["a","b"]}`, `{"type":"string","example":"a"}`},
		{"example there wins", `{"example":"x","examples":["a"]}`, `{"example":"x"}`},
		// conditionals
		{"if then else", `{"if":{"required":["a"]},"then":{"required":["b"]},"else":{"required":["c"]}}`,
			`{"allOf":[{"anyOf":[{"allOf":[{"required":["a"]},{"required":["b"]}]},{"allOf":[{"not":{"required":["a"]}},{"required":["c"]}]}]}]}`},
		{"if then", `{"if":{"required":["a"]},"then":{"required":["b"]}}`, `{"allOf":[{"anyOf":[{"not":{"required":["a"]}},{"required":["b"]}]}]}`},
		{"if else", `{"if":{"required":["a"]},"else":{"required":["c"]}}`, `{"allOf":[{"anyOf":[{"required":["a"]},{"required":["c"]}]}]}`},
		{"if alone says nothing", `{"if":{"required":["a"]}}`, `{}`},
		{"a const inside if converts", `{"if":{"properties":{"type":{"const":"B"}}},"then":{"required":["b"]}}`,
			`{"allOf":[{"anyOf":[{"not":{"properties":{"type":{"enum":["B"]}}}},{"required":["b"]}]}]}`},
		{"dependentSchemas", `{"dependentSchemas":{"m":{"properties":{"n":false}},"a":{"required":["b"]}}}`,
			`{"allOf":[{"anyOf":[{"not":{"required":["a"]}},{"required":["b"]}]},{"anyOf":[{"not":{"required":["m"]}},{"properties":{"n":{"not":{}}}}]}]}`},
		{"dependentRequired", `{"dependentRequired":{"card":["cvv","expiry"],"none":[]}}`,
			`{"allOf":[{"anyOf":[{"not":{"required":["card"]}},{"required":["cvv","expiry"]}]}]}`},
		{"conversions join an allOf there", `{"allOf":[{"$ref":"#/x"}],"if":{"required":["a"]},"then":{"required":["b"]}}`,
			`{"allOf":[{"$ref":"#/x"},{"anyOf":[{"not":{"required":["a"]}},{"required":["b"]}]}]}`},
		// arrays
		{"contains on an array", `{"type":"array","items":{"type":"string"},"contains":{"const":"x"}}`,
			`{"type":"array","items":{"type":"string"},"allOf":[{"not":{"items":{"not":{"enum":["x"]}}}}]}`},
		{"contains on anything", `{"contains":{"type":"integer"}}`,
			`{"allOf":[{"anyOf":[{"not":{"type":"array","items":{}}},{"type":"array","items":{},"not":{"items":{"not":{"type":"integer"}}}}]}]}`},
		{"minContains 0 says nothing", `{"type":"array","items":{},"contains":{"type":"integer"},"minContains":0}`, `{"type":"array","items":{}}`},
		{"minContains 2 and maxContains are dropped", `{"type":"array","items":{},"contains":{"type":"integer"},"minContains":2,"maxContains":3}`,
			`{"type":"array","items":{},"allOf":[{"not":{"items":{"not":{"type":"integer"}}}}],"x-conform-dropped":["maxContains","minContains"]}`},
		{"an array gets items", `{"type":"array"}`, `{"type":"array","items":{}}`},
		{"prefixItems with items is weakened to anyOf", `{"type":"array","prefixItems":[{"type":"string"}],"items":{"type":"integer"}}`,
			`{"type":"array","items":{"anyOf":[{"type":"string"},{"type":"integer"}]},"x-conform-dropped":["prefixItems"]}`},
		{"prefixItems closed bounds the length", `{"type":"array","prefixItems":[{"type":"string"},{"type":"integer"}],"items":false}`,
			`{"type":"array","items":{"anyOf":[{"type":"string"},{"type":"integer"}]},"maxItems":2,"x-conform-dropped":["prefixItems"]}`},
		{"prefixItems open says nothing 3.0 can", `{"type":"array","prefixItems":[{"type":"string"}]}`, `{"type":"array","items":{},"x-conform-dropped":["prefixItems"]}`},
		{"unevaluatedItems without applicators is items", `{"type":"array","unevaluatedItems":{"type":"string"}}`, `{"type":"array","items":{"type":"string"}}`},
		{"unevaluatedItems with items is dropped", `{"type":"array","items":{"type":"string"},"unevaluatedItems":false}`,
			`{"type":"array","items":{"type":"string"},"x-conform-dropped":["unevaluatedItems"]}`},
		// objects
		{"unevaluatedProperties without applicators is additionalProperties", `{"properties":{"a":{}},"unevaluatedProperties":false}`,
			`{"properties":{"a":{}},"additionalProperties":false}`},
		{"unevaluatedProperties schema", `{"unevaluatedProperties":{"type":"string","const":"x"}}`, `{"additionalProperties":{"type":"string","enum":["x"]}}`},
		{"unevaluatedProperties with an allOf is dropped", `{"allOf":[{"$ref":"#/x"}],"unevaluatedProperties":false}`,
			`{"allOf":[{"$ref":"#/x"}],"x-conform-dropped":["unevaluatedProperties"]}`},
		{"unevaluatedProperties true says nothing", `{"allOf":[{"$ref":"#/x"}],"unevaluatedProperties":true}`, `{"allOf":[{"$ref":"#/x"}]}`},
		{"patternProperties takes additionalProperties with it", `{"patternProperties":{"^x-":{}},"additionalProperties":false}`,
			`{"x-conform-dropped":["additionalProperties","patternProperties"]}`},
		{"propertyNames is dropped", `{"type":"object","propertyNames":{"pattern":"^[a-z]+$"}}`, `{"type":"object","x-conform-dropped":["propertyNames"]}`},
		{"empty required goes", `{"required":[]}`, `{}`},
		{"additionalProperties true stays", `{"additionalProperties":true}`, `{"additionalProperties":true}`},
		// content and annotations
		{"base64 is byte", `{"type":"string","contentEncoding":"base64"}`, `{"type":"string","format":"byte"}`},
		{"octets are binary", `{"type":"string","contentMediaType":"application/octet-stream"}`, `{"type":"string","format":"binary"}`},
		{"a JSON string is dropped", `{"type":"string","contentMediaType":"application/json"}`, `{"type":"string","x-conform-dropped":["contentMediaType"]}`},
		{"base64 of a media type keeps byte, names the type", `{"type":"string","contentEncoding":"base64","contentMediaType":"image/png"}`,
			`{"type":"string","format":"byte","x-conform-dropped":["contentMediaType"]}`},
		{"another encoding is dropped", `{"type":"string","contentEncoding":"quoted-printable"}`, `{"type":"string","x-conform-dropped":["contentEncoding"]}`},
		{"$comment is x-comment", `{"$comment":"why"}`, `{"x-comment":"why"}`},
		{"2020-12 identifiers are dropped", `{"$id":"x","$anchor":"a","$defs":{"d":{}},"type":"string"}`, `{"type":"string","x-conform-dropped":["$anchor","$defs","$id"]}`},
		{"boolean schemas", `{"properties":{"a":false,"b":true},"not":true}`, `{"properties":{"a":{"not":{}},"b":{}},"not":{}}`},
		{"3.0 keywords pass", `{"type":"string","format":"date-time","pattern":"^x","readOnly":true,"deprecated":true,"default":"x","x-any":1}`,
			`{"type":"string","format":"date-time","pattern":"^x","readOnly":true,"deprecated":true,"default":"x","x-any":1}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.JSONEq(t, tt.want, canonical(t, downSchema(decode(t, tt.in))), tt.name)
		})
	}
}

func TestTypeNullable(t *testing.T) {
	components := decode(t, `{
		"id": {"type":"string","pattern":"^TR"},
		"month": {"type":"integer","minimum":1,"maximum":12,"enum":[1,2]},
		"obj": {"type":"object","properties":{"a":{}},"required":["a"]}
	}`).(map[string]any)
	tests := []struct {
		name, in, want string
	}{
		{"typed stays", `{"type":"string","nullable":true}`, `{"type":"string","nullable":true}`},
		{"not nullable stays", `{"allOf":[{"$ref":"#/components/schemas/obj"}]}`, `{"allOf":[{"$ref":"#/components/schemas/obj"}]}`},
		{"null alone takes a type", `{"nullable":true,"enum":[null]}`, `{"type":"object","nullable":true,"enum":[null]}`},
		{"a nullable one-type ref is inlined", `{"nullable":true,"allOf":[{"$ref":"#/components/schemas/id"}],"x-comment":"c"}`,
			`{"type":"string","pattern":"^TR","nullable":true,"x-comment":"c"}`},
		{"its enum takes null", `{"nullable":true,"allOf":[{"$ref":"#/components/schemas/month"}]}`,
			`{"type":"integer","minimum":1,"maximum":12,"enum":[1,2,null],"nullable":true}`},
		{"anything else is anyOf it or null", `{"nullable":true,"allOf":[{"$ref":"#/components/schemas/obj"}]}`,
			`{"anyOf":[{"allOf":[{"$ref":"#/components/schemas/obj"}]},{"type":"object","nullable":true,"enum":[null]}]}`},
		{"a ref with a one-type keyword beside it is inlined with it", `{"nullable":true,"allOf":[{"$ref":"#/components/schemas/id"}],"minLength":3}`,
			`{"type":"string","pattern":"^TR","minLength":3,"nullable":true}`},
		{"a ref with more beside it is anyOf", `{"nullable":true,"allOf":[{"$ref":"#/components/schemas/id"}],"not":{"enum":["TR1"]}}`,
			`{"anyOf":[{"allOf":[{"$ref":"#/components/schemas/id"}],"not":{"enum":["TR1"]}},{"type":"object","nullable":true,"enum":[null]}]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := typeNullable(decode(t, tt.in).(map[string]any), components)
			assert.JSONEq(t, tt.want, canonical(t, got), tt.name)
		})
	}
	assert.JSONEq(t, `{"type":"string","pattern":"^TR"}`, canonical(t, components["id"]), "the component inlined is not changed")
}
