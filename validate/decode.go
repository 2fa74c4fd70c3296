package validate

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// fastDecode parses data into the same tree json.Decoder with UseNumber
// builds (map[string]any, []any, json.Number, string, bool, nil), in one pass
// without reflection. It answers ok=false for anything it does not decide
// alone: a syntax error, trailing data, invalid UTF-8 (encoding/json replaces
// it), a \u escape of a surrogate, or an array or object nested deeper
// than MaxDepth. The caller then refuses a document nested too deep
// (depthCheck, the pass's own reading) or decodes with encoding/json, which
// reports the error or builds the tree. decode_internal_test.go and
// FuzzDecode check that both agree.
func fastDecode(data []byte) (any, bool) { return fastDecodeKeys(data, nil) }

// fastDecodeKeys is fastDecode taking the object keys found in keys (the
// contract's property names) from there instead of allocating each again.
func fastDecodeKeys(data []byte, keys map[string]string) (any, bool) {
	d := decoder{data: data, keys: keys}
	d.space()
	v, ok := d.value(0)
	if !ok {
		return nil, false
	}
	d.space()
	return v, d.pos == len(d.data)
}

type decoder struct {
	data []byte
	pos  int
	keys map[string]string // interned object keys; may be nil
}

func (d *decoder) space() {
	for d.pos < len(d.data) {
		switch d.data[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

func (d *decoder) value(depth int) (any, bool) {
	if d.pos >= len(d.data) {
		return nil, false
	}
	switch c := d.data[d.pos]; {
	case c == '{' && depth < MaxDepth:
		return d.object(depth + 1)
	case c == '[' && depth < MaxDepth:
		return d.array(depth + 1)
	case c == '"':
		s, ok := d.str()
		return s, ok
	case c == '-' || (c >= '0' && c <= '9'):
		return d.number()
	case c == 't':
		return true, d.literal("true")
	case c == 'f':
		return false, d.literal("false")
	case c == 'n':
		return nil, d.literal("null")
	}
	return nil, false
}

func (d *decoder) literal(word string) bool {
	if len(d.data)-d.pos < len(word) || string(d.data[d.pos:d.pos+len(word)]) != word {
		return false
	}
	d.pos += len(word)
	return true
}

func (d *decoder) object(depth int) (any, bool) {
	d.pos++ // {
	m := make(map[string]any)
	d.space()
	if d.pos < len(d.data) && d.data[d.pos] == '}' {
		d.pos++
		return m, true
	}
	for {
		if d.pos >= len(d.data) || d.data[d.pos] != '"' {
			return nil, false
		}
		key, ok := d.key()
		if !ok {
			return nil, false
		}
		d.space()
		if d.pos >= len(d.data) || d.data[d.pos] != ':' {
			return nil, false
		}
		d.pos++
		d.space()
		val, ok := d.value(depth)
		if !ok {
			return nil, false
		}
		m[key] = val
		d.space()
		if d.pos >= len(d.data) {
			return nil, false
		}
		switch d.data[d.pos] {
		case ',':
			d.pos++
			d.space()
		case '}':
			d.pos++
			return m, true
		default:
			return nil, false
		}
	}
}

func (d *decoder) array(depth int) (any, bool) {
	d.pos++ // [
	a := []any{}
	d.space()
	if d.pos < len(d.data) && d.data[d.pos] == ']' {
		d.pos++
		return a, true
	}
	for {
		val, ok := d.value(depth)
		if !ok {
			return nil, false
		}
		a = append(a, val)
		d.space()
		if d.pos >= len(d.data) {
			return nil, false
		}
		switch d.data[d.pos] {
		case ',':
			d.pos++
			d.space()
		case ']':
			d.pos++
			return a, true
		default:
			return nil, false
		}
	}
}

// number reads a number with the JSON grammar and keeps its text.
func (d *decoder) number() (any, bool) {
	start := d.pos
	if d.data[d.pos] == '-' {
		d.pos++
	}
	if d.pos >= len(d.data) {
		return nil, false
	}
	switch c := d.data[d.pos]; {
	case c == '0':
		d.pos++
	case c >= '1' && c <= '9':
		d.digits()
	default:
		return nil, false
	}
	if d.pos < len(d.data) && d.data[d.pos] == '.' {
		d.pos++
		if d.digits() == 0 {
			return nil, false
		}
	}
	if d.pos < len(d.data) && (d.data[d.pos] == 'e' || d.data[d.pos] == 'E') {
		d.pos++
		if d.pos < len(d.data) && (d.data[d.pos] == '+' || d.data[d.pos] == '-') {
			d.pos++
		}
		if d.digits() == 0 {
			return nil, false
		}
	}
	return json.Number(d.data[start:d.pos]), true
}

func (d *decoder) digits() int {
	start := d.pos
	for d.pos < len(d.data) && d.data[d.pos] >= '0' && d.data[d.pos] <= '9' {
		d.pos++
	}
	return d.pos - start
}

// key reads an object key: a known one without escapes is taken from
// d.keys, anything else is read by str.
func (d *decoder) key() (string, bool) {
	if d.keys != nil {
		start := d.pos + 1
		if end := bytes.IndexByte(d.data[start:], '"'); end >= 0 {
			if k, ok := d.keys[string(d.data[start:start+end])]; ok {
				d.pos = start + end + 1
				return k, true
			}
		}
	}
	return d.str()
}

// str reads a string. Plain ASCII and valid UTF-8 are copied as they are;
// escapes are decoded except surrogates, which encoding/json pairs or
// replaces (left to it).
func (d *decoder) str() (string, bool) {
	d.pos++ // "
	start := d.pos
	for d.pos < len(d.data) {
		c := d.data[d.pos]
		switch {
		case c == '"':
			s := string(d.data[start:d.pos])
			d.pos++
			return s, true
		case c == '\\':
			return d.escaped(start)
		case c < 0x20:
			return "", false
		case c < utf8.RuneSelf:
			d.pos++
		default:
			r, size := utf8.DecodeRune(d.data[d.pos:])
			if r == utf8.RuneError && size == 1 {
				return "", false
			}
			d.pos += size
		}
	}
	return "", false
}

// escaped continues a string from its first backslash.
func (d *decoder) escaped(start int) (string, bool) {
	buf := make([]byte, 0, d.pos-start+16)
	buf = append(buf, d.data[start:d.pos]...)
	for d.pos < len(d.data) {
		c := d.data[d.pos]
		switch {
		case c == '"':
			d.pos++
			return string(buf), true
		case c == '\\':
			if d.pos+1 >= len(d.data) {
				return "", false
			}
			e := d.data[d.pos+1]
			d.pos += 2
			if e == 'u' {
				r, ok := hex4(d.data, d.pos)
				if !ok || (r >= 0xD800 && r < 0xE000) {
					return "", false
				}
				d.pos += 4
				buf = utf8.AppendRune(buf, r)
				continue
			}
			b, ok := unescaped(e)
			if !ok {
				return "", false
			}
			buf = append(buf, b)
		case c < 0x20:
			return "", false
		case c < utf8.RuneSelf:
			buf = append(buf, c)
			d.pos++
		default:
			r, size := utf8.DecodeRune(d.data[d.pos:])
			if r == utf8.RuneError && size == 1 {
				return "", false
			}
			buf = append(buf, d.data[d.pos:d.pos+size]...)
			d.pos += size
		}
	}
	return "", false
}
