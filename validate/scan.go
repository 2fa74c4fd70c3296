package validate

import (
	"encoding/binary"
	"unicode/utf16"
	"unicode/utf8"
)

// The scanner reads JSON text by the grammar of RFC 8259 as encoding/json
// reads it: the one reading of bytes that the pass (pass.go), which checks
// a body against a schema's program, and the decoder (decode.go), which
// builds the tree DecodeRequest hands back, share. Strings decode as
// encoding/json decodes them (escapes, surrogate pairs; invalid UTF-8 and
// lone surrogates become U+FFFD), numbers keep their text.

// scanner is a position-free reader of one document: every method takes
// the index where it starts and returns where it ends.
type scanner struct {
	data      []byte
	depth     int  // arrays and objects open around the value at hand
	syntaxBad bool // the document is not JSON (encoding/json words the error), or nested too deep
	deepAt    int  // where an array or object opens level MaxDepth+1 (0: none; syntaxBad is set)
	// kinds holds one bit per nesting level while skipping: 1 for an object.
	kinds [MaxDepth/64 + 1]uint64
}

func (s *scanner) ws(i int) int {
	for i < len(s.data) {
		switch s.data[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// after reads on from the end of a member or element at i, in an object
// or array that close ends: past the comma before the next one (more), or
// past the end of the container; ok is false at anything else.
func (s *scanner) after(i int, close byte) (next int, more, ok bool) {
	if i = s.ws(i); i < len(s.data) {
		c := s.data[i]
		return i + 1, c == ',', c == ',' || c == close
	}
	return i, false, false
}

func (s *scanner) bad() (int, bool) {
	s.syntaxBad = true
	return len(s.data), false
}

// kindAt names the JSON type of the value starting at i (a syntax error
// reads as 0).
func (s *scanner) kindAt(i int) uint8 {
	if i >= len(s.data) {
		return 0
	}
	switch c := s.data[i]; {
	case c == '{':
		return tObject
	case c == '[':
		return tArray
	case c == '"':
		return tString
	case c == '-' || (c >= '0' && c <= '9'):
		return tNumber
	case c == 't' || c == 'f':
		return tBoolean
	case c == 'n':
		return tNull
	}
	return 0
}

func kindName(k uint8) string {
	switch k {
	case tObject:
		return "object"
	case tArray:
		return "array"
	case tString:
		return "string"
	case tNumber, tInteger, tInteger | tNumber:
		return "number"
	case tBoolean:
		return "boolean"
	case tNull:
		return "null"
	}
	return "unknown"
}

func (s *scanner) literal(i int, word string) int {
	if len(s.data)-i < len(word) || string(s.data[i:i+len(word)]) != word {
		return -1
	}
	return i + len(word)
}

// number scans a number and returns its end, or -1.
func (s *scanner) number(i int) int {
	d := s.data
	if d[i] == '-' {
		i++
	}
	if i >= len(d) {
		return -1
	}
	switch c := d[i]; {
	case c == '0':
		i++
	case c >= '1' && c <= '9':
		i = digits(d, i)
	default:
		return -1
	}
	if i < len(d) && d[i] == '.' {
		j := digits(d, i+1)
		if j == i+1 {
			return -1
		}
		i = j
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		j := digits(d, i)
		if j == i {
			return -1
		}
		i = j
	}
	return i
}

func digits(d []byte, i int) int {
	for i < len(d) && d[i] >= '0' && d[i] <= '9' {
		i++
	}
	return i
}

// decodeString appends the string at i, decoded as encoding/json decodes
// it (invalid UTF-8 and lone surrogates become U+FFFD), to buf.
func (s *scanner) decodeString(buf []byte, i int) ([]byte, int, bool) {
	d := s.data
	i++
	for i < len(d) {
		c := d[i]
		switch {
		case c == '"':
			return buf, i + 1, true
		case c == '\\':
			if i+1 >= len(d) {
				return buf, 0, false
			}
			e := d[i+1]
			i += 2
			switch e {
			case 'u':
				r, ok := hex4(d, i)
				if !ok {
					return buf, 0, false
				}
				i += 4
				if utf16.IsSurrogate(r) {
					if r2, ok2 := surrogateAt(d, i); ok2 {
						if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
							i += 6
							buf = utf8.AppendRune(buf, dec)
							break
						}
					}
					r = utf8.RuneError
				}
				buf = utf8.AppendRune(buf, r)
			default:
				b, ok := unescaped(e)
				if !ok {
					return buf, 0, false
				}
				buf = append(buf, b)
			}
		case c < 0x20:
			return buf, 0, false
		case c < utf8.RuneSelf:
			buf = append(buf, c)
			i++
		default:
			r, size := utf8.DecodeRune(d[i:])
			if r == utf8.RuneError && size == 1 {
				buf = utf8.AppendRune(buf, utf8.RuneError)
			} else {
				buf = append(buf, d[i:i+size]...)
			}
			i += size
		}
	}
	return buf, 0, false
}

// surrogateAt reads a \uXXXX escape at i, if there is one.
func surrogateAt(d []byte, i int) (rune, bool) {
	if len(d)-i < 6 || d[i] != '\\' || d[i+1] != 'u' {
		return 0, false
	}
	return hex4(d, i+2)
}

// unescaped is the byte a one-character JSON escape stands for (\" \\ \/
// \b \f \n \r \t), or false.
func unescaped(e byte) (byte, bool) {
	switch e {
	case '"', '\\', '/':
		return e, true
	case 'b':
		return '\b', true
	case 'f':
		return '\f', true
	case 'n':
		return '\n', true
	case 'r':
		return '\r', true
	case 't':
		return '\t', true
	}
	return 0, false
}

// hex4 reads the four hex digits of a \u escape at d[i:].
func hex4(d []byte, i int) (rune, bool) {
	if len(d)-i < 4 {
		return 0, false
	}
	var r rune
	for _, c := range d[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// stringStop marks the bytes that end a run of plain string bytes when
// skipping: '"', '\\' and control characters; plainStop marks non-ASCII
// bytes too, which reading a string decodes.
var stringStop, plainStop = func() (s, p [256]bool) {
	for c := range 256 {
		s[c] = c == '"' || c == '\\' || c < 0x20
		p[c] = s[c] || c >= utf8.RuneSelf
	}
	return s, p
}()

// plainRun returns the first i' >= i where a word of eight bytes may hold
// a '"', a '\\' or a control character (classic bit tricks: a byte below
// n, a zero byte after an exclusive or).
func plainRun(d []byte, i int) int {
	const lo, hi = 0x0101010101010101, 0x8080808080808080
	for i+8 <= len(d) {
		w := binary.LittleEndian.Uint64(d[i:])
		q, b := w^(lo*'"'), w^(lo*'\\')
		if ((w-lo*0x20)&^w|(q-lo)&^q|(b-lo)&^b)&hi != 0 {
			return i
		}
		i += 8
	}
	return i
}

// asciiRun is plainRun stopping at non-ASCII bytes too.
func asciiRun(d []byte, i int) int {
	const lo, hi = 0x0101010101010101, 0x8080808080808080
	for i+8 <= len(d) {
		w := binary.LittleEndian.Uint64(d[i:])
		q, b := w^(lo*'"'), w^(lo*'\\')
		if (w|(w-lo*0x20)&^w|(q-lo)&^q|(b-lo)&^b)&hi != 0 {
			return i
		}
		i += 8
	}
	return i
}

// skipString skips the string at i (its '"') and returns its end, or -1.
func (s *scanner) skipString(i int) int {
	d := s.data
	i++
	for i < len(d) {
		// Plain bytes eight at a time, then one at a time; the table
		// marks '"', '\\' and control characters.
		i = plainRun(d, i)
		for i < len(d) && !stringStop[d[i]] {
			i++
		}
		if i >= len(d) {
			return -1
		}
		c := d[i]
		switch {
		case c == '"':
			return i + 1
		case c == '\\':
			if i+1 >= len(d) {
				return -1
			}
			switch d[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if _, ok := hex4(d, i+2); !ok {
					return -1
				}
				i += 6
			default:
				return -1
			}
		case c < 0x20:
			return -1
		default:
			i++
		}
	}
	return -1
}

// skip checks the grammar of the value at i without recursion and returns
// its end (len(data), with s.syntaxBad set, on an error).
func (s *scanner) skip(i int) int {
	d := s.data
	base := s.depth
	depth := base
	for {
		if i >= len(d) {
			s.syntaxBad = true
			return len(d)
		}
		// a value
		switch c := d[i]; {
		case c == '{' || c == '[':
			if depth++; depth > MaxDepth {
				s.deepAt = i
				s.syntaxBad = true
				return len(d)
			}
			w, b := uint(depth/64), uint64(1)<<(depth%64)
			if c == '{' {
				s.kinds[w] |= b
			} else {
				s.kinds[w] &^= b
			}
			i = s.ws(i + 1)
			if i < len(d) && (d[i] == '}' && c == '{' || d[i] == ']' && c == '[') {
				depth--
				i++
				break
			}
			if c == '{' {
				if i = s.memberKey(i); i < 0 {
					s.syntaxBad = true
					return len(d)
				}
			}
			continue
		case c == '"':
			if i = s.skipString(i); i < 0 {
				s.syntaxBad = true
				return len(d)
			}
		case c == '-' || (c >= '0' && c <= '9'):
			if i = s.number(i); i < 0 {
				s.syntaxBad = true
				return len(d)
			}
		case c == 't':
			i = s.literal(i, "true")
		case c == 'f':
			i = s.literal(i, "false")
		case c == 'n':
			i = s.literal(i, "null")
		default:
			i = -1
		}
		if i < 0 {
			s.syntaxBad = true
			return len(d)
		}
		// after a value: close containers, or go on to the next member
		for {
			if depth == base {
				return i
			}
			i = s.ws(i)
			if i >= len(d) {
				s.syntaxBad = true
				return len(d)
			}
			isObj := s.kinds[depth/64]&(uint64(1)<<(depth%64)) != 0
			c := d[i]
			if c == ',' {
				i = s.ws(i + 1)
				if isObj {
					if i = s.memberKey(i); i < 0 {
						s.syntaxBad = true
						return len(d)
					}
				}
				break
			}
			if (isObj && c == '}') || (!isObj && c == ']') {
				depth--
				i++
				continue
			}
			s.syntaxBad = true
			return len(d)
		}
	}
}

// memberKey skips `"key" :` at i and returns where the value starts, or -1.
func (s *scanner) memberKey(i int) int {
	if i >= len(s.data) || s.data[i] != '"' {
		return -1
	}
	if i = s.skipString(i); i < 0 {
		return -1
	}
	i = s.ws(i)
	if i >= len(s.data) || s.data[i] != ':' {
		return -1
	}
	return s.ws(i + 1)
}
