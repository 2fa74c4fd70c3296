package faults

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"maps"
	"net/http"
	"regexp"
	"slices"
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
			Profile: `{"event_layout": "unchecked", "signature_scheme": "unchecked"}`,
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

// whsecSecrets shows each webhook secret as "whsec_" and the base64url of
// its bytes, and signs each delivery again with the secret shown: the
// original secret is the one whose signature the delivery carries.
func whsecSecrets() variantParts {
	var mu sync.Mutex
	shown := map[string]string{}   // reference secret → secret shown
	byURL := map[string][]string{} // webhook url → its reference secrets seen
	reform := func(orig string) string {
		raw, err := hex.DecodeString(orig)
		if err != nil {
			return orig
		}
		out := "whsec_" + base64.RawURLEncoding.EncodeToString(raw)
		mu.Lock()
		shown[orig] = out
		mu.Unlock()
		return out
	}
	return variantParts{
		wrap: func(next http.Handler, _ faultDeps) http.Handler {
			return onJSON(next, func(_ *http.Request, _ *faultRecorder, body []byte) []byte {
				if !hexSecret.Match(body) {
					return body
				}
				if doc := decodeFaultJSON(body); doc != nil {
					eachResource(doc, func(m map[string]any) {
						u, sec := stringAt(m, "url"), stringAt(m, "secret_signing_key")
						if u != "" && sec != "" {
							mu.Lock()
							if !slices.Contains(byURL[u], sec) {
								byURL[u] = append(byURL[u], sec)
							}
							mu.Unlock()
						}
					})
				}
				return hexSecret.ReplaceAllFunc(body, func(m []byte) []byte {
					sub := hexSecret.FindSubmatch(m)
					return []byte(string(sub[1]) + reform(string(sub[2])) + `"`)
				})
			})
		},
		transport: func(base http.RoundTripper) http.RoundTripper {
			return rewriteDelivery(base, func(req *http.Request, body []byte) ([]byte, error) {
				signed := req.Header.Get("Finix-Signature")
				ts, _ := judging.ParseSignature(signed)
				// The secrets of webhooks at this url first (a delivery's
				// own), then every secret: verified outside the lock, so
				// deliveries do not queue behind each other.
				mu.Lock()
				candidates := slices.Clone(byURL[req.URL.String()])
				mu.Unlock()
				for _, all := range []bool{false, true} {
					if all {
						mu.Lock()
						candidates = slices.Collect(maps.Keys(shown))
						mu.Unlock()
					}
					for _, orig := range candidates {
						if judging.VerifySignature(signed, orig, body) == nil {
							mu.Lock()
							out := shown[orig]
							mu.Unlock()
							req.Header.Set("Finix-Signature", judging.SignatureValue(out, ts, body))
							return body, nil
						}
					}
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
	mu      sync.Mutex
	secrets map[string]bool
}

// note remembers the webhook secrets in a JSON response body.
func (rs *resigner) note(body []byte) {
	for _, m := range hexSecret.FindAllSubmatch(body, -1) {
		rs.mu.Lock()
		if rs.secrets == nil {
			rs.secrets = map[string]bool{}
		}
		rs.secrets[string(m[2])] = true
		rs.mu.Unlock()
	}
}

// resign signs out with the secret whose signature req carries for in.
func (rs *resigner) resign(req *http.Request, in, out []byte) {
	signed := req.Header.Get("Finix-Signature")
	ts, _ := judging.ParseSignature(signed)
	rs.mu.Lock()
	defer rs.mu.Unlock()
	for secret := range rs.secrets {
		if judging.VerifySignature(signed, secret, in) == nil {
			req.Header.Set("Finix-Signature", judging.SignatureValue(secret, ts, out))
			return
		}
	}
}
