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
	`"\x"`, `"\u12"`, `"\u12G4"`, `"abc`, ``, `   `, `[[[[]]]]`, `{"":""}`, "\"\u2028\"", `"\u0000"`,
	strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
}

// agreeDecode checks fastDecode against encoding/json: when it decides, the
// trees are equal and encoding/json accepts the input too.
func agreeDecode(t *testing.T, data []byte) {
	t.Helper()
	fast, ok := fastDecode(data)
	slow, err := slowDecode(data)
	if !ok {
		return
	}
	if err != nil {
		t.Fatalf("%.80q: fast decoder accepts, encoding/json says %v", data, err)
	}
	if !reflect.DeepEqual(fast, slow) {
		t.Fatalf("%.80q: fast %#v, encoding/json %#v", data, fast, slow)
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
