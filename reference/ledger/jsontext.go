package ledger

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Writing JSON the way json.Marshal writes it, without reflection: strings
// (escaped as encoding/json escapes them) and decoded documents (object keys
// sorted, numbers as written). The rules write a sale's purchase data with
// it once; the views write every answer with it.

// AppendJSONString appends s as json.Marshal writes it (HTML escaping on):
// printable ASCII other than the quote, the backslash and the HTML
// characters as it is; the quote, the backslash, \b, \f, \n, \r and \t
// escaped by name, other control and HTML characters as \u00XX; valid
// UTF-8 as it is but U+2028 and U+2029 (\u2028, \u2029), and each invalid
// byte as \ufffd. TestAppendJSONStringMatchesMarshal holds it to
// encoding/json.
func AppendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if plainByte[c] || c == 0x7f {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default: // another control character, or <, > or &
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

const hexDigits = "0123456789abcdef"

// AppendJSONParts appends the concatenation of parts as one JSON string.
func AppendJSONParts(b []byte, parts *[4]string) []byte {
	for _, p := range parts {
		if !PlainJSON(p) {
			return AppendJSONString(b, parts[0]+parts[1]+parts[2]+parts[3])
		}
	}
	b = append(b, '"')
	for _, p := range parts {
		b = append(b, p...)
	}
	return append(b, '"')
}

// PlainJSON reports whether s is written in JSON as it is, between quotes.
func PlainJSON(s string) bool {
	for i := 0; i < len(s); i++ {
		if !plainByte[s[i]] {
			return false
		}
	}
	return true
}

// plainByte tells the bytes encoding/json writes as they are: printable
// ASCII other than the quote, the backslash and the HTML characters.
var plainByte = func() (t [256]bool) {
	for c := 0x20; c < 0x7f; c++ {
		t[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return t
}()

// AppendTree appends a decoded JSON document (maps, slices, json.Number,
// strings, bools, nil) as json.Marshal writes it: object keys sorted,
// numbers as written. Any other value goes through json.Marshal.
func AppendTree(b []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case bool:
		return strconv.AppendBool(b, x), nil
	case string:
		return AppendJSONString(b, x), nil
	case json.Number:
		if JsonNumber(string(x)) {
			return append(b, x...), nil
		}
	case []any:
		b = append(b, '[')
		for i, c := range x {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = AppendTree(b, c); err != nil {
				return nil, err
			}
		}
		return append(b, ']'), nil
	case map[string]any:
		return AppendTreeObject(b, x, nil)
	}
	q, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encode %T: %w", v, err)
	}
	return append(b, q...), nil
}

// JsonNumber reports whether s is a JSON number as encoding/json writes a
// json.Number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?, nothing
// around it.
func JsonNumber(s string) bool {
	if s != "" && s[0] == '-' {
		s = s[1:]
	}
	digits := func() int {
		n := 0
		for n < len(s) && '0' <= s[n] && s[n] <= '9' {
			n++
		}
		s = s[n:]
		return n
	}
	switch {
	case s == "":
		return false
	case s[0] == '0':
		s = s[1:]
	case digits() == 0:
		return false
	}
	if s != "" && s[0] == '.' {
		s = s[1:]
		if digits() == 0 {
			return false
		}
	}
	if s != "" && (s[0] == 'e' || s[0] == 'E') {
		s = s[1:]
		if s != "" && (s[0] == '+' || s[0] == '-') {
			s = s[1:]
		}
		if digits() == 0 {
			return false
		}
	}
	return s == ""
}

// TreeMember is a member appendTreeObject writes besides a map's.
type TreeMember struct {
	Name  string
	Value any
}

// AppendTreeObject appends the object m as appendTree does, with the member
// extra (if not nil) written as if m held it.
func AppendTreeObject(b []byte, m map[string]any, extra *TreeMember) ([]byte, error) {
	var buf [16]TreeMember // the members, read in one walk of the map
	members := buf[:0]
	for k, v := range m {
		if extra == nil || k != extra.Name {
			members = append(members, TreeMember{k, v})
		}
	}
	if extra != nil {
		members = append(members, *extra)
	}
	slices.SortFunc(members, func(a, b TreeMember) int { return strings.Compare(a.Name, b.Name) })
	b = append(b, '{')
	for i := range members {
		if i > 0 {
			b = append(b, ',')
		}
		b = AppendJSONString(b, members[i].Name)
		b = append(b, ':')
		var err error
		if b, err = AppendTree(b, members[i].Value); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}
