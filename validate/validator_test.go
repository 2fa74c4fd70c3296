package validate_test

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/conform-kit/conform/validate"
)

func TestNewCompilesEverySchema(t *testing.T) {
	v := newValidator(t)
	names := v.Schemas()
	if !slices.IsSorted(names) {
		t.Errorf("Schemas() = %v, want sorted", names)
	}
	for _, want := range []string{"common", "list_envelope", "error", "authorization", "transfer", "payment_instrument",
		"merchant", "subscription_schedule", "subscription_amount", "subscription_enrollment", "dispute", "evidence",
		"balance_transfer", "webhook", "file", "external_link", "transfer_list", "dispute_list", "evidence_list",
		"webhook_list", "subscription_enrollment_list", "file_list", "external_link_list", "balance_transfer_list",
		"authorization_create", "authorization_capture", "transfer_create", "payment_instrument_create", "merchant_update",
		"subscription_schedule_create", "subscription_amount_create", "subscription_amount_update",
		"subscription_enrollment_create", "subscription_enrollment_update", "webhook_create", "webhook_update",
		"file_create", "external_link_create", "balance_transfer_create"} {
		if !slices.Contains(names, want) {
			t.Errorf("Schemas() lacks %q", want)
		}
	}
	for _, name := range names {
		raw, ok := v.Schema(name)
		if !ok {
			t.Fatalf("Schema(%q) not found although listed", name)
		}
		var doc map[string]any
		if err := json.Unmarshal(raw, &doc); err != nil {
			t.Fatalf("Schema(%q) is not a JSON object: %v", name, err)
		}
		if doc["$schema"] != "https://json-schema.org/draft/2020-12/schema" {
			t.Errorf("%s: $schema = %v, want draft 2020-12", name, doc["$schema"])
		}
		if c, _ := doc["$comment"].(string); !strings.Contains(c, "additionalProperties") {
			t.Errorf("%s: root $comment does not record the additionalProperties decision: %q", name, c)
		}
	}
	if _, ok := v.Schema("nope"); ok {
		t.Error(`Schema("nope") found, want false`)
	}
}

// TestEveryRefResolves walks every $ref of every schema and resolves it to an
// embedded file and a JSON pointer inside it.
func TestEveryRefResolves(t *testing.T) {
	v := newValidator(t)
	docs := map[string]any{}
	for _, name := range v.Schemas() {
		raw, _ := v.Schema(name)
		var doc any
		if err := json.Unmarshal(raw, &doc); err != nil {
			t.Fatal(err)
		}
		docs[name+".json"] = doc
	}
	refs := 0
	for file, doc := range docs {
		walk(doc, func(m map[string]any) {
			ref, ok := m["$ref"].(string)
			if !ok {
				return
			}
			refs++
			target, frag, _ := strings.Cut(ref, "#")
			if target == "" {
				target = file
			}
			tdoc, ok := docs[target]
			if !ok {
				t.Errorf("%s: $ref %q names no embedded schema", file, ref)
				return
			}
			if frag != "" && resolvePointer(tdoc, frag) == nil {
				t.Errorf("%s: $ref %q: pointer %q resolves to nothing", file, ref, frag)
			}
		})
	}
	if refs == 0 {
		t.Fatal("no $ref found at all")
	}
}

// TestNoFragmentCopiedBetweenFiles fails when a non-trivial subschema (three
// or more keywords) appears in two files: shared pieces belong in common.json.
func TestNoFragmentCopiedBetweenFiles(t *testing.T) {
	v := newValidator(t)
	where := map[string]string{}
	for _, name := range v.Schemas() {
		raw, _ := v.Schema(name)
		var doc any
		_ = json.Unmarshal(raw, &doc)
		walk(doc, func(m map[string]any) {
			if len(m) < 3 || m["$schema"] != nil {
				return
			}
			key := string(mustJSON(t, m))
			if other, ok := where[key]; ok && other != name {
				t.Errorf("fragment %s appears in %s and %s", key, other, name)
			}
			where[key] = name
		})
	}
}

func walk(v any, f func(map[string]any)) {
	switch x := v.(type) {
	case map[string]any:
		f(x)
		for _, c := range x {
			walk(c, f)
		}
	case []any:
		for _, c := range x {
			walk(c, f)
		}
	}
}

func resolvePointer(doc any, ptr string) any {
	cur := doc
	for _, seg := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[strings.ReplaceAll(strings.ReplaceAll(seg, "~1", "/"), "~0", "~")]
	}
	return cur
}

func TestOperationsNameExistingSchemas(t *testing.T) {
	v := newValidator(t)
	ops := v.Operations()
	if len(ops) == 0 {
		t.Fatal("Operations() is empty")
	}
	for _, op := range ops {
		for _, s := range []string{op.Request, op.Response} {
			switch s {
			case "", "multipart", "binary":
				continue
			}
			if _, ok := v.Schema(s); !ok {
				t.Errorf("operation %s names schema %q, which does not exist", op.ID, s)
			}
		}
		got, ok := v.Operation(op.ID)
		if !ok || got.Method != op.Method || got.Path != op.Path {
			t.Errorf("Operation(%q) = %+v, %v; want %+v", op.ID, got, ok, op)
		}
		if op.Status < 200 || op.Status > 299 {
			t.Errorf("operation %s: status %d is not a success status", op.ID, op.Status)
		}
		if op.Source != "spec" && op.Source != "extension" {
			t.Errorf("operation %s: source %q", op.ID, op.Source)
		}
	}
	if _, ok := v.Operation("nope.nope"); ok {
		t.Error(`Operation("nope.nope") found`)
	}
}

// TestRequestAndResourceOnEveryOperation calls Request and Resource for every
// operation: bodies without a JSON schema pass, an empty object gets a
// verdict (nil or *Error), never another error.
func TestRequestAndResourceOnEveryOperation(t *testing.T) {
	v := newValidator(t)
	for _, op := range v.Operations() {
		t.Run(op.ID, func(t *testing.T) {
			err := v.Request(op.ID, []byte(`{}`))
			var verr *validate.Error
			if err != nil && !errors.As(err, &verr) {
				t.Errorf("Request(%s, {}) = %v, want nil or *Error", op.ID, err)
			}
			if !op.HasJSONBody() && err != nil {
				t.Errorf("Request(%s) without a JSON body = %v, want nil", op.ID, err)
			}
			if op.Response != "" {
				if err := v.Resource(op.Response, []byte(`{}`)); !errors.As(err, &verr) {
					t.Errorf("Resource(%s, {}) = %v, want *Error (required fields)", op.Response, err)
				}
			}
		})
	}
}

func TestOperationsReturnsACopy(t *testing.T) {
	v := newValidator(t)
	ops := v.Operations()
	ops[0].ID = "changed"
	ops[0].Roles[0] = "changed"
	again := v.Operations()
	if again[0].ID == "changed" || again[0].Roles[0] == "changed" {
		t.Error("Operations() shares memory with the Validator")
	}
}

func TestValidateRefusals(t *testing.T) {
	v := newValidator(t)
	tests := []struct {
		name   string
		schema string
		doc    string
		want   error
	}{
		{"unknown schema", "nope", `{}`, validate.ErrUnknownSchema},
		{"not JSON", "transfer_create", `{"amount":`, validate.ErrMalformed},
		{"empty body", "transfer_create", ``, validate.ErrMalformed},
		{"trailing data", "transfer_create", `{} {}`, validate.ErrMalformed},
		{"trailing garbage", "transfer_create", `{}x`, validate.ErrMalformed},
		{"array at top level", "transfer_create", `[]`, validate.ErrMalformed},
		{"string at top level", "authorization", `"x"`, validate.ErrMalformed},
		{"null at top level", "webhook_update", `null`, validate.ErrMalformed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := v.Validate(tt.schema, []byte(tt.doc))
			if !errors.Is(err, tt.want) {
				t.Errorf("Validate(%s, %q) = %v, want %v", tt.schema, tt.doc, err, tt.want)
			}
			var verr *validate.Error
			if errors.As(err, &verr) {
				t.Errorf("Validate(%s, %q) returned *Error, want a malformed/unknown error", tt.schema, tt.doc)
			}
		})
	}
	if err := v.Request("nope", []byte(`{}`)); !errors.Is(err, validate.ErrUnknownOperation) {
		t.Errorf("Request(nope) = %v, want ErrUnknownOperation", err)
	}
	if err := v.Validate("merchant_update", []byte(" {} \n")); err != nil {
		t.Errorf("whitespace around the document: %v", err)
	}
}

// TestAmountsAreExact checks that cents are not rounded through float64.
func TestAmountsAreExact(t *testing.T) {
	v := newValidator(t)
	base := `{"source":"PI0123456789abcdefghijkl","merchant":"MU0123456789abcdefghijkl","currency":"USD","amount":%s}`
	tests := []struct {
		amount string
		valid  bool
	}{
		{"9007199254740993", true},
		{"100", true},
		{"100.0", true}, // an integer value in JSON Schema's sense
		{"100.000000000000001", false},
		{"1e2", true},
		{"-0.000000000000001", false},
	}
	for _, tt := range tests {
		err := v.Validate("transfer_create", []byte(strings.Replace(base, "%s", tt.amount, 1)))
		if (err == nil) != tt.valid {
			t.Errorf("amount %s: Validate = %v, want valid=%v", tt.amount, err, tt.valid)
		}
	}
}

func TestValidateValue(t *testing.T) {
	v := newValidator(t)
	doc := decodeUseNumber(t, []byte(`{"capture_amount": 10, "fee": 11}`))
	if err := v.ValidateValue("authorization_capture", doc); err != nil {
		t.Errorf("ValidateValue = %v, want nil (fee vs capture is a rule, not a schema check)", err)
	}
	bad := decodeUseNumber(t, []byte(`{"capture_amount": "10"}`))
	got := violationsOf(t, v.ValidateValue("authorization_capture", bad))
	if want := []expectation{{"/capture_amount", "type"}}; !slices.Equal(got, want) {
		t.Errorf("violations = %v, want %v", got, want)
	}
	if err := v.ValidateValue("authorization_capture", []any{}); !errors.Is(err, validate.ErrMalformed) {
		t.Errorf("ValidateValue(array) = %v, want ErrMalformed", err)
	}
}

func TestDefaultIsShared(t *testing.T) {
	var wg sync.WaitGroup
	got := make([]*validate.Validator, 8)
	for i := range got {
		wg.Go(func() {
			v, err := validate.Default()
			if err != nil {
				t.Error(err)
			}
			got[i] = v
		})
	}
	wg.Wait()
	for _, v := range got[1:] {
		if v != got[0] {
			t.Fatal("Default() returned different validators")
		}
	}
}

// TestConcurrentUse runs validations in parallel under -race.
func TestConcurrentUse(t *testing.T) {
	v := newValidator(t)
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			body := []byte(`{"capture_amount": -1}`)
			if i%2 == 0 {
				body = []byte(`{"capture_amount": 1}`)
			}
			err := v.Request("authorizations.capture", body)
			if (err == nil) != (i%2 == 0) {
				t.Errorf("goroutine %d: Request = %v", i, err)
			}
		})
	}
	wg.Wait()
}

func TestErrorMessage(t *testing.T) {
	err := &validate.Error{Code: validate.CodeInvalidField, Violations: []validate.Violation{
		{Pointer: "/amount", Rule: "required", Message: "amount is required"},
		{Pointer: "", Rule: "oneOf", Message: "x"},
	}}
	if got, want := err.Error(), "validate: INVALID_FIELD: /amount: amount is required; (document): x"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

// TestViolationDetails checks the shape of violations: sorted by pointer,
// one per missing or unknown property, type failures of alternatives merged.
func TestViolationDetails(t *testing.T) {
	v := newValidator(t)
	err := v.Resource("transfer", []byte(`{"source": 5, "zeta": 1, "amount": "1"}`))
	var verr *validate.Error
	if !errors.As(err, &verr) {
		t.Fatalf("Resource = %v, want *Error", err)
	}
	if verr.Code != validate.CodeInvalidField {
		t.Errorf("code = %s", verr.Code)
	}
	if !slices.IsSortedFunc(verr.Violations, func(a, b validate.Violation) int { return strings.Compare(a.Pointer, b.Pointer) }) {
		t.Errorf("violations not sorted by pointer: %v", verr.Violations)
	}
	var source []validate.Violation
	for _, viol := range verr.Violations {
		if viol.Pointer == "/source" {
			source = append(source, viol)
		}
	}
	want := []validate.Violation{{Pointer: "/source", Rule: "type", Message: "expected null or string, but got number"}}
	if !slices.Equal(source, want) {
		t.Errorf("/source violations = %v, want %v", source, want)
	}
	err = v.Validate("merchant_update", []byte(`{"a/b": 1, "c~d": 2}`))
	got := violationsOf(t, err)
	if want := []expectation{{"/a~1b", "additionalProperties"}, {"/c~0d", "additionalProperties"}}; !slices.Equal(got, want) {
		t.Errorf("escaped pointers = %v, want %v", got, want)
	}
}
