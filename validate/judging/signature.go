package judging

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
)

// The reference's webhook signature (profile key signature_scheme, value
// timestamp_hmac_sha256; the header is signature_header): the value
// "timestamp=<unix>, sig=<hex HMAC-SHA256(secret, "<timestamp>:<body>")>".
// The reference signs with it, the suite verifies with it.

// SignatureValue is the signature header value of a delivery of body at
// timestamp (Unix seconds, decimal) under secret.
func SignatureValue(secret, timestamp string, body []byte) string {
	return "timestamp=" + timestamp + ", sig=" + signatureHex(secret, timestamp, body)
}

// ParseSignature reads the timestamp and sig of a signature header value;
// either is "" when the value lacks it.
func ParseSignature(value string) (timestamp, sig string) {
	for _, part := range strings.Split(value, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(part), "=")
		switch k {
		case "timestamp":
			timestamp = v
		case "sig":
			sig = v
		}
	}
	return timestamp, sig
}

// Errors of VerifySignature.
var (
	ErrSignatureIncomplete = errors.New("the signature lacks timestamp or sig")
	ErrSignatureMismatch   = errors.New("the sig does not match HMAC-SHA256 of the body with the secret")
)

// VerifySignature checks a signature header value against body and secret
// (the sig's hex in either case).
func VerifySignature(value, secret string, body []byte) error {
	ts, sig := ParseSignature(value)
	if ts == "" || sig == "" {
		return ErrSignatureIncomplete
	}
	if !hmac.Equal([]byte(strings.ToLower(sig)), []byte(signatureHex(secret, ts, body))) {
		return ErrSignatureMismatch
	}
	return nil
}

func signatureHex(secret, timestamp string, body []byte) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(timestamp + ":"))
	mac.Write(body)
	return hex.EncodeToString(mac.Sum(nil))
}
