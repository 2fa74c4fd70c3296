package validate

import (
	"errors"
	"strings"
	"testing"
)

func TestOversizedNumber(t *testing.T) {
	tests := []struct {
		number string
		want   bool
	}{
		{"1000", false},
		{"-9223372036854775808", false},
		{"1e999", false},
		{"1E+999", false},
		{"1e-0001", false},
		{"1e1000", true},
		{"1e-99999", true},
		{"1" + strings.Repeat("0", maxNumberChars), true},
	}
	for _, tc := range tests {
		if got := oversizedNumber(tc.number); got != tc.want {
			t.Errorf("oversizedNumber(%.20s) = %v, want %v", tc.number, got, tc.want)
		}
	}
}

// TestHugeNumbersAreRefusedNotValidated: numbers the schema library cannot
// afford (or crashes on) are refused at their pointer before it sees them.
func TestHugeNumbersAreRefusedNotValidated(t *testing.T) {
	v, err := New()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, body, pointer string
	}{
		{"exponent the schema library crashes on", `{"amount":1e999999999}`, "/amount"},
		{"exponent that costs a second", `{"amount":1e999999}`, "/amount"},
		{"half a million digits", `{"amount":1` + strings.Repeat("0", 500000) + `}`, "/amount"},
		{"nested, escaped key", `{"tags":{"a/b":1},"additional_purchase_data":{"item_data":[{"quantity":1e-99999}]}}`, "/additional_purchase_data/item_data/0/quantity"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := v.Request("transfers.create", []byte(tc.body))
			var verr *Error
			if !errors.As(err, &verr) {
				t.Fatalf("Request(transfers.create, %.40s…) = %v, want *Error", tc.body, err)
			}
			if len(verr.Violations) != 1 || verr.Violations[0].Pointer != tc.pointer || verr.Violations[0].Rule != RuleNumberSize {
				t.Errorf("violations = %+v, want one %s at %s", verr.Violations, RuleNumberSize, tc.pointer)
			}
		})
	}
}

// TestAmountsBeyondInt64AreRefused: cents are integers a 64-bit service can hold.
func TestAmountsBeyondInt64AreRefused(t *testing.T) {
	v, err := New()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		amount string
		ok     bool
	}{
		{"9223372036854775807", true},
		{"9223372036854775808", false},
		{"99999999999999999999999", false},
	} {
		body := `{"source":"PIe2YvpcjvoVJ6PzoRPBK137","merchant":"MUeDVrf2ahuKc9Eg5TeZugvs","currency":"USD","amount":` + tc.amount + `}`
		err := v.Request("transfers.create", []byte(body))
		if (err == nil) != tc.ok {
			t.Errorf("amount %s: Request = %v, want ok=%v", tc.amount, err, tc.ok)
		}
	}
}
