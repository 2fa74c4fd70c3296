package faults

import (
	"net/http"
)

// renamedSignatureHeader is the header renamedSignature signs under.
const renamedSignatureHeader = "X-Payments-Signature"

// renamedSignature moves each delivery's Finix-Signature, unchanged, to
// X-Payments-Signature: the same scheme under another header name.
func renamedSignature(base http.RoundTripper) http.RoundTripper {
	return &faultTransport{base: base, fn: func(base http.RoundTripper, req *http.Request) (*http.Response, error) {
		if sig := req.Header.Get("Finix-Signature"); sig != "" {
			req.Header.Del("Finix-Signature")
			req.Header.Set(renamedSignatureHeader, sig)
		}
		return base.RoundTrip(req)
	}}
}
