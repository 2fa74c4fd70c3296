package validate

import (
	"bytes"
	"encoding/json"
)

// fastDecode parses data into the same tree json.Decoder with UseNumber
// builds (map[string]any, []any, json.Number, string, bool, nil), in one pass
// without reflection, with the scanner the pass reads bodies with
// (scan.go): strings decoded as encoding/json decodes them, numbers kept as
// their text. It answers ok=false for anything it does not decide alone: a
// syntax error, trailing data, or an array or object nested deeper than
// MaxDepth. The caller then refuses a document nested too deep
// (depthCheck, the pass's own reading) or decodes with encoding/json, which
// reports the error. decode_internal_test.go and FuzzDecode check that both
// agree.
func fastDecode(data []byte) (any, bool) { return fastDecodeKeys(data, nil) }

// fastDecodeKeys is fastDecode taking the object keys found in keys (the
// contract's property names) from there instead of allocating each again.
func fastDecodeKeys(data []byte, keys map[string]string) (any, bool) {
	d := decoder{scanner: scanner{data: data}, keys: keys}
	v, end, ok := d.value(d.ws(0), 0)
	return v, ok && d.ws(end) == len(data)
}

// decoder builds the tree of a document.
type decoder struct {
	scanner
	keys map[string]string // interned object keys; may be nil
	buf  []byte            // a string being decoded
}

// value decodes the value at i, nested in depth arrays and objects, and
// returns where it ends.
func (d *decoder) value(i, depth int) (any, int, bool) {
	switch d.kindAt(i) {
	case tObject:
		if depth < MaxDepth {
			return d.object(i, depth+1)
		}
	case tArray:
		if depth < MaxDepth {
			return d.array(i, depth+1)
		}
	case tString:
		var end int
		var ok bool
		d.buf, end, ok = d.decodeString(d.buf[:0], i)
		return string(d.buf), end, ok
	case tNumber:
		if end := d.number(i); end > i {
			return json.Number(d.data[i:end]), end, true
		}
	case tBoolean:
		if d.data[i] == 't' {
			end := d.literal(i, "true")
			return true, end, end > 0
		}
		end := d.literal(i, "false")
		return false, end, end > 0
	case tNull:
		end := d.literal(i, "null")
		return nil, end, end > 0
	}
	return nil, 0, false
}

// object decodes the object at i (its '{').
func (d *decoder) object(i, depth int) (any, int, bool) {
	m := make(map[string]any)
	i = d.ws(i + 1)
	if i < len(d.data) && d.data[i] == '}' {
		return m, i + 1, true
	}
	for {
		if i >= len(d.data) || d.data[i] != '"' {
			return nil, 0, false
		}
		key, end, ok := d.key(i)
		if i = d.ws(end); !ok || i >= len(d.data) || d.data[i] != ':' {
			return nil, 0, false
		}
		val, end, ok := d.value(d.ws(i+1), depth)
		if !ok {
			return nil, 0, false
		}
		m[key] = val
		var more bool
		if i, more, ok = d.after(end, '}'); !ok {
			return nil, 0, false
		} else if !more {
			return m, i, true
		}
		i = d.ws(i)
	}
}

// array decodes the array at i (its '[').
func (d *decoder) array(i, depth int) (any, int, bool) {
	a := []any{}
	i = d.ws(i + 1)
	if i < len(d.data) && d.data[i] == ']' {
		return a, i + 1, true
	}
	for {
		val, end, ok := d.value(i, depth)
		if !ok {
			return nil, 0, false
		}
		a = append(a, val)
		var more bool
		if i, more, ok = d.after(end, ']'); !ok {
			return nil, 0, false
		} else if !more {
			return a, i, true
		}
		i = d.ws(i)
	}
}

// key reads an object key at i (its '"'): a known one without escapes is
// taken from d.keys, anything else is decoded.
func (d *decoder) key(i int) (string, int, bool) {
	if d.keys != nil {
		start := i + 1
		if n := bytes.IndexByte(d.data[start:], '"'); n >= 0 {
			if k, ok := d.keys[string(d.data[start:start+n])]; ok {
				return k, start + n + 1, true
			}
		}
	}
	var end int
	var ok bool
	d.buf, end, ok = d.decodeString(d.buf[:0], i)
	return string(d.buf), end, ok
}
