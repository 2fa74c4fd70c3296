package faults

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"regexp"
	"sync"

	"github.com/conform-kit/conform/validate/judging"
)

// Variants whose choice is how webhook deliveries look: the event layout,
// which events are sent, the form of the signing secret and the header the
// signature travels in. The resigner here signs a delivery a variant
// changed again, for any variant that rewrites deliveries.

// eventVariants deliver other events, layouts, secrets and signature headers.
func eventVariants() []Variant {
	return []Variant{
		{
			Name: "event-layout-and-signature", Tags: "@files,@webhooks", Choice: `delivers {"event": "<entity>.<type>", "data": resource} signed with another scheme`,
			Profile: `{"event_layout": "fields", "event_fields": {"type": "/event", "type_form": "{entity}.{type}", "entity": "", "resource": "/data"}, "signature_scheme": "unchecked"}`,
			build:   func() variantParts { return variantParts{transport: otherEventLayout} },
		},
		{
			Name: "no-created-events", Tags: "@webhooks", Choice: "sends only the spec's file alerts: no created event for sales and authorizations",
			Profile: `{"resource_events": "unchecked"}`,
			build:   func() variantParts { return variantParts{transport: dropCreatedEvents} },
		},
		{
			Name: "signing-key-whsec", Tags: "@webhooks", Choice: `webhook secrets of the form "whsec_" and 43 base64url characters`,
			Profile: `{"signing_key_form": "whsec_[A-Za-z0-9_-]{43}"}`,
			build:   whsecSecrets,
		},
		{
			Name: "signature-header-renamed", Tags: "@files,@webhooks", Choice: "signs deliveries in the same scheme under X-Payments-Signature",
			Profile: `{"signature_header": "X-Payments-Signature"}`,
			build:   func() variantParts { return variantParts{transport: renamedSignature} },
		},
	}
}

// otherEventLayout re-delivers each event as {"event": "<entity>.<type>",
// "data": resource} with an X-Signature header of another scheme.
func otherEventLayout(base http.RoundTripper) http.RoundTripper {
	return rewriteDelivery(base, func(req *http.Request, body []byte) ([]byte, error) {
		ev := decodeFaultJSON(body)
		entity, _ := ev["entity"].(string)
		typ, _ := ev["type"].(string)
		var data any
		if items := listItems(ev); len(items) > 0 {
			data = items[0]
		}
		out, err := json.Marshal(map[string]any{"event": entity + "." + typ, "data": data})
		if err != nil {
			return nil, err
		}
		sum := sha256.Sum256(out)
		req.Header.Del("Finix-Signature")
		req.Header.Set("X-Signature", "v2="+hex.EncodeToString(sum[:]))
		return out, nil
	})
}

// dropCreatedEvents answers the reference's deliveries of created events of
// transfers and authorizations itself (204) without sending them.
func dropCreatedEvents(base http.RoundTripper) http.RoundTripper {
	return &faultTransport{base: base, fn: func(base http.RoundTripper, req *http.Request) (*http.Response, error) {
		body, err := deliveryBody(req)
		if err != nil {
			return nil, err
		}
		ev := decodeFaultJSON(body)
		entity, _ := ev["entity"].(string)
		if ev["type"] == "created" && (entity == "transfer" || entity == "authorization") {
			return answeredDelivery(req, http.StatusNoContent), nil
		}
		return base.RoundTrip(req)
	}}
}

// hexSecret matches the reference's secret_signing_key in a JSON body.
var hexSecret = regexp.MustCompile(`("secret_signing_key"\s*:\s*")([0-9a-f]{64})"`)

// secretSet is the webhook secrets a variant has seen in answers. Its lock
// guards only the map: signature checks run on a copy, outside it. A
// delivery checks its signature against every secret seen, and the secrets
// grow with every webhook made; with the lock held across those checks,
// thousands of deliveries queued behind it and an answer that showed a
// secret (PATCH /webhooks) waited for all of them, past the client's
// timeout.
type secretSet struct {
	mu   sync.Mutex
	seen map[string]struct{}
	list []string // seen, in the order first seen: the copy checks read
}

// add remembers secret.
func (ss *secretSet) add(secret string) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if _, ok := ss.seen[secret]; ok {
		return
	}
	if ss.seen == nil {
		ss.seen = map[string]struct{}{}
	}
	ss.seen[secret] = struct{}{}
	ss.list = append(ss.list, secret)
}

// signer is the secret seen whose signature signed carries for body, or
// false. It reads a snapshot of the secrets: add only appends, so the
// prefix it copies never changes.
func (ss *secretSet) signer(signed string, body []byte) (string, bool) {
	ss.mu.Lock()
	secrets := ss.list[:len(ss.list):len(ss.list)]
	ss.mu.Unlock()
	for _, secret := range secrets {
		if judging.VerifySignature(signed, secret, body) == nil {
			return secret, true
		}
	}
	return "", false
}

// whsecForm is the secret shown for a reference secret: "whsec_" and the
// base64url of its bytes (orig itself when it is not hex).
func whsecForm(orig string) string {
	raw, err := hex.DecodeString(orig)
	if err != nil {
		return orig
	}
	return "whsec_" + base64.RawURLEncoding.EncodeToString(raw)
}

// whsecSecrets shows each webhook secret as "whsec_" and the base64url of
// its bytes, and signs each delivery again with the secret shown: the
// original secret is the one whose signature the delivery carries.
func whsecSecrets() variantParts {
	var seen secretSet
	return variantParts{
		wrap: func(next http.Handler, _ faultDeps) http.Handler {
			return onJSON(next, func(_ *http.Request, _ *faultRecorder, body []byte) []byte {
				return hexSecret.ReplaceAllFunc(body, func(m []byte) []byte {
					sub := hexSecret.FindSubmatch(m)
					seen.add(string(sub[2]))
					return []byte(string(sub[1]) + whsecForm(string(sub[2])) + `"`)
				})
			})
		},
		transport: func(base http.RoundTripper) http.RoundTripper {
			return rewriteDelivery(base, func(req *http.Request, body []byte) ([]byte, error) {
				signed := req.Header.Get("Finix-Signature")
				if orig, ok := seen.signer(signed, body); ok {
					ts, _ := judging.ParseSignature(signed)
					req.Header.Set("Finix-Signature", judging.SignatureValue(whsecForm(orig), ts, body))
				}
				return body, nil
			})
		},
	}
}

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

// resigner signs a delivery whose body a variant changed again, with the
// webhook secret that signed the original: the secrets are read from the
// responses.
type resigner struct {
	secrets secretSet
}

// note remembers the webhook secrets in a JSON response body.
func (rs *resigner) note(body []byte) {
	for _, m := range hexSecret.FindAllSubmatch(body, -1) {
		rs.secrets.add(string(m[2]))
	}
}

// resign signs out with the secret whose signature req carries for in.
func (rs *resigner) resign(req *http.Request, in, out []byte) {
	signed := req.Header.Get("Finix-Signature")
	if secret, ok := rs.secrets.signer(signed, in); ok {
		ts, _ := judging.ParseSignature(signed)
		req.Header.Set("Finix-Signature", judging.SignatureValue(secret, ts, out))
	}
}
