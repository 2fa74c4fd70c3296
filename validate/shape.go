package validate

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// Shape is one node of the tree a Validator compiles from a JSON Schema and
// checks documents against (the pass's program): the keywords a value must
// keep there, with every $ref resolved to the Shape of its target. A
// subschema that is only a $ref is its target's Shape. Validator.Shape
// builds the tree afresh on every call, so it is the caller's to keep or
// change; nodes several places refer to are one *Shape.
type Shape struct {
	// Location is the subschema's absolute location, the schema file's
	// URL and a JSON pointer into it ("https://conform.schemas/common.json#/$defs/cents").
	Location string
	// Never is the false schema: no value passes.
	Never bool
	// Types are the JSON types the type keyword allows, as written
	// ("object", "integer", "null", …); empty when any type passes.
	Types []string
	// Nullable reports whether null passes the type keyword, or one of
	// AnyOf that allows null alone.
	Nullable bool
	// Enum is the enum keyword's values (strings, booleans, null); nil
	// when there is none.
	Enum []any
	// Const is the const keyword's value as a one-value list; nil when
	// there is none.
	Const []any
	// MinLength and MaxLength bound a string's length in characters; -1
	// when absent.
	MinLength, MaxLength int
	// Pattern is the pattern keyword as written (Go's regexp syntax);
	// "" when absent.
	Pattern string
	// Format is the format keyword ("date-time", "email", …; "" when
	// absent), asserted: ValidFormat checks a value as the validator does.
	Format string
	// Minimum, Maximum and ExclusiveMinimum bound a number, as written;
	// "" when absent.
	Minimum, Maximum, ExclusiveMinimum json.Number
	// Properties are the object's named members, sorted by name.
	Properties []Property
	// Required names the members an object must have, in schema order.
	Required []string
	// AdditionalProperties is the schema of the members Properties does not
	// name; nil when any member passes (Closed: none does).
	AdditionalProperties *Shape
	// Closed reports additionalProperties false: no member but Properties.
	Closed bool
	// DependentSchemas are the schemas an object must also pass when it has
	// the named member, sorted by name.
	DependentSchemas []Property
	// Items is the schema of every element of an array; nil: any.
	Items *Shape
	// MinItems and MaxItems bound an array's length; -1 when absent.
	MinItems, MaxItems int
	// Ref is the target of the $ref beside other keywords: the value must
	// pass it too.
	Ref *Shape
	// AllOf, AnyOf: the value must pass every one of AllOf and one of
	// AnyOf.
	AllOf, AnyOf []*Shape
	// If, Then and Else: a value that passes If must pass Then, one that
	// does not must pass Else; nil when absent.
	If, Then, Else *Shape
}

// Property is one named member of an object Shape.
type Property struct {
	Name  string
	Shape *Shape
}

// Property returns the Shape of the named member of Properties, or nil.
func (s *Shape) Property(name string) *Shape {
	i, ok := slices.BinarySearchFunc(s.Properties, name, func(p Property, n string) int { return strings.Compare(p.Name, n) })
	if !ok {
		return nil
	}
	return s.Properties[i].Shape
}

// IsRequired reports whether the named member is required.
func (s *Shape) IsRequired(name string) bool { return slices.Contains(s.Required, name) }

// Shape returns the tree the Validator compiled from the named schema (a
// request or resource schema: Schemas lists them), built afresh. It fails
// with an error wrapping ErrUnknownSchema for a name that is no schema, or
// for a schema left to jsonschema alone (none of the embedded ones is:
// TestFastPathCoversEverySchema).
func (v *Validator) Shape(schema string) (*Shape, error) {
	n, ok := v.fast[schema]
	if !ok {
		return nil, fmt.Errorf("%w %q", ErrUnknownSchema, schema)
	}
	if n == nil {
		return nil, fmt.Errorf("%w %q: it has no compiled program", ErrUnknownSchema, schema)
	}
	b := shapeBuilder{}
	return b.of(n), nil
}

// ValidFormat checks value against a format of JSON Schema as the
// validator asserts it (Shape.Format). known is false for a format it does
// not know, which no schema of the contract uses.
func ValidFormat(format, value string) (valid, known bool) {
	f, ok := jsonschema.Formats[format]
	if !ok {
		return false, false
	}
	return f(value), true
}

// shapeBuilder builds the Shapes of compiled nodes, each node once.
type shapeBuilder map[*fnode]*Shape

func (b shapeBuilder) of(n *fnode) *Shape {
	if n == nil {
		return nil
	}
	if s, ok := b[n]; ok {
		return s
	}
	s := &Shape{
		Location:  n.loc,
		Never:     n.never,
		Types:     slices.Clone(n.typeNames),
		Nullable:  n.types&tNull != 0,
		MinLength: n.minLen, MaxLength: n.maxLen,
		MinItems: n.minItems, MaxItems: n.maxItems,
		Pattern:  n.patternText,
		Format:   n.formatName,
		Required: slices.Clone(n.required),
		Closed:   n.closed,
	}
	b[n] = s
	for _, e := range n.enums {
		if e.rule == "const" {
			s.Const = slices.Clone(e.values)
		} else {
			s.Enum = slices.Clone(e.values)
		}
	}
	for _, bd := range n.bounds {
		switch bd.rule {
		case "minimum":
			s.Minimum = json.Number(bd.text)
		case "maximum":
			s.Maximum = json.Number(bd.text)
		case "exclusiveMinimum":
			s.ExclusiveMinimum = json.Number(bd.text)
		}
	}
	for _, e := range n.entries {
		if e.prop != nil {
			s.Properties = append(s.Properties, Property{e.name, b.of(e.prop)})
		}
		if e.dependent != nil {
			s.DependentSchemas = append(s.DependentSchemas, Property{e.name, b.of(e.dependent)})
		}
	}
	byName := func(a, c Property) int { return strings.Compare(a.Name, c.Name) }
	slices.SortFunc(s.Properties, byName)
	slices.SortFunc(s.DependentSchemas, byName)
	s.AdditionalProperties = b.of(n.additional)
	s.Items = b.of(n.items)
	s.Ref = b.of(n.ref)
	for _, a := range n.allOf {
		s.AllOf = append(s.AllOf, b.of(a))
	}
	for _, a := range n.anyOf {
		as := b.of(a)
		s.AnyOf = append(s.AnyOf, as)
		if a.types == tNull {
			s.Nullable = true
		}
	}
	s.If, s.Then, s.Else = b.of(n.ifNode), b.of(n.thenNode), b.of(n.elseNode)
	return s
}
