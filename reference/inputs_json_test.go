package reference

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/conform-kit/conform/reference/ledger"
	"github.com/conform-kit/conform/validate"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// inputTypes makes a zero value of every input type readInput reads.
var inputTypes = []func() any{
	func() any { return &ledger.CardCreate{} },
	func() any { return &ledger.AuthorizationCreate{} },
	func() any { return &ledger.CaptureRequest{} },
	func() any { return &ledger.TransferCreate{} },
	func() any { return &ledger.MerchantUpdate{} },
	func() any { return &ledger.ScheduleCreate{} },
	func() any { return &ledger.AmountBody{} },
	func() any { return &ledger.EnrollmentBody{} },
	func() any { return &ledger.BalanceTransferCreate{} },
	func() any { return &ledger.FileCreate{} },
	func() any { return &ledger.ExternalLinkCreate{} },
	func() any { return &ledger.WebhookBody{} },
}

// treeDecode is the way decodeBody decides a body readInput leaves:
// the validator's tree, filled in by decodeTree.
func treeDecode(v *validate.Validator, body []byte, dst any) error {
	doc, err := v.Decode(body)
	if err != nil {
		return err
	}
	return decodeTree(doc, dst)
}

// sameDecoding decodes body into a fresh value of each kind by decodeBody
// and by treeDecode, requires the same value and the same verdict, and
// reports whether readInput took the body on its own.
func sameDecoding(t *testing.T, v *validate.Validator, body []byte, newIn func() any) bool {
	t.Helper()
	want, got, read := newIn(), newIn(), newIn()
	wantErr := treeDecode(v, body, want)
	gotErr := decodeBody(v, body, got)
	require.Equal(t, wantErr == nil, gotErr == nil, "%T %s: decodeBody %v, the tree %v", got, body, gotErr, wantErr)
	if wantErr != nil {
		require.Equal(t, wantErr.Error(), gotErr.Error(), "%T %s", got, body)
		var we, ge *ledger.DomainError
		require.Equal(t, errors.As(wantErr, &we), errors.As(gotErr, &ge), "%T %s", got, body)
		require.Equal(t, errors.Is(wantErr, validate.ErrMalformed), errors.Is(gotErr, validate.ErrMalformed), "%T %s", got, body)
		return false
	}
	require.True(t, reflect.DeepEqual(want, got), "%T %s: decodeBody built\n%#v\nthe tree\n%#v", got, body, got, want)
	if readInput(v, body, read) {
		require.True(t, reflect.DeepEqual(want, read), "%T %s: readInput built\n%#v\nthe tree\n%#v", got, body, read, want)
		return true
	}
	return false
}

// fullValue is a JSON value for a field of type typ that sets it to a
// value other than its zero, down to every field of a struct.
func fullValue(typ reflect.Type, name string) any {
	if typ == reflect.TypeFor[ledger.PurchaseData]() {
		return fullValue(reflect.TypeFor[map[string]any](), name)
	}
	switch typ.Kind() {
	case reflect.Pointer:
		return fullValue(typ.Elem(), name)
	case reflect.String:
		return "v-" + name + ` "é\u2028`
	case reflect.Bool:
		return true
	case reflect.Int, reflect.Int64:
		return -9223372036854775808
	case reflect.Map:
		if typ.Elem().Kind() == reflect.String {
			return map[string]any{"k": "v", "amount": "", "é\n": "\\"}
		}
		return map[string]any{"amount": 1.5, "b": []any{1.0, "x", nil, true, map[string]any{}}, "c": 1e3}
	case reflect.Slice:
		return []any{"transfer.created", map[string]any{"entity": "dispute", "types": []any{"created"}}, 12345678901234567890.0}
	case reflect.Struct:
		m := map[string]any{}
		for f := range typ.Fields() {
			tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if f.IsExported() && tag != "" && tag != "-" {
				m[tag] = fullValue(f.Type, tag)
			}
		}
		return m
	}
	panic(fmt.Sprintf("no value for %s", typ))
}

// unsetFields names the exported fields of v (down through pointers and
// structs) left at their zero value.
func unsetFields(path string, v reflect.Value) []string {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return []string{path}
		}
		return unsetFields(path, v.Elem())
	case reflect.Struct:
		var unset []string
		for i := range v.NumField() {
			if f := v.Type().Field(i); f.IsExported() {
				unset = append(unset, unsetFields(path+"."+f.Name, v.Field(i))...)
			}
		}
		return unset
	}
	if v.IsZero() {
		return []string{path}
	}
	return nil
}

// TestReadInputReadsEveryField: a body setting every field of an input
// type, down to its nested structs, is read by readInput alone, sets every
// field, and builds what the tree builds. A field readInput does not name
// stops it, and fails here.
func TestReadInputReadsEveryField(t *testing.T) {
	v, err := validate.Default()
	require.NoError(t, err)
	for _, newIn := range inputTypes {
		in := newIn()
		typ := reflect.TypeOf(in).Elem()
		t.Run(typ.Name(), func(t *testing.T) {
			body, err := json.Marshal(fullValue(typ, typ.Name()))
			require.NoError(t, err)
			require.True(t, sameDecoding(t, v, body, newIn), "readInput left %s to the tree", body)
			require.True(t, readInput(v, body, in))
			assert.Empty(t, unsetFields(typ.Name(), reflect.ValueOf(in).Elem()), "fields the body did not set: %s", body)
		})
	}
}

// TestReadInputMatchesDecodeTree compares decodeBody with the tree's way on
// the bodies of bodyShapes and on seeded random bodies of every input type:
// members in any order, repeated, null, of other JSON types, named in
// another case or unknown, integers in every form; and checks that the
// plain ones are read without the tree.
func TestReadInputMatchesDecodeTree(t *testing.T) {
	v, err := validate.Default()
	require.NoError(t, err)
	for _, c := range bodyShapes {
		for _, newIn := range inputTypes {
			sameDecoding(t, v, []byte(c.body), newIn)
		}
	}
	rng := rand.New(rand.NewPCG(3, 5))
	read, total := 0, 0
	for _, newIn := range inputTypes {
		typ := reflect.TypeOf(newIn()).Elem()
		for range 400 {
			body := randomBody(rng, typ)
			total++
			if sameDecoding(t, v, body, newIn) {
				read++
			}
		}
	}
	// A body is read alone unless one of its members is odd: about one in
	// three here. Fewer would mean readInput leaves plain bodies to the tree.
	assert.Greater(t, read, total/5, "readInput read %d of %d bodies", read, total)
	assert.Less(t, read, total, "no body went to the tree")
}

// oddValues are values of every JSON type and every integer form.
var oddValues = []string{
	`null`, `""`, `"x"`, `"\u00e9\ud800"`, `0`, `-1`, `9223372036854775807`, `-9223372036854775808`,
	`9223372036854775808`, `1.0`, `1e3`, `1.5`, `-0`, `true`, `false`, `{}`, `{"a":"b"}`, `{"a":null}`,
	`{"a":1}`, `[]`, `["a",1]`,
}

// randomBody writes an object of the members of typ, each most often with
// the value fullValue gives it, sometimes an odd one, repeated, renamed or
// unknown, with white space between tokens.
func randomBody(rng *rand.Rand, typ reflect.Type) []byte {
	var b bytes.Buffer
	b.WriteString("{ ")
	n := 0
	member := func(name, value string) {
		if n > 0 {
			b.WriteString(" ,\n")
		}
		n++
		fmt.Fprintf(&b, "%q :\t%s", name, value)
	}
	for f := range typ.Fields() {
		tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !f.IsExported() || tag == "" || rng.IntN(4) == 0 {
			continue
		}
		value := func() string {
			if rng.IntN(6) == 0 {
				return oddValues[rng.IntN(len(oddValues))]
			}
			if f.Type.Kind() == reflect.Struct || (f.Type.Kind() == reflect.Pointer && f.Type.Elem().Kind() == reflect.Struct) {
				return string(randomBody(rng, indirect(f.Type)))
			}
			out, _ := json.Marshal(fullValue(f.Type, tag))
			return string(out)
		}
		name := tag
		switch rng.IntN(30) {
		case 0:
			name = strings.ToUpper(tag)
		case 1:
			name = tag + "_unknown"
		case 2:
			member(name, value()) // repeated: the last one counts
		}
		member(name, value())
	}
	b.WriteString(" }")
	return b.Bytes()
}

func indirect(typ reflect.Type) reflect.Type {
	if typ.Kind() == reflect.Pointer {
		return typ.Elem()
	}
	return typ
}

// FuzzReadInput: decodeBody and the tree's way build the same value with
// the same verdict from any bytes, into every input type.
func FuzzReadInput(f *testing.F) {
	v, err := validate.Default()
	require.NoError(f, err)
	for _, c := range bodyShapes {
		f.Add([]byte(c.body))
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, newIn := range inputTypes {
		f.Add(randomBody(rng, reflect.TypeOf(newIn()).Elem()))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, newIn := range inputTypes {
			sameDecoding(t, v, body, newIn)
		}
	})
}
