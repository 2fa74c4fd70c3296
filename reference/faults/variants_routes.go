package faults

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/conform-kit/conform/validate"
)

// Variants whose choice is which requests a server takes: the method of a
// route, the operations beyond the spec's (extensions), the roles allowed an
// operation and the largest list page.

// routeVariants offer other routes, roles and list limits.
func routeVariants() []Variant {
	return []Variant{
		{
			Name: "list-max-50-clamped", Tags: "@lists", Choice: "lists hold at most 50 items and clamp a larger limit",
			Profile: `{"list_max_limit": 50, "list_over_max": "clamp"}`,
			build:   parts(wrapOnly(clampLimit(50))),
		},
		{
			Name: "merchant-role-no-charges", Tags: "@authentication", Choice: "the merchant role may not create cards or sales",
			Profile: `{"operation_roles": {"payment_instruments.create": ["ROLE_PLATFORM"], "transfers.create": ["ROLE_PLATFORM"]}}`,
			build:   parts(merchantNoCharges),
		},
		{
			Name: "webhook-update-patch", Tags: "@webhooks", Choice: "updates a webhook with PATCH /webhooks/{id}; PUT there is 405",
			Profile: `{"webhook_routes": {"webhooks.update": "PATCH /webhooks/{id}"}}`,
			build:   parts(wrapOnly(webhookUpdateByPatch)),
		},
		{
			Name: "files-post-only", Tags: "@files", Choice: "files are fetched and downloaded only with POST, the method §4.8 names; GET there is 405",
			Profile: `{"also_methods": {"files.get": [], "files.download": []}}`,
			build:   parts(wrapOnly(filesPostOnly)),
		},
		{
			Name: "no-extensions", Tags: "@balance_transfers,@subscriptions",
			Choice:  "only the operations the spec names: the 9 extensions answer as unknown routes (404, or 405 where the path has a spec operation)",
			Profile: `{"extensions": []}`,
			build:   parts(wrapOnly(withoutExtensions)),
		},
	}
}

// clampLimit clamps every list's limit to max.
func clampLimit(max int) func(http.Handler, faultDeps) http.Handler {
	return func(next http.Handler, _ faultDeps) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			q := r.URL.Query()
			if n, err := strconv.Atoi(q.Get("limit")); err == nil && n > max && r.Method == http.MethodGet {
				q.Set("limit", strconv.Itoa(max))
				r.URL.RawQuery = q.Encode()
			}
			next.ServeHTTP(w, r)
		})
	}
}

// merchantNoCharges refuses card and sale creates by the merchant user (403).
func merchantNoCharges() func(http.Handler, faultDeps) http.Handler {
	return func(next http.Handler, d faultDeps) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			user, _, _ := r.BasicAuth()
			if user == d.fx.Credentials.Merchant.Username && matchAny(r, "payment_instruments.create", "transfers.create") {
				writeFaultJSON(w, http.StatusForbidden, errorEnvelope(r, "FORBIDDEN", "Access is denied"))
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

// webhookUpdateByPatch serves the webhook update as PATCH and answers PUT
// on a webhook with 405 (Allow: GET, PATCH).
func webhookUpdateByPatch(next http.Handler, _ faultDeps) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case matchAny(r, "webhooks.update"):
			w.Header().Set("Allow", "GET, PATCH")
			writeFaultJSON(w, http.StatusMethodNotAllowed, errorEnvelope(r, "METHOD_NOT_ALLOWED", "Use PATCH to update a webhook"))
			return
		case r.Method == http.MethodPatch && strings.HasPrefix(r.URL.Path, "/webhooks/"):
			r.Method = http.MethodPut
		}
		next.ServeHTTP(w, r)
	})
}

// filesPostOnly answers a GET of a file or of its download 405 with Allow
// POST, as a server that takes only the method §4.8 names.
func filesPostOnly(next http.Handler, _ faultDeps) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && matchAny(r, "files.get", "files.download") {
			w.Header().Set("Allow", "POST")
			writeFaultJSON(w, http.StatusMethodNotAllowed, errorEnvelope(r, "METHOD_NOT_ALLOWED", "Use POST"))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// withoutExtensions answers every operation the spec does not name as the
// reference answers a route it does not know: 405 with Allow on a path that
// has operations the spec names, else 404, in the error envelope.
func withoutExtensions(next http.Handler, _ faultDeps) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v, err := validate.Default()
		if err != nil {
			next.ServeHTTP(w, r)
			return
		}
		op, _, err := v.Lookup(r.Method, r.URL.Path)
		if err != nil || op.Assumed != "extensions" {
			next.ServeHTTP(w, r)
			return
		}
		var allow []string
		for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
			if other, _, err := v.Lookup(m, r.URL.Path); err == nil && other.Assumed != "extensions" {
				allow = append(allow, m)
			}
		}
		if len(allow) == 0 {
			writeFaultJSON(w, http.StatusNotFound, errorEnvelope(r, "NOT_FOUND", r.URL.Path+" was not found"))
			return
		}
		w.Header().Set("Allow", strings.Join(allow, ", "))
		writeFaultJSON(w, http.StatusMethodNotAllowed, errorEnvelope(r, "METHOD_NOT_ALLOWED", r.Method+" is not allowed on "+r.URL.Path))
	})
}
