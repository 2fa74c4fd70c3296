package reference

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/conform-kit/conform/reference/ledger"
	"github.com/conform-kit/conform/validate"
)

// Building the typed inputs from a validated body: the validator checks
// the body without decoding it, and a handler decodes it once, as the
// validator's tree (its decoder is faster than encoding/json into the input
// types), built into the input types with encoding/json's rules and the
// number normalisation JSON Schema's idea of an integer needs.

// tagProbeBytes is the body size from which tags are counted before the
// body is decoded.
const tagProbeBytes = 64 << 10

// countTags counts the members of the body's "tags" object (a validated
// body: an object of strings), reading the bytes without building them.
func countTags(body []byte) int {
	var probe struct {
		Tags memberCount `json:"tags"`
	}
	_ = json.Unmarshal(body, &probe)
	return int(probe.Tags)
}

// memberCount counts the members of a JSON object as it is unmarshalled.
type memberCount int

// UnmarshalJSON counts the commas between members, outside strings and
// nested values.
func (c *memberCount) UnmarshalJSON(b []byte) error {
	n, depth, inString, escaped, empty := 0, 0, false, false, true
	for _, ch := range b {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case ch == '\\':
				escaped = true
			case ch == '"':
				inString = false
			}
			continue
		case ch == '"':
			inString = true
		case ch == '{' || ch == '[':
			depth++
			continue
		case ch == '}' || ch == ']':
			depth--
			continue
		case ch == ',' && depth == 1:
			n++
		}
		if depth == 1 && ch != ' ' && ch != '\t' && ch != '\n' && ch != '\r' {
			empty = false
		}
	}
	if !empty {
		n++
	}
	*c = memberCount(n)
	return nil
}

// decodeBody fills dst, a pointer to a zero input struct, from a body that
// passed validation (nil: no JSON body, dst is left alone): read straight
// from the bytes (readInput) when the body is plain, else, from the start,
// by decodeTree from the body's tree, which decides what readInput leaves.
func decodeBody(v *validate.Validator, body []byte, dst any) error {
	if body == nil {
		return nil
	}
	if readInput(v, body, dst) {
		return nil
	}
	reflect.ValueOf(dst).Elem().SetZero()
	doc, err := v.Decode(body)
	if err != nil {
		return err
	}
	return decodeTree(doc, dst)
}

// decodeTree fills dst, a pointer to an input struct, from doc, the tree
// validate.DecodeRequest returned (maps, slices, json.Number, strings, bools,
// nil), as json.Decoder with UseNumber would fill it from the body: fields by
// their json tag (an exact key first, then one equal but for case), null
// leaving a value alone and clearing a pointer, map or slice, untyped values
// (additional_purchase_data) kept as the tree holds them. JSON Schema counts
// 1.0 and 1e3 as integers, so a typed integer field takes them in integer
// form, and then every number of the untyped values is written in integer
// form too, as when the body was decoded again normalised. A number no int64
// can hold (99999999999999999999, 1e30) is 422 INVALID_FIELD at its pointer,
// not a 400: the body is JSON of the right shape with a value out of range.
// A value of another JSON type than its field takes is 400 (validation
// rules it out). doc may be changed.
func decodeTree(doc any, dst any) error {
	rv := reflect.ValueOf(dst).Elem()
	var path [8]string
	d := treeDecoder{path: path[:0]}
	d.value(doc, rv)
	if d.inexact && !d.mismatch && d.outOfRange == "" {
		rv.SetZero()
		d = treeDecoder{path: path[:0]}
		d.value(integralize(doc), rv)
	}
	switch {
	case d.mismatch:
		return fmt.Errorf("%w: the body does not match the operation's fields", validate.ErrMalformed)
	case d.outOfRange != "":
		return ledger.ErrInvalidField(d.outOfRange, "must be an integer from %d to %d", int64(math.MinInt64), int64(math.MaxInt64))
	}
	return nil
}

// treeDecoder is one pass of decodeTree: it records what went wrong and
// carries on, as encoding/json does.
type treeDecoder struct {
	mismatch   bool     // a value of the wrong JSON type
	outOfRange string   // pointer of the first integer no int64 holds
	inexact    bool     // an integer written as 1.0 or 1e3
	path       []string // the keys and indexes down to the value at hand
}

// pointer is the JSON pointer of the value at hand.
func (d *treeDecoder) pointer() string {
	if len(d.path) == 0 {
		return ""
	}
	return "/" + strings.Join(d.path, "/")
}

// at decodes v into dst one key or index further down.
func (d *treeDecoder) at(step string, v any, dst reflect.Value) {
	d.path = append(d.path, step)
	d.value(v, dst)
	d.path = d.path[:len(d.path)-1]
}

var (
	anyMapType       = reflect.TypeFor[map[string]any]()
	anyListType      = reflect.TypeFor[[]any]()
	purchaseDataType = reflect.TypeFor[ledger.PurchaseData]()
)

// value fills dst from v. The input types are plain data: none has an
// UnmarshalJSON or UnmarshalText of its own (TestInputsArePlainData).
func (d *treeDecoder) value(v any, dst reflect.Value) {
	if v == nil {
		switch dst.Kind() {
		case reflect.Interface, reflect.Pointer, reflect.Map, reflect.Slice:
			dst.SetZero()
		}
		return
	}
	if dst.Type() == purchaseDataType {
		d.purchaseData(v, dst)
		return
	}
	switch dst.Kind() {
	case reflect.Pointer:
		p := reflect.New(dst.Type().Elem())
		d.value(v, p.Elem())
		dst.Set(p)
	case reflect.Interface:
		if dst.NumMethod() != 0 {
			d.mismatch = true
			return
		}
		dst.Set(reflect.ValueOf(v))
	case reflect.String:
		s, ok := v.(string)
		if !ok {
			d.mismatch = true
			return
		}
		dst.SetString(s)
	case reflect.Bool:
		b, ok := v.(bool)
		if !ok {
			d.mismatch = true
			return
		}
		dst.SetBool(b)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		d.integer(v, dst)
	case reflect.Float32, reflect.Float64:
		n, ok := v.(json.Number)
		f, err := strconv.ParseFloat(string(n), dst.Type().Bits())
		if !ok || err != nil {
			d.mismatch = true
			return
		}
		dst.SetFloat(f)
	case reflect.Map:
		d.object(v, dst)
	case reflect.Slice:
		d.list(v, dst)
	case reflect.Struct:
		m, ok := v.(map[string]any)
		if !ok {
			d.mismatch = true
			return
		}
		d.fields(m, dst)
	default:
		d.mismatch = true
	}
}

// integer sets an integer field from a json.Number.
func (d *treeDecoder) integer(v any, dst reflect.Value) {
	n, ok := v.(json.Number)
	if !ok {
		d.mismatch = true
		return
	}
	i, err := strconv.ParseInt(string(n), 10, 64)
	if err != nil {
		var exact bool
		if i, exact = integralValue(n); !exact {
			if d.outOfRange == "" {
				d.outOfRange = d.pointer()
			}
			return
		}
		d.inexact = true
	}
	if dst.OverflowInt(i) {
		if d.outOfRange == "" {
			d.outOfRange = d.pointer()
		}
		return
	}
	dst.SetInt(i)
}

// integralValue is n when it is an integer in int64 range written in
// another form (1.0, 1e3).
func integralValue(n json.Number) (int64, bool) {
	f, _, err := big.ParseFloat(string(n), 10, 256, big.ToNearestEven)
	if err != nil || !f.IsInt() {
		return 0, false
	}
	i, acc := f.Int64()
	return i, acc == big.Exact
}

// purchaseData sets purchase data from an object, in the canonical form
// ledger.PurchaseData's UnmarshalJSON gives it.
func (d *treeDecoder) purchaseData(v any, dst reflect.Value) {
	m, ok := v.(map[string]any)
	if !ok {
		d.mismatch = true
		return
	}
	b, err := ledger.AppendTree(make([]byte, 0, 1024), m)
	if err != nil {
		d.mismatch = true
		return
	}
	dst.SetBytes(slices.Clone(b)) // kept: no spare capacity
}

func (d *treeDecoder) object(v any, dst reflect.Value) {
	m, ok := v.(map[string]any)
	if !ok || dst.Type().Key().Kind() != reflect.String {
		d.mismatch = true
		return
	}
	if dst.Type() == anyMapType {
		dst.Set(reflect.ValueOf(m))
		return
	}
	out := reflect.MakeMapWithSize(dst.Type(), len(m))
	elem := reflect.New(dst.Type().Elem()).Elem()
	for k, c := range m {
		elem.SetZero()
		d.at(k, c, elem)
		out.SetMapIndex(reflect.ValueOf(k).Convert(dst.Type().Key()), elem)
	}
	dst.Set(out)
}

func (d *treeDecoder) list(v any, dst reflect.Value) {
	a, ok := v.([]any)
	if !ok {
		d.mismatch = true
		return
	}
	if dst.Type() == anyListType {
		dst.Set(reflect.ValueOf(a))
		return
	}
	out := reflect.MakeSlice(dst.Type(), len(a), len(a))
	for i, c := range a {
		d.at(strconv.Itoa(i), c, out.Index(i))
	}
	dst.Set(out)
}

// fields fills a struct's tagged fields, and those of the structs it embeds.
func (d *treeDecoder) fields(m map[string]any, dst reflect.Value) {
	t := dst.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if f.Anonymous && tag == "" && f.Type.Kind() == reflect.Struct {
			d.fields(m, dst.Field(i))
			continue
		}
		if !f.IsExported() || tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if name == "" {
			name = f.Name
		}
		v, ok := m[name]
		if !ok {
			if v, ok = foldedKey(m, name); !ok {
				continue
			}
		}
		d.at(name, v, dst.Field(i))
	}
}

// foldedKey finds a key equal to name but for case, as encoding/json does
// when no key matches exactly.
func foldedKey(m map[string]any, name string) (any, bool) {
	for k, v := range m {
		if strings.EqualFold(k, name) {
			return v, true
		}
	}
	return nil, false
}

// integralize writes every number of v that is an integer in int64 range in
// integer form (1.0 becomes 1, 1e3 becomes 1000), changing maps and slices
// in place.
func integralize(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, c := range x {
			x[k] = integralize(c)
		}
	case []any:
		for i, c := range x {
			x[i] = integralize(c)
		}
	case json.Number:
		if _, err := x.Int64(); err == nil {
			return x
		}
		if i, ok := integralValue(x); ok {
			return json.Number(strconv.FormatInt(i, 10))
		}
	}
	return v
}
