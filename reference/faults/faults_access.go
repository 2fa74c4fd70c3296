package faults

import (
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/conform-kit/conform/validate"
)

// authFaults break spec §5 (authentication, roles) and the kit's assumed tenancy.
func authFaults() []Fault {
	return []Fault{
		{
			Name: "unauthenticated-accepted-on-one-operation", Capability: "auth", Expect: ExpectFail, Tags: "@authentication",
			Breaks:   "§5.1/§5.4 every request carries credentials; missing ones are refused (here: GET /webhooks)",
			Catchers: []string{"webhooks.list refuses a request without credentials and one with a wrong password"},
			wrap: rewriteHeaders(func(r *http.Request, d faultDeps) {
				if r.Header.Get("Authorization") == "" {
					r.SetBasicAuth(d.fx.Credentials.Platform.Username, d.fx.Credentials.Platform.Password)
				}
			}, "webhooks.list"),
		},
		{
			Name: "wrong-password-accepted-on-one-operation", Capability: "auth", Expect: ExpectFail, Tags: "@authentication",
			Breaks:   "§5.4 invalid credentials are refused (here: GET /disputes)",
			Catchers: []string{"disputes.list refuses a request without credentials and one with a wrong password"},
			wrap: rewriteHeaders(func(r *http.Request, d faultDeps) {
				p := d.fx.Credentials.Platform
				if u, pw, ok := r.BasicAuth(); ok && u == p.Username && pw != p.Password {
					r.SetBasicAuth(p.Username, p.Password)
				}
			}, "disputes.list"),
		},
		{
			Name: "unauthenticated-answered-403", Capability: "auth", Expect: ExpectWarn, Tags: "@authentication",
			Breaks:   "the kit's errors: missing or invalid credentials are 401 (assumed)",
			Catchers: []string{"webhooks.list refuses a request without credentials and one with a wrong password"},
			wrap: rewriteResponse(func(x *faultExchange) bool {
				if x.status != http.StatusUnauthorized {
					return false
				}
				x.status = http.StatusForbidden
				return true
			}),
		},
		{
			Name: "merchant-user-can-update-merchant", Capability: "auth", Expect: ExpectFail, Tags: "@merchants",
			Breaks: "§4.4/§5.3 only ROLE_PLATFORM may update a merchant's flags",
			Catchers: []string{
				"a merchant user may not update merchant flags and the flag is unchanged",
				"a merchant user may not enable merchant flags either",
			},
			wrap: rewriteHeaders(func(r *http.Request, d faultDeps) {
				c := d.fx.Credentials
				if u, pw, ok := r.BasicAuth(); ok && u == c.Merchant.Username && pw == c.Merchant.Password {
					r.SetBasicAuth(c.Platform.Username, c.Platform.Password)
				}
			}, "merchants.update"),
		},
		{
			Name: "other-application-visible", Capability: "auth", Expect: ExpectFail, Tags: "@authentication",
			Breaks:   "the kit's tenancy: another application's resources are not found",
			Catchers: []string{"a user of another application cannot see my card (payment_instruments.get)"},
			wrap: func(next http.Handler, d faultDeps) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					c := d.fx.Credentials
					if u, pw, ok := r.BasicAuth(); ok && r.Method == http.MethodGet &&
						u == c.OtherApplication.Username && pw == c.OtherApplication.Password {
						r.SetBasicAuth(c.Platform.Username, c.Platform.Password)
					}
					next.ServeHTTP(w, r)
				})
			},
		},
	}
}

// merchantFaults break spec §2.4 and §4.4.
func merchantFaults() []Fault {
	const fetched = "a merchant is fetched with its processor api key masked"
	return []Fault{
		{
			Name: "api-key-in-clear", Capability: "merchants", Expect: ExpectFail, Tags: "@merchants",
			Breaks:   "§2.4 processor_details.api_key is returned as <API_KEY>",
			Catchers: []string{fetched, "the platform user updates a merchant's Level 2/3 flag"},
			wrap: rewriteResponse(func(x *faultExchange) bool {
				pd := objectAt(x.out, "processor_details")
				if pd == nil {
					return false
				}
				pd["api_key"] = "sk_live_4eC39HqLyjWDarjtT1zdp7dc"
				return true
			}, "merchants.get", "merchants.update"),
		},
		{
			Name: "merchant-self-link-relative", Capability: "merchants", Expect: ExpectFail, Tags: "@merchants",
			Breaks:   "§1 each link href holds an absolute URL",
			Catchers: []string{fetched},
			wrap: rewriteResponse(func(x *faultExchange) bool {
				self := objectAt(x.out, "_links.self")
				href, _ := self["href"].(string)
				if _, path, ok := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(href, "http://"), "https://"), "/"); ok {
					self["href"] = "/" + path
					return true
				}
				return false
			}, "merchants.get"),
		},
	}
}

// errorFaults break the §7 error envelope and the kit's assumed error decisions.
func errorFaults() []Fault {
	const item = "an error item carries its code, logref, message and links"
	return []Fault{
		{
			Name: "error-envelope-missing-total", Capability: "errors", Expect: ExpectFail, Tags: "@errors",
			Breaks:   "§7 the error body carries total",
			Catchers: []string{item},
			wrap:     rewriteResponse(deleteOnError("total")),
		},
		{
			Name: "error-envelope-missing-embedded", Capability: "errors", Expect: ExpectFail, Tags: "@errors",
			Breaks:   "§7 the error body carries _embedded.errors",
			Catchers: []string{item},
			wrap:     rewriteResponse(deleteOnError("_embedded")),
		},
		{
			Name: "error-logref-not-object", Capability: "errors", Expect: ExpectFail, Tags: "@errors",
			Breaks:   "§7 logref is an object with a logref string",
			Catchers: []string{item},
			wrap: rewriteResponse(editErrorItems(func(it map[string]any) {
				if lr, ok := it["logref"].(map[string]any); ok {
					it["logref"] = lr["logref"]
				}
			})),
		},
		{
			Name: "error-source-link-missing", Capability: "errors", Expect: ExpectFail, Tags: "@errors",
			Breaks:   "§7 each error carries _links.source",
			Catchers: []string{item},
			wrap: rewriteResponse(editErrorItems(func(it map[string]any) {
				if links, ok := it["_links"].(map[string]any); ok {
					delete(links, "source")
				}
			})),
		},
		{
			Name: "error-total-miscounted", Capability: "errors", Expect: ExpectWarn, Tags: "@errors",
			Breaks:   "the kit's errors: total is the number of errors (assumed)",
			Catchers: []string{item},
			wrap: rewriteResponse(func(x *faultExchange) bool {
				n, ok := numberOf(x.out["total"])
				if x.status < 400 || !ok {
					return false
				}
				x.out["total"] = n + 1
				return true
			}),
		},
		{
			Name: "validation-reports-first-only", Capability: "errors", Expect: ExpectWarn, Tags: "@errors",
			Breaks:   "the kit's errors: every violation is reported, one item each (assumed)",
			Catchers: []string{"every violation of a request is reported, one error item each"},
			wrap: rewriteResponse(func(x *faultExchange) bool {
				emb := objectAt(x.out, "_embedded")
				items, _ := emb["errors"].([]any)
				if x.status != http.StatusUnprocessableEntity || len(items) < 2 {
					return false
				}
				emb["errors"], x.out["total"] = items[:1], 1
				return true
			}),
		},
		{
			Name: "method-not-allowed-answered-404", Capability: "errors", Expect: ExpectWarn, Tags: "@errors",
			Breaks:   "the kit's errors: a known path with another method is 405 (assumed)",
			Catchers: []string{"a known path with an unsupported method is refused as method not allowed"},
			wrap: rewriteResponse(func(x *faultExchange) bool {
				if x.status != http.StatusMethodNotAllowed {
					return false
				}
				x.status = http.StatusNotFound
				return true
			}),
		},
	}
}

// contentFaults break spec §1 (media types) and the kit's assumed content negotiation.
func contentFaults() []Fault {
	return []Fault{
		{
			// Ignoring such an Accept is a server's choice (variant
			// accept-ignored); refusing it outside the envelope is not.
			Name: "not-acceptable-without-envelope", Capability: "content", Expect: ExpectFail, Tags: "@errors",
			Breaks:   "§7 a refusal of an Accept naming no JSON type carries the error envelope",
			Catchers: []string{"a request that accepts no JSON media type is refused as not acceptable, or Accept is ignored"},
			wrap: func(next http.Handler, _ faultDeps) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if a := r.Header.Get("Accept"); a != "" && !strings.Contains(a, "json") && !strings.Contains(a, "*/*") {
						w.Header().Set("Content-Type", "text/plain")
						w.WriteHeader(http.StatusNotAcceptable)
						_, _ = io.WriteString(w, "Not Acceptable")
						return
					}
					next.ServeHTTP(w, r)
				})
			},
		},
		{
			Name: "unsupported-content-type-accepted", Capability: "content", Expect: ExpectFail, Tags: "@errors",
			Breaks:   "§1/§7 bodies use a JSON media type; others are Not Acceptable",
			Catchers: []string{"a body of an unsupported media type is refused as not acceptable"},
			wrap: rewriteHeaders(func(r *http.Request, _ faultDeps) {
				if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err == nil && mt == "text/plain" {
					r.Header.Set("Content-Type", "application/json")
				}
			}),
		},
		{
			Name: "vnd-api-json-refused", Capability: "content", Expect: ExpectWarn, Tags: "@errors",
			Breaks:   "the kit's content types: both media types of §1 are accepted (assumed: a server may take only one)",
			Catchers: []string{"a JSON body is accepted as application/vnd.api+json"},
			wrap:     refuseMediaType("application/vnd.api+json"),
		},
		{
			Name: "hal-json-refused", Capability: "content", Expect: ExpectWarn, Tags: "@errors",
			Breaks:   "the kit's content types: application/hal+json request bodies are accepted (assumed)",
			Catchers: []string{"a JSON body is accepted as application/hal+json"},
			wrap:     refuseMediaType("application/hal+json"),
		},
	}
}

// deleteOnError removes key from error responses.
func deleteOnError(key string) func(x *faultExchange) bool {
	return func(x *faultExchange) bool {
		if x.status < 400 {
			return false
		}
		if _, ok := x.out[key]; !ok {
			return false
		}
		delete(x.out, key)
		return true
	}
}

// editErrorItems applies edit to every item of an error envelope.
func editErrorItems(edit func(map[string]any)) func(x *faultExchange) bool {
	return func(x *faultExchange) bool {
		items, _ := objectAt(x.out, "_embedded")["errors"].([]any)
		if x.status < 400 || len(items) == 0 {
			return false
		}
		for _, it := range items {
			if m, ok := it.(map[string]any); ok {
				edit(m)
			}
		}
		return true
	}
}

// refuseMediaType answers requests whose body has media type mt with 406.
func refuseMediaType(mt string) func(http.Handler, faultDeps) http.Handler {
	return func(next http.Handler, _ faultDeps) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if got, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err == nil && got == mt {
				validate.WriteEnvelope(w, r, http.StatusNotAcceptable, validate.ErrorItem{
					Code: "NOT_ACCEPTABLE", Message: "Content-Type " + mt + " is not supported",
				})
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}
