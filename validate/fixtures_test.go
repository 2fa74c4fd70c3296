package validate_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Fixtures live in testdata/<schema>/valid/*.json (documents the schema
// accepts) and testdata/<schema>/invalid/*.json. An invalid fixture is an
// object with two members: "document", the document to validate, and
// "$expect", the exact list of violations expected as {"pointer", "rule"}
// pairs (order free). A fixture that expects less or more fails.
type invalidFixture struct {
	Expect   []expectation   `json:"$expect"`
	Document json.RawMessage `json:"document"`
}

func TestFixtures(t *testing.T) {
	v := newValidator(t)
	dirs, err := os.ReadDir("testdata")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, d := range dirs {
		schema := d.Name()
		if _, ok := v.Schema(schema); !ok {
			t.Errorf("testdata/%s: no schema of that name", schema)
			continue
		}
		seen[schema] = true
		for _, kind := range []string{"valid", "invalid"} {
			files, _ := filepath.Glob(filepath.Join("testdata", schema, kind, "*.json"))
			if len(files) == 0 {
				t.Errorf("testdata/%s/%s: no fixtures", schema, kind)
			}
			for _, file := range files {
				name := schema + "/" + kind + "/" + strings.TrimSuffix(filepath.Base(file), ".json")
				t.Run(name, func(t *testing.T) {
					data, err := os.ReadFile(file)
					if err != nil {
						t.Fatal(err)
					}
					if kind == "valid" {
						if err := v.Validate(schema, data); err != nil {
							t.Fatalf("Validate(%s, %s) = %v, want nil", schema, file, err)
						}
						return
					}
					var fx invalidFixture
					if err := json.Unmarshal(data, &fx); err != nil || len(fx.Expect) == 0 || fx.Document == nil {
						t.Fatalf("%s: not an invalid fixture ({\"$expect\": [...], \"document\": ...}): %v", file, err)
					}
					got := violationsOf(t, v.Validate(schema, fx.Document))
					want := sortExpectations(fx.Expect)
					if !slices.Equal(got, want) {
						t.Errorf("Validate(%s, %s) violations\n got %s\nwant %s", schema, file, formatExpectations(got), formatExpectations(want))
					}
				})
			}
		}
	}
	for _, s := range v.Schemas() {
		if s != "common" && !seen[s] {
			t.Errorf("schema %s has no testdata/%s fixtures", s, s)
		}
	}
}
