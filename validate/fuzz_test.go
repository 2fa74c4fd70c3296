package validate_test

import (
	"errors"
	"testing"

	"github.com/conform-kit/conform/validate"
)

// FuzzRequest proves Request never panics and only ever answers nil, an
// *Error, or ErrMalformed, whatever the bytes.
func FuzzRequest(f *testing.F) {
	v := newValidator(f)
	ops := v.Operations()
	seeds := []string{validSale, `{}`, `[]`, `null`, `{"amount":1e400}`, `{"additional_purchase_data":{"item_data":[{"quantity":-0}]}}`,
		`{"merchant":"x","merchant_identity":"y"}`, `{"amount":5,"fee_amount_data":{"amount":5}}`, "\xff", `{"a":1}{"b":2}`}
	for i, s := range seeds {
		f.Add(uint8(i), []byte(s))
	}
	f.Fuzz(func(t *testing.T, op uint8, body []byte) {
		id := ops[int(op)%len(ops)].ID
		err := v.Request(id, body)
		var verr *validate.Error
		if err != nil && !errors.As(err, &verr) && !errors.Is(err, validate.ErrMalformed) {
			t.Fatalf("Request(%s, %q) = %v, want nil, *Error or ErrMalformed", id, body, err)
		}
		if verr != nil && len(verr.Violations) == 0 {
			t.Fatalf("Request(%s, %q) = *Error without violations", id, body)
		}
	})
}
