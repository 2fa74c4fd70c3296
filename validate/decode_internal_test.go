package validate

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// decodeCases are inputs at the edges of the JSON grammar.
var decodeCases = []string{
	`{}`, `[]`, `null`, `true`, `false`, `0`, `-0`, `-0.5e+10`, `1E3`, `12345678901234567890123`, ` {"a" : [1, 2.5, "x"] } `,
	`{"a":1,"a":2}`, `"\u00e9\n\t\"\\\/\b\f\r"`, `"\ud83d\ude00"`, `"\ud800"`, `"é😀"`, "\"\xff\"", "\"a\x01\"",
	`01`, `1.`, `.5`, `-`, `1e`, `+1`, `[1,]`, `{"a":1,}`, `{"a" 1}`, `{a:1}`, `[1 2]`, `nul`, `tru`, `{"a":1}x`, `{"a":1} {}`,
	`{"a":1,"é":2,"amount":3,"q\"":4,"b\\":5,"\n":6,"":7,"tags":{"a":"\u0061"},"a\u0062":8}`, `{"amount`, `{"amount"`, `{"amount":`,
	`"\x"`, `"\u12"`, `"\u12G4"`, `"abc`, ``, `   `, `[[[[]]]]`, `{"":""}`, "\"\u2028\"", `"\u0000"`,
	strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
}

// testKeys are interned keys as a Validator holds them (propertyNames), with
// a few more the decode cases use.
var testKeys = func() map[string]string {
	keys := propertyNames(map[string]any{"": map[string]any{"properties": map[string]any{
		"a": true, "": true, "é": true, "amount": true, `q"`: true, `b\`: true, "\n": true,
	}}})
	keys["tags"] = "tags"
	return keys
}()

// agreeDecode checks fastDecode, without and with interned keys, against
// encoding/json: when it decides, the trees are equal and encoding/json
// accepts the input too.
func agreeDecode(t *testing.T, data []byte) {
	t.Helper()
	slow, err := slowDecode(data)
	for _, keys := range []map[string]string{nil, testKeys} {
		fast, ok := fastDecodeKeys(data, keys)
		if !ok {
			continue
		}
		if err != nil {
			t.Fatalf("%.80q: fast decoder accepts, encoding/json says %v", data, err)
		}
		if !reflect.DeepEqual(fast, slow) {
			t.Fatalf("%.80q: fast %#v, encoding/json %#v", data, fast, slow)
		}
	}
}

// TestPropertyNamesLeaveOutEscapedNames: a name JSON writes with an escape
// would match raw bytes it is not.
func TestPropertyNamesLeaveOutEscapedNames(t *testing.T) {
	for _, k := range []string{`q"`, `b\`, "\n"} {
		if _, ok := testKeys[k]; ok {
			t.Errorf("propertyNames kept %q", k)
		}
	}
	for _, k := range []string{"a", "", "é", "amount"} {
		if _, ok := testKeys[k]; !ok {
			t.Errorf("propertyNames lost %q", k)
		}
	}
	v, err := New()
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"amount", "additional_purchase_data", "item_data", "idempotency_id"} {
		if _, ok := v.keys[k]; !ok {
			t.Errorf("the contract's property %q is not interned", k)
		}
	}
}

func TestFastDecodeAgrees(t *testing.T) {
	for _, c := range decodeCases {
		agreeDecode(t, []byte(c))
	}
	files, _ := filepath.Glob("testdata/*/*/*.json")
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		agreeDecode(t, data)
		if _, ok := fastDecode(data); !ok {
			t.Errorf("%s: the fast decoder gave up on a fixture", f)
		}
	}
}

// FuzzDecode checks fastDecode against encoding/json on arbitrary bytes.
func FuzzDecode(f *testing.F) {
	for _, c := range decodeCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, data []byte) { agreeDecode(t, data) })
}
