package validate_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/conform-kit/conform/validate"
)

// TestDecodeRequestHandsBackTheTree checks that DecodeRequest gives the same
// verdict as Request and, for a valid body, the tree json.Decoder with
// UseNumber builds from it.
func TestDecodeRequestHandsBackTheTree(t *testing.T) {
	v := newValidator(t)
	cases := []struct {
		name, op, body string
		wantDoc        bool
		wantMalformed  bool
		wantViolations bool
	}{
		{"valid sale", "transfers.create", `{"source":"PIabc","merchant":"MUabc","amount":1000,"currency":"USD","tags":{"a":"b"}}`, true, false, false},
		{"valid sale, exponent amount", "transfers.create", `{"source":"PIabc","merchant":"MUabc","amount":1e3,"currency":"USD"}`, true, false, false},
		{"escaped strings", "transfers.create", `{"source":"PI\u0061bc","merchant":"MUabc","amount":1,"currency":"USD","tags":{"k\"":"\u00e9"}}`, true, false, false},
		{"violations", "transfers.create", `{"amount":"ten"}`, false, false, true},
		{"not JSON", "transfers.create", `{"amount":`, false, true, false},
		{"trailing data", "transfers.create", `{} {}`, false, true, false},
		{"not an object", "transfers.create", `[1]`, false, true, false},
		{"no JSON body", "transfers.get", `anything`, false, false, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			doc, err := v.DecodeRequest(c.op, []byte(c.body))
			if reqErr := v.Request(c.op, []byte(c.body)); (reqErr == nil) != (err == nil) {
				t.Fatalf("DecodeRequest error %v, Request error %v: verdicts differ", err, reqErr)
			}
			if got := errors.Is(err, validate.ErrMalformed); got != c.wantMalformed {
				t.Errorf("errors.Is(%v, ErrMalformed) = %v, want %v", err, got, c.wantMalformed)
			}
			var verr *validate.Error
			if got := errors.As(err, &verr) && !c.wantMalformed; got != c.wantViolations {
				t.Errorf("error %v is a *validate.Error: %v, want %v", err, got, c.wantViolations)
			}
			if !c.wantDoc {
				if doc != nil {
					t.Errorf("doc = %v, want nil", doc)
				}
				return
			}
			if err != nil {
				t.Fatalf("DecodeRequest = %v, want nil", err)
			}
			dec := json.NewDecoder(bytes.NewReader([]byte(c.body)))
			dec.UseNumber()
			var want any
			if err := dec.Decode(&want); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(doc, want) {
				t.Errorf("doc = %#v, want %#v", doc, want)
			}
		})
	}
	if _, err := v.DecodeRequest("nope.create", []byte(`{}`)); !errors.Is(err, validate.ErrUnknownOperation) {
		t.Errorf("unknown operation: %v, want ErrUnknownOperation", err)
	}
}
