package judging_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/conform-kit/conform/validate/judging"
)

// TestSignature pins the reference's delivery signature to an HMAC-SHA256
// computed outside Go, and checks what VerifySignature accepts and refuses.
func TestSignature(t *testing.T) {
	const secret, ts = "whsecret", "1700000000"
	body := []byte(`{"id":"FI1"}`)
	value := judging.SignatureValue(secret, ts, body)
	if want := "timestamp=1700000000, sig=3961076956fa03e20c9563e70a26b19c06081fffef82456d6cf9009c32c1668c"; value != want {
		t.Fatalf("SignatureValue = %q, want %q", value, want)
	}
	if gotTS, gotSig := judging.ParseSignature(value); gotTS != ts || len(gotSig) != 64 {
		t.Errorf("ParseSignature(%q) = %q, %q", value, gotTS, gotSig)
	}
	for _, tt := range []struct {
		name, value, secret string
		body                string
		want                error
	}{
		{"as signed", value, secret, string(body), nil},
		{"keys in upper case", strings.ToUpper(value[:len("timestamp=1700000000, ")]) + strings.ToUpper(value[len("timestamp=1700000000, sig="):]), secret, string(body), judging.ErrSignatureIncomplete},
		{"hex in upper case", "timestamp=1700000000, sig=" + strings.ToUpper(value[len("timestamp=1700000000, sig="):]), secret, string(body), nil},
		{"another body", value, secret, `{"id":"FI2"}`, judging.ErrSignatureMismatch},
		{"another secret", value, "other", string(body), judging.ErrSignatureMismatch},
		{"another timestamp", strings.Replace(value, "1700000000", "1700000001", 1), secret, string(body), judging.ErrSignatureMismatch},
		{"no sig", "timestamp=1700000000", secret, string(body), judging.ErrSignatureIncomplete},
		{"empty", "", secret, string(body), judging.ErrSignatureIncomplete},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if err := judging.VerifySignature(tt.value, tt.secret, []byte(tt.body)); !errors.Is(err, tt.want) || (tt.want == nil) != (err == nil) {
				t.Errorf("VerifySignature(%q) = %v, want %v", tt.value, err, tt.want)
			}
		})
	}
}
