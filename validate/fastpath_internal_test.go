package validate

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// TestFastPathCoversEverySchema makes sure no schema silently loses its fast
// path (a keyword the fast path does not know disables it).
func TestFastPathCoversEverySchema(t *testing.T) {
	v, err := New()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range v.names {
		if v.fast[name] == nil {
			t.Errorf("schema %s has no fast path: it uses a keyword fastpath.go does not support", name)
		}
	}
}

// collected counts the documents whose violations the fast path found.
var collected atomic.Int64

// agree checks that the fast path never disagrees with jsonschema on doc.
func agree(t *testing.T, v *Validator, schema string, doc any) {
	t.Helper()
	f := v.fast[schema]
	if f == nil {
		return
	}
	fast := f.check(doc)
	slow := v.compiled[schema].Validate(doc)
	switch {
	case fast == fastValid && slow != nil:
		t.Errorf("%s: fast path says valid, jsonschema says %v", schema, slow)
	case fast == fastInvalid && slow == nil:
		t.Errorf("%s: fast path says invalid, jsonschema says valid", schema)
	case fast == fastInvalid:
		// The violations found on the fast path are those of the full run.
		got, ok := v.collect(f, doc)
		if !ok {
			return
		}
		collected.Add(1)
		var ve *jsonschema.ValidationError
		if !errors.As(slow, &ve) {
			t.Fatalf("%s: jsonschema error %v", schema, slow)
		}
		if want := v.violations(doc, ve); !slices.Equal(got.Violations, want) {
			t.Errorf("%s: violations on the fast path\n%v\nfull run\n%v", schema, got, want)
		}
	}
}

// TestFastPathAgreesOnFixtures runs every fixture, valid and invalid, and
// every one-member deletion of them through both paths.
func TestFastPathAgreesOnFixtures(t *testing.T) {
	v, err := New()
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob("testdata/*/*/*.json")
	if len(files) == 0 {
		t.Fatal("no fixtures")
	}
	for _, file := range files {
		schema := filepath.Base(filepath.Dir(filepath.Dir(file)))
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := decode(data)
		if err != nil {
			t.Fatal(err)
		}
		if m, ok := doc.(map[string]any); ok && m["$expect"] != nil {
			doc = m["document"]
		}
		agree(t, v, schema, doc)
		for _, other := range v.names { // the same document against every schema
			agree(t, v, other, doc)
		}
	}
	if n := collected.Load(); n < 100 {
		t.Errorf("the fast path found the violations of only %d documents: the comparison proves little", n)
	}
	t.Logf("violations found on the fast path for %d documents", collected.Load())
}

// FuzzFastPath checks the fast path against jsonschema on arbitrary JSON.
func FuzzFastPath(f *testing.F) {
	v, err := New()
	if err != nil {
		f.Fatal(err)
	}
	files, _ := filepath.Glob("testdata/*/*/*.json")
	for i, file := range files {
		data, _ := os.ReadFile(file)
		var fx struct {
			Document json.RawMessage `json:"document"`
		}
		if json.Unmarshal(data, &fx) == nil && fx.Document != nil {
			data = fx.Document
		}
		f.Add(uint8(i), data)
	}
	f.Fuzz(func(t *testing.T, i uint8, body []byte) {
		doc, err := decode(body)
		if err != nil {
			return
		}
		agree(t, v, v.names[int(i)%len(v.names)], doc)
	})
}
