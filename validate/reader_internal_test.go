package validate

import (
	"encoding/json"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// readAll rebuilds the value at hand with r's typed reads (objects member by
// member, strings, booleans and null by the read of their kind, numbers
// and arrays with Value), as the tree Decode builds; skip leaves every member whose name is
// in it unread. With raw, every member's value is read by Raw and its text
// decoded.
func readAll(t *testing.T, r *Reader, skip map[string]bool, raw bool) (any, bool) {
	t.Helper()
	if r.Object() {
		m := map[string]any{}
		for name, ok := r.Next(); ok; name, ok = r.Next() {
			if skip[name] {
				delete(m, name) // the last of duplicate names counts
				continue
			}
			if raw {
				text, ok := r.Raw()
				if !ok {
					return nil, false
				}
				v, err := decodeKeys(text, nil)
				require.NoError(t, err, "%q", text)
				m[name] = v
				continue
			}
			v, ok := readAll(t, r, skip, false)
			if !ok {
				return nil, false
			}
			m[name] = v
		}
		return m, r.Err() == nil
	}
	if r.Null() {
		return nil, true
	}
	if s, ok := r.String(); ok {
		return s, true
	}
	if b, ok := r.Bool(); ok {
		return b, true
	}
	return r.Value() // numbers: Int64 has a test of its own

}

// dropNames removes the members named in skip from every object of v.
func dropNames(v any, skip map[string]bool) any {
	switch x := v.(type) {
	case map[string]any:
		for k, c := range x {
			if skip[k] {
				delete(x, k)
			} else {
				x[k] = dropNames(c, skip)
			}
		}
	}
	return v
}

// agreeReader reads data with a Reader, all of it, skipping some members,
// and with Raw, and compares with Decode: the same tree where Decode decodes,
// and no whole document read where it refuses.
func agreeReader(t *testing.T, v *Validator, data []byte) {
	t.Helper()
	_, wantErr := v.Decode(data)
	for i, skip := range []map[string]bool{nil, {"a": true, "amount": true, "tags": true, "item_data": true}, nil} {
		r := v.NewReader(data)
		got, ok := readAll(t, &r, skip, i == 2)
		whole := ok && r.End()
		if wantErr != nil {
			// A document nested too deep may be read past where Decode
			// stops when the depth is in a skipped member; nothing else.
			var verr *Error
			if !errors.As(wantErr, &verr) || skip == nil {
				require.False(t, whole, "%.80q: the reader read what Decode refuses (%v)", data, wantErr)
			}
			continue
		}
		require.True(t, whole, "%.80q: the reader stopped (%v) where Decode decodes", data, r.Err())
		if !ok {
			require.Error(t, r.Err())
		}
		want, _ := v.Decode(data) // a fresh tree: dropNames changes it
		require.Equal(t, dropNames(want, skip), got, "%.80q", data)
	}
}

func TestReaderAgreesWithDecode(t *testing.T) {
	v, err := Default()
	require.NoError(t, err)
	for _, c := range decodeCases {
		agreeReader(t, v, []byte(c))
	}
	files, _ := filepath.Glob("testdata/*/*/*.json")
	require.NotEmpty(t, files)
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		agreeReader(t, v, data)
	}
}

// FuzzReader checks the Reader against Decode on arbitrary bytes.
func FuzzReader(f *testing.F) {
	v, err := Default()
	require.NoError(f, err)
	for _, c := range decodeCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, data []byte) { agreeReader(t, v, data) })
}

// TestReaderInt64ReadsWhatParseIntReads: Int64 takes exactly the JSON
// numbers strconv.ParseInt takes, with its value, and leaves any other
// unread.
func TestReaderInt64ReadsWhatParseIntReads(t *testing.T) {
	v, err := Default()
	require.NoError(t, err)
	texts := []string{
		"0", "-0", "7", "-7", "9223372036854775807", "-9223372036854775808", "9223372036854775808",
		"-9223372036854775809", "18446744073709551615", "18446744073709551616", "99999999999999999999",
		"922337203685477580", "9223372036854775810", "1.0", "1e3", "1E3", "-1.5", "0.0", "1e-3", "10000000000000000000",
	}
	rng := rand.New(rand.NewPCG(7, 11))
	for range 2000 {
		n := rng.Uint64() >> rng.IntN(64)
		s := strconv.FormatUint(n, 10)
		if rng.IntN(2) == 0 {
			s = "-" + s
		}
		texts = append(texts, s)
	}
	for _, text := range texts {
		r := v.NewReader([]byte(text))
		got, ok := r.Int64()
		want, err := strconv.ParseInt(text, 10, 64)
		require.Equal(t, err == nil, ok, text)
		if ok {
			assert.Equal(t, want, got, text)
			assert.True(t, r.End(), text)
			continue
		}
		n, ok := r.Value()
		require.True(t, ok, text)
		assert.Equal(t, json.Number(text), n, "%s: not left unread", text)
	}
}

// TestReaderLeavesOtherTypesUnread: a read of another JSON type answers
// false, and the value is still there for the right read.
func TestReaderLeavesOtherTypesUnread(t *testing.T) {
	v, err := Default()
	require.NoError(t, err)
	for _, c := range []struct {
		doc  string
		want any
	}{
		{`"x"`, "x"}, {`5`, json.Number("5")}, {`1.5`, json.Number("1.5")}, {`true`, true}, {`false`, false},
		{`null`, nil}, {`[1]`, []any{json.Number("1")}}, {`{"a":null}`, map[string]any{"a": nil}},
	} {
		t.Run(c.doc, func(t *testing.T) {
			r := v.NewReader([]byte(c.doc))
			if _, ok := c.want.(map[string]any); !ok {
				assert.False(t, r.Object())
			}
			if c.want != nil {
				assert.False(t, r.Null())
			}
			if _, ok := c.want.(string); !ok {
				_, ok := r.String()
				assert.False(t, ok)
			}
			if _, ok := c.want.(bool); !ok {
				_, ok := r.Bool()
				assert.False(t, ok)
			}
			if n, ok := c.want.(json.Number); !ok || n == "1.5" {
				_, ok := r.Int64()
				assert.False(t, ok)
			}
			require.NoError(t, r.Err())
			got, ok := r.Value()
			require.True(t, ok)
			assert.Equal(t, c.want, got)
			assert.True(t, r.End())
			assert.True(t, reflect.DeepEqual(c.want, got))
		})
	}
}

// TestReaderErrIsMalformed: text that is not JSON stops the reader with an
// error wrapping ErrMalformed, and every later read answers false.
func TestReaderErrIsMalformed(t *testing.T) {
	v, err := Default()
	require.NoError(t, err)
	for _, doc := range []string{`{"a":1 "b":2}`, `{"a":tru}`, `{"a":"\x"}`, `{"a"1}`, `{"a":1,}`, `{"a":[1,}`} {
		r := v.NewReader([]byte(doc))
		require.True(t, r.Object(), doc)
		for _, ok := r.Next(); ok; _, ok = r.Next() {
			r.Skip()
		}
		require.ErrorIs(t, r.Err(), ErrMalformed, doc)
		assert.False(t, r.End(), doc)
		_, ok := r.Next()
		assert.False(t, ok, doc)
		_, ok = r.Value()
		assert.False(t, ok, doc)
	}
}
