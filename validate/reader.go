package validate

import "fmt"

// Reader reads a JSON document one value at a time without building its
// tree: for a service that fills its own types straight from a body Request
// passed, instead of from the tree Decode builds. It reads with the
// scanner Decode reads with, so strings decode as Decode decodes them
// (escapes, surrogate pairs; invalid UTF-8 and lone surrogates become
// U+FFFD), numbers keep their text, and Value builds the very subtree
// Decode would hold at that place.
//
// Each read takes the value at hand. A read of another JSON type than the
// one at hand answers false and leaves the value unread (the caller may
// read it another way, Skip it, or give up); text that is not JSON stops
// the Reader, and Err reports it. A Reader is not safe for concurrent use.
type Reader struct {
	d       decoder
	i       int  // where the value, member or closing brace at hand starts
	depth   int  // objects open around i
	first   bool // i is just inside an object: no member read yet
	pending bool // Next named a member whose value has not been read
	failed  bool
}

// NewReader returns a Reader at the first value of doc. Object names the
// contract's properties (Next) take no allocation.
func (v *Validator) NewReader(doc []byte) Reader {
	r := Reader{d: decoder{scanner: scanner{data: doc}, keys: v.keys}}
	r.i = r.d.ws(0)
	return r
}

// fail stops the reader at text that is not JSON.
func (r *Reader) fail() bool {
	r.failed = true
	return false
}

// done takes the value at hand as read, up to end.
func (r *Reader) done(end int) {
	r.i, r.pending = end, false
}

// at is the JSON type of the value at hand (0: none, or the reader stopped).
func (r *Reader) at() uint8 {
	if r.failed {
		return 0
	}
	return r.d.kindAt(r.i)
}

// Object opens the object at hand: Next then reads its members. False when
// the value at hand is not an object.
func (r *Reader) Object() bool {
	if r.at() != tObject {
		return false
	}
	if r.depth >= MaxDepth {
		return r.fail()
	}
	r.depth++
	r.i, r.first, r.pending = r.d.ws(r.i+1), true, false
	return true
}

// Next moves to the next member of the innermost open object, skipping the
// value of the member before it if it was not read, and returns its name;
// its value is then the value at hand. At the end of the object Next closes
// it and answers false: the object, the value of its parent's member, has
// been read.
func (r *Reader) Next() (string, bool) {
	if r.failed || r.depth == 0 {
		return "", false
	}
	if r.pending {
		r.Skip()
		if r.failed {
			return "", false
		}
	}
	d := &r.d
	i := r.i
	if r.first {
		r.first = false
		if i < len(d.data) && d.data[i] == '}' {
			r.depth--
			r.done(i + 1)
			return "", false
		}
	} else {
		next, more, ok := d.after(i, '}')
		if !ok {
			return "", r.fail()
		}
		if !more {
			r.depth--
			r.done(next)
			return "", false
		}
		i = d.ws(next)
	}
	if i >= len(d.data) || d.data[i] != '"' {
		return "", r.fail()
	}
	name, end, ok := d.key(i)
	if i = d.ws(end); !ok || i >= len(d.data) || d.data[i] != ':' {
		return "", r.fail()
	}
	r.i, r.pending = d.ws(i+1), true
	return name, true
}

// Null reads a null; false when the value at hand is something else.
func (r *Reader) Null() bool {
	if r.at() != tNull {
		return false
	}
	end := r.d.literal(r.i, "null")
	if end < 0 {
		return r.fail()
	}
	r.done(end)
	return true
}

// String reads a string, decoded.
func (r *Reader) String() (string, bool) {
	if r.at() != tString {
		return "", false
	}
	var end int
	var ok bool
	if r.d.buf, end, ok = r.d.decodeString(r.d.buf[:0], r.i); !ok {
		return "", r.fail()
	}
	r.done(end)
	return string(r.d.buf), true
}

// Bool reads true or false.
func (r *Reader) Bool() (value, ok bool) {
	if r.at() != tBoolean {
		return false, false
	}
	value = r.d.data[r.i] == 't'
	word := "false"
	if value {
		word = "true"
	}
	end := r.d.literal(r.i, word)
	if end < 0 {
		return false, r.fail()
	}
	r.done(end)
	return value, true
}

// Int64 reads a number written as an integer (digits, a minus sign at
// most) in the range of int64: the numbers strconv.ParseInt reads. Any
// other number (1.0, 1e3, 2⁶³) answers false, unread, as does a value that
// is not a number.
func (r *Reader) Int64() (int64, bool) {
	if r.at() != tNumber {
		return 0, false
	}
	d := r.d.data
	end := r.d.number(r.i)
	if end < 0 {
		return 0, r.fail()
	}
	i, neg := r.i, d[r.i] == '-'
	if neg {
		i++
	}
	var n uint64
	const limit = uint64(1) << 63 // the magnitude of math.MinInt64
	for ; i < end; i++ {
		c := d[i]
		if c < '0' || c > '9' { // a fraction or an exponent
			return 0, false
		}
		if n > (limit-uint64(c-'0'))/10 {
			return 0, false
		}
		n = n*10 + uint64(c-'0')
	}
	if !neg && n == limit {
		return 0, false
	}
	r.done(end)
	if neg {
		return int64(-n), true // -(1<<63) wraps to itself
	}
	return int64(n), true
}

// Value reads the value at hand whatever its type, as the tree Decode
// builds (map[string]any, []any, json.Number, string, bool, nil).
func (r *Reader) Value() (any, bool) {
	if r.at() == 0 {
		return nil, r.fail()
	}
	v, end, ok := r.d.value(r.i, r.depth)
	if !ok {
		return nil, r.fail()
	}
	r.done(end)
	return v, true
}

// Raw reads the value at hand whatever its type and returns its text as
// the document holds it (white space inside it included): a part of the
// document, not a copy. Decode builds from that text the subtree Value
// would build at its place.
func (r *Reader) Raw() ([]byte, bool) {
	if r.at() == 0 {
		return nil, r.fail()
	}
	start := r.i
	r.Skip()
	if r.failed {
		return nil, false
	}
	return r.d.data[start:r.i], true
}

// Skip reads the value at hand without keeping it.
func (r *Reader) Skip() {
	if r.failed {
		return
	}
	r.d.depth = r.depth
	end := r.d.skip(r.i)
	if r.d.syntaxBad {
		r.fail()
		return
	}
	r.done(end)
}

// End reports whether the whole document has been read: every object
// closed and nothing but white space after the value.
func (r *Reader) End() bool {
	return !r.failed && r.depth == 0 && !r.pending && r.d.ws(r.i) == len(r.d.data)
}

// Err is the error that stopped the reader (wrapping ErrMalformed), or nil.
func (r *Reader) Err() error {
	if !r.failed {
		return nil
	}
	return &malformedError{public: "body is not valid JSON", err: fmt.Errorf("no JSON value at offset %d", r.i)}
}
