package ledger

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
)

// Writing a JSON text in canonical form straight from its bytes: what
// json.Marshal writes for the value encoding/json decodes the text to (with
// UseNumber), the form AppendTree writes from a decoded tree, without
// building the tree. White space is dropped, object members are sorted by
// name with the last of duplicate names kept, strings are escaped as
// encoding/json escapes them, numbers and literals are kept as written.
// TestAppendCanonicalMatchesTree holds it to AppendTree.

// errNotJSON is AppendCanonical's error for text that is not one JSON value.
var errNotJSON = errors.New("not a JSON value")

// maxCanonicalDepth bounds the nesting AppendCanonical follows, as
// encoding/json bounds its own.
const maxCanonicalDepth = 10000

// AppendCanonical appends the JSON value text (white space around it
// allowed) in canonical form to b: the bytes AppendTree writes for the tree
// text decodes to. An error when text is not one JSON value.
func AppendCanonical(b, text []byte) ([]byte, error) {
	c := canonWriter{data: text}
	out, end, ok := c.value(b, c.ws(0), 0)
	if !ok || c.ws(end) != len(text) {
		return nil, errNotJSON
	}
	return out, nil
}

// canonWriter reads one JSON text for AppendCanonical.
type canonWriter struct {
	data []byte
}

// ws is the first index from i that is not white space.
func (c *canonWriter) ws(i int) int {
	for i < len(c.data) {
		switch c.data[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// value appends the value at i in canonical form and returns where it ends.
func (c *canonWriter) value(b []byte, i, depth int) ([]byte, int, bool) {
	if i >= len(c.data) {
		return b, 0, false
	}
	switch ch := c.data[i]; {
	case ch == '{':
		return c.object(b, i, depth+1)
	case ch == '[':
		return c.array(b, i, depth+1)
	case ch == '"':
		return c.str(b, i)
	case ch == '-' || ('0' <= ch && ch <= '9'):
		end := numberEnd(c.data, i)
		if end < 0 {
			return b, 0, false
		}
		return append(b, c.data[i:end]...), end, true
	case ch == 't':
		return c.literal(b, i, "true")
	case ch == 'f':
		return c.literal(b, i, "false")
	case ch == 'n':
		return c.literal(b, i, "null")
	}
	return b, 0, false
}

func (c *canonWriter) literal(b []byte, i int, word string) ([]byte, int, bool) {
	if len(c.data)-i < len(word) || string(c.data[i:i+len(word)]) != word {
		return b, 0, false
	}
	return append(b, word...), i + len(word), true
}

// str appends the string at i in canonical form: its text as it is when
// every byte is one encoding/json writes as it is, else decoded as
// encoding/json decodes it and escaped again.
func (c *canonWriter) str(b []byte, i int) ([]byte, int, bool) {
	end, plain := stringEnd(c.data, i)
	if end < 0 {
		return b, 0, false
	}
	if plain {
		return append(b, c.data[i:end]...), end, true
	}
	var s string
	if json.Unmarshal(c.data[i:end], &s) != nil {
		return b, 0, false
	}
	return AppendJSONString(b, s), end, true
}

// stringEnd is where the string at i (its opening quote) ends, -1 when it
// does not; plain when it holds only bytes encoding/json writes as they
// are (no escape, nothing but printable ASCII less the quote, the backslash
// and the HTML characters).
func stringEnd(d []byte, i int) (end int, plain bool) {
	plain = true
	for i++; i < len(d); i++ {
		switch ch := d[i]; {
		case ch == '"':
			return i + 1, plain
		case ch == '\\':
			plain = false
			i++ // the escaped byte; \u's four digits are checked when decoded
		case ch < 0x20:
			return -1, false
		case !plainByte[ch]:
			plain = false
		}
	}
	return -1, false
}

// numberEnd is where the JSON number at i ends, -1 when there is none.
func numberEnd(d []byte, i int) int {
	digits := func() int {
		n := 0
		for i < len(d) && '0' <= d[i] && d[i] <= '9' {
			i++
			n++
		}
		return n
	}
	if i < len(d) && d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case digits() == 0:
		return -1
	}
	if i < len(d) && d[i] == '.' {
		i++
		if digits() == 0 {
			return -1
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if digits() == 0 {
			return -1
		}
	}
	return i
}

func (c *canonWriter) array(b []byte, i, depth int) ([]byte, int, bool) {
	if depth > maxCanonicalDepth {
		return b, 0, false
	}
	b = append(b, '[')
	i = c.ws(i + 1)
	if i < len(c.data) && c.data[i] == ']' {
		return append(b, ']'), i + 1, true
	}
	for {
		var ok bool
		if b, i, ok = c.value(b, i, depth); !ok {
			return b, 0, false
		}
		i = c.ws(i)
		switch {
		case i < len(c.data) && c.data[i] == ',':
			b = append(b, ',')
			i = c.ws(i + 1)
		case i < len(c.data) && c.data[i] == ']':
			return append(b, ']'), i + 1, true
		default:
			return b, 0, false
		}
	}
}

// canonMember is one member of an object being written: its name as
// decoded, and where its canonical text ("name":value) lies in the output.
type canonMember struct {
	name       []byte
	start, end int
}

// object writes the members of the object at i in the order they come,
// then, when that is not the sorted order without duplicates, writes them
// again in that order after them and moves them back.
func (c *canonWriter) object(b []byte, i, depth int) ([]byte, int, bool) {
	if depth > maxCanonicalDepth {
		return b, 0, false
	}
	open := len(b)
	b = append(b, '{')
	i = c.ws(i + 1)
	if i < len(c.data) && c.data[i] == '}' {
		return append(b, '}'), i + 1, true
	}
	var buf [16]canonMember
	members := buf[:0]
	sorted := true
	for {
		if i >= len(c.data) || c.data[i] != '"' {
			return b, 0, false
		}
		if len(members) > 0 {
			b = append(b, ',')
		}
		start := len(b)
		end, plain := stringEnd(c.data, i)
		if end < 0 {
			return b, 0, false
		}
		var name []byte
		if plain {
			name = c.data[i+1 : end-1]
			b = append(b, c.data[i:end]...)
		} else {
			var s string
			if json.Unmarshal(c.data[i:end], &s) != nil {
				return b, 0, false
			}
			name = []byte(s)
			b = AppendJSONString(b, s)
		}
		if i = c.ws(end); i >= len(c.data) || c.data[i] != ':' {
			return b, 0, false
		}
		b = append(b, ':')
		var ok bool
		if b, i, ok = c.value(b, c.ws(i+1), depth); !ok {
			return b, 0, false
		}
		if n := len(members); n > 0 && bytes.Compare(members[n-1].name, name) >= 0 {
			sorted = false
		}
		members = append(members, canonMember{name, start, len(b)})
		i = c.ws(i)
		switch {
		case i < len(c.data) && c.data[i] == ',':
			i = c.ws(i + 1)
			continue
		case i < len(c.data) && c.data[i] == '}':
		default:
			return b, 0, false
		}
		break
	}
	if !sorted {
		b = reorder(b, open+1, members)
	}
	return append(b, '}'), i + 1, true
}

// reorder writes the members (their text in b from from on) sorted by
// name, the last of duplicate names kept, in place of b[from:].
func reorder(b []byte, from int, members []canonMember) []byte {
	slices.SortStableFunc(members, func(x, y canonMember) int { return bytes.Compare(x.name, y.name) })
	tail := len(b)
	for k, m := range members {
		if k+1 < len(members) && bytes.Equal(m.name, members[k+1].name) {
			continue // a later duplicate follows: it counts
		}
		if len(b) > tail {
			b = append(b, ',')
		}
		b = append(b, b[m.start:m.end]...)
	}
	n := copy(b[from:], b[tail:])
	return b[:from+n]
}

// skipValue is where the JSON value at i of canonical text (no white space)
// ends, -1 when there is none.
func skipValue(d []byte, i int) int {
	depth := 0
	for i < len(d) {
		switch ch := d[i]; {
		case ch == '"':
			end, _ := stringEnd(d, i)
			if end < 0 {
				return -1
			}
			i = end
		case ch == '{' || ch == '[':
			depth++
			i++
			continue
		case ch == '}' || ch == ']':
			if depth == 0 {
				return -1
			}
			depth--
			i++
		case ch == '-' || ('0' <= ch && ch <= '9'):
			if i = numberEnd(d, i); i < 0 {
				return -1
			}
		case ch == 't' || ch == 'n':
			i += 4
		case ch == 'f':
			i += 5
		case ch == ',' || ch == ':':
			if depth == 0 {
				return -1
			}
			i++
			continue
		default:
			return -1
		}
		if depth == 0 {
			if i > len(d) {
				return -1
			}
			return i
		}
	}
	return -1
}
