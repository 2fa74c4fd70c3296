package faults

import (
	"net/http"
	"strings"
	"sync"
)

// Faults of webhooks: their creation and secrets, the deliveries' signature
// and Authorization header, and which events an endpoint receives. The
// event faults need memory across requests, which each wrapper keeps in its
// own closure (one per Handler call, so no state is shared between servers).

// Names of the scenarios that catch the webhook faults.
const (
	scenarioHookNew   = "a webhook is created enabled with its signing secret"
	scenarioHookAuth  = "a webhook with basic authentication receives events with that Authorization header and never shows its password"
	scenarioHookQuiet = "a disabled webhook receives no events"
	scenarioHookOnly  = "a webhook enabled only for authorization events receives no sale event"
)

// webhookFaults break spec §2.10, §4.9, §8 and the kit's assumed signature scheme.
func webhookFaults() []Fault {
	return []Fault{
		{
			Name: "webhook-url-over-120-accepted", Capability: "webhooks", Expect: ExpectFail, Tags: "@webhooks",
			Breaks:   "§2.10/§8 webhook url max 120 characters",
			Catchers: []string{"a webhook url of 120 characters is accepted and one of 121 is refused"},
			wrap:     rewriteRequest(shorten("url", 120), "webhooks.create"),
		},
		{
			Name: "webhook-non-http-url-accepted", Capability: "webhooks", Expect: ExpectFail, Tags: "@webhooks",
			Breaks:   "§2.10 webhook url is an HTTP or HTTPS URL",
			Catchers: []string{"a webhook url that is not an HTTP or HTTPS URL is refused (ftp://example.com/hooks)"},
			wrap: rewriteRequest(func(x *faultExchange) bool {
				rest, ok := strings.CutPrefix(stringAt(x.in, "url"), "ftp://")
				if ok {
					x.in["url"] = "https://" + rest
				}
				return ok
			}, "webhooks.create"),
		},
		{
			Name: "webhook-secret-in-list", Capability: "webhooks", Expect: ExpectFail, Tags: "@webhooks",
			Breaks:   "§2.10 secret_signing_key only in single-webhook responses (the kit: never in lists)",
			Catchers: []string{"webhooks are listed without their signing secrets"},
			wrap: rewriteResponse(func(x *faultExchange) bool {
				changed := false
				for _, it := range listItems(x.out) {
					if m, ok := it.(map[string]any); ok {
						m["secret_signing_key"], changed = strings.Repeat("5e", 32), true
					}
				}
				return changed
			}, "webhooks.list"),
		},
		{
			Name: "webhook-secret-missing-on-fetch", Capability: "webhooks", Expect: ExpectFail, Tags: "@webhooks",
			Breaks:   "§4.9 GET /webhooks/{id} includes secret_signing_key",
			Catchers: []string{"a webhook is fetched with its signing secret"},
			wrap: rewriteResponse(func(x *faultExchange) bool {
				if _, ok := x.out["secret_signing_key"]; !ok {
					return false
				}
				delete(x.out, "secret_signing_key")
				return true
			}, "webhooks.get"),
		},
		{
			Name: "webhook-created-disabled", Capability: "webhooks", Expect: ExpectFail, Tags: "@webhooks",
			Breaks:   "§2.10/§4.9 enabled defaults to true on creation",
			Catchers: []string{scenarioHookNew},
			wrap:     rewriteResponse(setFieldOnSuccess("enabled", false), "webhooks.create"),
		},
		{
			Name: "webhook-disable-ignored", Capability: "webhooks", Expect: ExpectFail, Tags: "@webhooks",
			Breaks:   "§4.9 enabled false disables a webhook",
			Catchers: []string{"a webhook is disabled"},
			wrap: rewriteRequest(func(x *faultExchange) bool {
				if x.in["enabled"] != false {
					return false
				}
				delete(x.in, "enabled")
				return true
			}, "webhooks.update"),
		},
		{
			Name: "webhook-signature-bad", Capability: "webhooks", Expect: ExpectWarn, Tags: "@files && @webhooks",
			Breaks:    "the kit's webhooks: Finix-Signature is the HMAC-SHA256 of timestamp:body (assumed)",
			Catchers:  []string{scenarioFileHook},
			transport: badSignature,
		},
		{
			Name: "webhook-authentication-not-sent", Capability: "webhooks", Expect: ExpectWarn, Tags: "@webhooks",
			Breaks:    "§4.9 authentication: settings used when sending events (the kit: BASIC/BEARER send an Authorization header; assumed)",
			Catchers:  []string{scenarioHookAuth},
			transport: stripAuthorization,
		},
		{
			Name: "webhook-auth-password-echoed", Capability: "webhooks", Expect: ExpectFail, Tags: "@webhooks",
			Breaks:   "a webhook's authentication password is a credential, never returned",
			Catchers: []string{scenarioHookAuth},
			wrap: rewriteResponse(func(x *faultExchange) bool {
				sent := objectAt(x.in, "authentication.basic")
				if !isSuccess(x.status) || sent == nil || sent["password"] == nil {
					return false
				}
				auth := objectAt(x.out, "authentication")
				if auth == nil {
					return false
				}
				auth["basic"] = sent
				return true
			}, "webhooks.create", "webhooks.update"),
		},
	}
}

// webhookEventFaults break the delivery rules of webhooks: spec §4.9 (false
// disables) and the kit's assumed enabled_events filter.
func webhookEventFaults() []Fault {
	return []Fault{
		{
			Name: "disabled-webhook-still-delivers", Capability: "webhooks", Expect: ExpectFail, Tags: "@webhooks",
			Breaks:   "§4.9 enabled false disables a webhook (it receives no events)",
			Catchers: []string{scenarioHookQuiet},
			wrap:     webhookIgnored("enabled", func(v any) bool { return v == false }),
		},
		{
			Name: "enabled-events-ignored", Capability: "webhooks", Expect: ExpectWarn, Tags: "@webhooks",
			Breaks:   "the kit's webhooks: a non-empty enabled_events filters by entity and type (assumed)",
			Catchers: []string{scenarioHookOnly},
			wrap: webhookIgnored("enabled_events", func(v any) bool {
				l, ok := v.([]any)
				return ok && len(l) > 0
			}),
		},
	}
}

// stripAuthorization removes the Authorization header of every delivery.
func stripAuthorization(base http.RoundTripper) http.RoundTripper {
	return &faultTransport{base: base, fn: func(base http.RoundTripper, req *http.Request) (*http.Response, error) {
		if req.Header.Get("Authorization") != "" {
			req = req.Clone(req.Context())
			req.Header.Del("Authorization")
		}
		return base.RoundTrip(req)
	}}
}

// badSignature flips the last hex digit of every delivery's signature.
func badSignature(base http.RoundTripper) http.RoundTripper {
	return &faultTransport{base: base, fn: func(base http.RoundTripper, req *http.Request) (*http.Response, error) {
		if sig := req.Header.Get("Finix-Signature"); sig != "" {
			last := sig[len(sig)-1]
			flipped := byte('0')
			if last == '0' {
				flipped = '1'
			}
			req = req.Clone(req.Context())
			req.Header.Set("Finix-Signature", sig[:len(sig)-1]+string(flipped))
		}
		return base.RoundTrip(req)
	}}
}

// webhookIgnored makes the server ignore one webhook field while showing it
// as set: a value ignore accepts is taken out of create and update bodies,
// remembered per webhook and shown again in every representation of that
// webhook (create, update, fetch, list), so only its effect is lost.
func webhookIgnored(field string, ignore func(v any) bool) func(http.Handler, faultDeps) http.Handler {
	return func(next http.Handler, _ faultDeps) http.Handler {
		var mu sync.Mutex
		shown := map[string]any{} // webhook id → value shown
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !matchAny(r, "webhooks.create", "webhooks.update", "webhooks.get", "webhooks.list") {
				next.ServeHTTP(w, r)
				return
			}
			hidden, hide, sent := webhookHide(r, field, ignore)
			if params, ok := faultRoute(r, "webhooks.update"); ok && sent && !hidden {
				mu.Lock()
				delete(shown, params["id"])
				mu.Unlock()
			}
			rec := newFaultRecorder()
			next.ServeHTTP(rec, r)
			out := decodeFaultJSON(rec.body.Bytes())
			if out == nil || !isSuccess(rec.status) {
				rec.flush(w, rec.body.Bytes())
				return
			}
			mu.Lock()
			if id := stringAt(out, "id"); hidden && id != "" {
				shown[id] = hide
			}
			for _, d := range append([]any{out}, listItems(out)...) {
				if m, ok := d.(map[string]any); ok {
					if v, ok := shown[stringAt(m, "id")]; ok {
						m[field] = v
					}
				}
			}
			mu.Unlock()
			writeFaultJSONHeader(w, rec, out)
		})
	}
}

// webhookHide takes field out of a webhook create or update body when ignore
// accepts its value, and returns that value; sent reports the field was in
// the body at all.
func webhookHide(r *http.Request, field string, ignore func(v any) bool) (hidden bool, value any, sent bool) {
	if !matchAny(r, "webhooks.create", "webhooks.update") {
		return false, nil, false
	}
	in := peekJSON(r)
	v, ok := in[field]
	if !ok || !ignore(v) {
		return false, nil, ok
	}
	delete(in, field)
	replaceBody(r, in)
	return true, v, true
}
