package validate_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/conform-kit/conform/validate"
)

// newValidator builds a Validator or stops the test.
func newValidator(t testing.TB) *validate.Validator {
	t.Helper()
	v, err := validate.New()
	if err != nil {
		t.Fatalf("New() = %v", err)
	}
	return v
}

// expectation is one violation a test expects, by pointer and rule.
type expectation struct {
	Pointer string `json:"pointer"`
	Rule    string `json:"rule"`
}

func (e expectation) String() string { return fmt.Sprintf("%s (%s)", e.Pointer, e.Rule) }

// violationsOf returns the violations of err as expectations, sorted, or
// fails the test when err is not an *validate.Error.
func violationsOf(t testing.TB, err error) []expectation {
	t.Helper()
	var verr *validate.Error
	if !errors.As(err, &verr) {
		t.Fatalf("error = %v (%T), want *validate.Error", err, err)
	}
	got := make([]expectation, 0, len(verr.Violations))
	for _, v := range verr.Violations {
		if v.Message == "" {
			t.Errorf("violation %s (%s) has an empty message", v.Pointer, v.Rule)
		}
		got = append(got, expectation{v.Pointer, v.Rule})
	}
	return sortExpectations(got)
}

func sortExpectations(es []expectation) []expectation {
	es = slices.Clone(es)
	sort.Slice(es, func(i, j int) bool {
		if es[i].Pointer != es[j].Pointer {
			return es[i].Pointer < es[j].Pointer
		}
		return es[i].Rule < es[j].Rule
	})
	return slices.Compact(es)
}

func formatExpectations(es []expectation) string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = e.String()
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// mustJSON marshals v or stops the test.
func mustJSON(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("json.Marshal: %v", err)
	}
	return b
}

// decodeUseNumber decodes b as the validator does.
func decodeUseNumber(t testing.TB, b []byte) any {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("decoding %s: %v", b, err)
	}
	return v
}
