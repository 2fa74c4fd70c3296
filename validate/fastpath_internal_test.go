package validate

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/conform-kit/conform/validate/internal/jsondoc"
	"github.com/santhosh-tekuri/jsonschema/v5"
)

// TestFastPathCoversEverySchema makes sure no schema silently loses its
// program (a keyword fastcompile.go does not know disables it).
func TestFastPathCoversEverySchema(t *testing.T) {
	v, err := New()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range v.names {
		if v.fast[name] == nil {
			t.Errorf("schema %s has no program: it uses a keyword fastcompile.go does not support", name)
		}
	}
}

// compared counts the documents the differential tests compared, and
// invalidCompared those jsonschema found invalid.
var compared, invalidCompared atomic.Int64

// agree checks that the pass and jsonschema v5 (over encoding/json's tree)
// give the same answer on data: the same verdict, the same violations
// (pointer, rule, message) up to the cap, the same refusal of a body that
// is not JSON or not an object.
func agree(t *testing.T, v *Validator, schema string, data []byte) {
	t.Helper()
	got := v.Validate(schema, data)
	first := &pass{scanner: scanner{data: data}}
	if ptr, deep := deepPointerOf(data); deep && !(v.objects[schema] && first.kindAt(first.ws(0)) != tObject) {
		// Nested deeper than MaxDepth (and no syntax error before): one
		// violation at the value that opens level MaxDepth+1.
		want := []Violation{{Pointer: ptr, Rule: RuleDepth, Message: depthMessage}}
		var e *Error
		if !errors.As(got, &e) || e.Code != CodeInvalidField || !slices.Equal(e.Violations, want) || e.Omitted != 0 {
			t.Errorf("%s %.200q: the pass says %.300v, want %v", schema, data, got, want)
		}
		compared.Add(1)
		invalidCompared.Add(1)
		return
	}
	doc, err := slowDecode(data)
	if err != nil {
		want := publicMessage(err)
		p := &pass{scanner: scanner{data: data}}
		if k := p.kindAt(p.ws(0)); v.objects[schema] && k != 0 && k != tObject {
			// Not an object: refused at its first byte, before the syntax.
			want = "body must be a JSON object, got " + kindName(k)
		}
		if !errors.Is(got, ErrMalformed) {
			t.Errorf("%s %q: encoding/json says %v, the pass says %v", schema, data, err, got)
		} else if gotMsg := publicMessage(got); want != gotMsg {
			t.Errorf("%s %q: malformed message %q, want %q", schema, data, gotMsg, want)
		}
		compared.Add(1)
		return
	}
	if _, isObj := doc.(map[string]any); v.objects[schema] && !isObj {
		if !errors.Is(got, ErrMalformed) {
			t.Errorf("%s %q: the pass says %v, want a malformed body", schema, data, got)
		}
		compared.Add(1)
		return
	}
	if vs := oversizedNumbers(doc); len(vs) > 0 {
		return // the schema library is never given those (numbers.go)
	}
	compared.Add(1)
	slow := v.compiled[schema].Validate(doc)
	if slow == nil {
		if got != nil {
			t.Errorf("%s %s: the pass says %v, jsonschema says valid", schema, data, got)
		}
		return
	}
	invalidCompared.Add(1)
	var ve *jsonschema.ValidationError
	if !errors.As(slow, &ve) {
		t.Fatalf("%s: jsonschema error %v", schema, slow)
	}
	want := v.violations(doc, ve)
	var e *Error
	if !errors.As(got, &e) {
		t.Errorf("%s %s: the pass says %v, jsonschema says %v", schema, data, got, want)
		return
	}
	if len(want) > MaxViolations {
		if len(e.Violations) != MaxViolations || e.Omitted == 0 {
			t.Errorf("%s: %d violations listed and %d omitted, want %d listed of %d", schema, len(e.Violations), e.Omitted, MaxViolations, len(want))
		}
		for _, g := range e.Violations {
			if !slices.Contains(want, g) {
				t.Errorf("%s: violation %v is not jsonschema's", schema, g)
			}
		}
		return
	}
	if hasOddKey(doc) {
		// jsonschema drops an empty name from its pointers ("/tags" for the
		// member "" of tags) and percent-encodes others ("/tags/a%20b"); the
		// pass writes RFC 6901 pointers ("/tags/", "/tags/a b").
		return
	}
	if !slices.Equal(e.Violations, want) {
		t.Errorf("%s %s: violations of the pass\n%v\njsonschema\n%v", schema, data, e.Violations, want)
	}
}

// deepPointerOf reads data with encoding/json's tokenizer, which has no
// depth limit of its own, and returns the JSON pointer of the first array or
// object that opens level MaxDepth+1, if one comes before the end or a
// syntax error.
func deepPointerOf(data []byte) (string, bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	type frame struct {
		obj, wantKey bool
		key          string
		index        int
	}
	var stack []frame
	// done notes a value read; it reports whether it was the document.
	done := func() bool {
		if len(stack) == 0 {
			return true
		}
		if f := &stack[len(stack)-1]; f.obj {
			f.wantKey = true
		} else {
			f.index++
		}
		return false
	}
	for {
		tok, err := dec.Token()
		if err != nil {
			return "", false
		}
		if n := len(stack); n > 0 && stack[n-1].obj && stack[n-1].wantKey {
			if key, ok := tok.(string); ok {
				stack[n-1].key, stack[n-1].wantKey = key, false
				continue
			}
		}
		switch tok {
		case json.Delim('['), json.Delim('{'):
			if len(stack) == MaxDepth {
				var b strings.Builder
				for _, f := range stack {
					b.WriteByte('/')
					if f.obj {
						b.WriteString(jsondoc.Escape(f.key))
					} else {
						b.WriteString(strconv.Itoa(f.index))
					}
				}
				return b.String(), true
			}
			stack = append(stack, frame{obj: tok == json.Delim('{'), wantKey: true})
			continue
		case json.Delim(']'), json.Delim('}'):
			stack = stack[:len(stack)-1]
		}
		if done() {
			return "", false
		}
	}
}

// fixtureDocs returns every fixture document (the document of an invalid
// fixture) with the schema its folder names.
func fixtureDocs(t testing.TB) (schemas []string, docs [][]byte) {
	files, _ := filepath.Glob("testdata/*/*/*.json")
	if len(files) == 0 {
		t.Fatal("no fixtures")
	}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var fx struct {
			Document json.RawMessage `json:"document"`
			Expect   json.RawMessage `json:"$expect"`
		}
		if json.Unmarshal(data, &fx) == nil && fx.Expect != nil && fx.Document != nil {
			data = fx.Document
		}
		schemas = append(schemas, filepath.Base(filepath.Dir(filepath.Dir(file))))
		docs = append(docs, data)
	}
	return schemas, docs
}

// TestFastPathAgreesOnFixtures runs every fixture, valid and invalid,
// against its schema and every other schema through both.
func TestFastPathAgreesOnFixtures(t *testing.T) {
	v, err := New()
	if err != nil {
		t.Fatal(err)
	}
	schemas, docs := fixtureDocs(t)
	for i, data := range docs {
		agree(t, v, schemas[i], data)
		for _, other := range v.names {
			agree(t, v, other, data)
		}
	}
	t.Logf("%d documents compared, %d of them invalid", compared.Load(), invalidCompared.Load())
}

// FuzzFastPath checks the pass against jsonschema on arbitrary bytes.
func FuzzFastPath(f *testing.F) {
	v, err := New()
	if err != nil {
		f.Fatal(err)
	}
	_, docs := fixtureDocs(f)
	for i, data := range docs {
		f.Add(uint8(i), data)
	}
	f.Fuzz(func(t *testing.T, i uint8, body []byte) {
		agree(t, v, v.names[int(i)%len(v.names)], body)
	})
}

// TestDuplicateNamesKeepTheLast shows the pass judging the last of
// duplicate names, as the decoder keeps it, in both runs.
func TestDuplicateNamesKeepTheLast(t *testing.T) {
	v, err := New()
	if err != nil {
		t.Fatal(err)
	}
	base := `"source":"PI0123456789abcdefghijkl","merchant":"MU0123456789abcdefghijkl","currency":"USD"`
	for _, body := range []string{
		`{` + base + `,"amount":-1,"amount":5}`,
		`{` + base + `,"amount":5,"amount":-1}`,
		`{` + base + `,"amount":5,"additional_purchase_data":{"item_data":[1]},"additional_purchase_data":{"customer_reference_number":"a","customs_duty_amount":0,"discount_amount":0,"shipping_amount":0}}`,
		`{` + base + `,"amount":5,"additional_purchase_data":{"customer_reference_number":"a","customs_duty_amount":0,"discount_amount":0,"shipping_amount":0},"additional_purchase_data":{"item_data":[1]}}`,
	} {
		agree(t, v, "transfer_create", []byte(body))
	}
}

// hasOddKey reports whether a decoded document has a member whose name
// jsonschema's pointers do not keep as it is: "" or one percent-encoding
// changes.
func hasOddKey(doc any) bool {
	switch x := doc.(type) {
	case map[string]any:
		for k, e := range x {
			if k == "" || url.PathEscape(strings.NewReplacer("~", "~0", "/", "~1").Replace(k)) != jsondoc.Escape(k) || hasOddKey(e) {
				return true
			}
		}
	case []any:
		for _, e := range x {
			if hasOddKey(e) {
				return true
			}
		}
	}
	return false
}
