package faults

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// Names of the scenarios that catch the file and webhook faults.
const (
	scenarioFileHook = "an uploaded file passes review to UPLOADED and the webhook receives the alert"
	scenarioHookNew  = "a webhook is created enabled with its signing secret"
	scenarioHookAuth = "a webhook with basic authentication receives events with that Authorization header and never shows its password"
	scenarioLinkNew  = "an upload link is created, fetched and listed"
)

// listRoutes are the ids of the list operations of the operations table.
func listRoutes() []string {
	return []string{
		"subscription_enrollments.list_by_schedule",
		"subscription_enrollments.list", "disputes.list", "dispute_evidence.list", "dispute_adjustment_transfers.list",
		"balance_transfers.list", "files.list", "files.external_links.list", "webhooks.list",
	}
}

// fileFaults break spec §3.1, §4.8 and §6 (files and their review alert).
func fileFaults() []Fault {
	return []Fault{
		{
			Name: "file-created-pending", Capability: "files", Expect: ExpectFail, Tags: "@files",
			Breaks:   "§2.11/§3.1 a file is REQUIRES_UPLOAD on creation",
			Catchers: []string{"a file is created requiring an upload"},
			wrap:     rewriteResponse(setFieldOnSuccess("status", "PENDING"), "files.create"),
		},
		{
			Name: "file-uploaded-event-missing", Capability: "files", Expect: ExpectFail, Tags: "@files",
			Breaks:    "§3.1/§6 a webhook alert is sent when a file reaches UPLOADED",
			Catchers:  []string{scenarioFileHook},
			transport: dropUploadedFileEvents,
		},
		{
			Name: "file-download-altered", Capability: "files", Expect: ExpectFail, Tags: "@files",
			Breaks:   "§4.8 download returns the uploaded file",
			Catchers: []string{"an uploaded file is downloaded unchanged"},
			wrap: func(next http.Handler, _ faultDeps) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if _, ok := faultRoute(r, "files.download"); !ok {
						next.ServeHTTP(w, r)
						return
					}
					rec := newFaultRecorder()
					next.ServeHTTP(rec, r)
					body := rec.body.Bytes()
					if isSuccess(rec.status) && len(body) > 0 {
						body = append(body[:len(body)-1:len(body)-1], body[len(body)-1]^0x20)
					}
					rec.flush(w, body)
				})
			},
		},
		{
			Name: "file-display-name-dropped", Capability: "files", Expect: ExpectWarn, Tags: "@files",
			Breaks:   "DESIGN files: display_name is returned as sent (assumed)",
			Catchers: []string{"a file is created requiring an upload"},
			wrap:     rewriteResponse(setFieldOnSuccess("display_name", "untitled"), "files.create"),
		},
		{
			Name: "external-link-type-wrong", Capability: "external_links", Expect: ExpectWarn, Tags: "@files",
			Breaks:   "DESIGN external links: the link has the type requested (assumed)",
			Catchers: []string{scenarioLinkNew},
			wrap:     rewriteResponse(setFieldOnSuccess("type", "VIEW"), "files.external_links.create"),
		},
		{
			Name: "external-link-url-relative", Capability: "external_links", Expect: ExpectFail, Tags: "@files",
			Breaks:   "§4.8 an upload link is a URL to share (absolute)",
			Catchers: []string{scenarioLinkNew},
			wrap: rewriteResponse(func(x *faultExchange) bool {
				u, err := url.Parse(stringAt(x.out, "url"))
				if !isSuccess(x.status) || err != nil || !u.IsAbs() {
					return false
				}
				x.out["url"] = u.RequestURI()
				return true
			}, "files.external_links.create"),
		},
	}
}

// webhookFaults break spec §2.10, §4.9, §8 and DESIGN's signature scheme.
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
			Breaks:   "§2.10 secret_signing_key only in single-webhook responses (DESIGN: never in lists)",
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
			Breaks:    "DESIGN webhooks: Finix-Signature is the HMAC-SHA256 of timestamp:body (assumed)",
			Catchers:  []string{scenarioFileHook},
			transport: badSignature,
		},
		{
			Name: "webhook-authentication-not-sent", Capability: "webhooks", Expect: ExpectWarn, Tags: "@webhooks",
			Breaks:    "§4.9 authentication: settings used when sending events (DESIGN: BASIC/BEARER send an Authorization header; assumed)",
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

// listFaults break spec §2.12, §4.10 and §8 (lists).
func listFaults() []Fault {
	const byDefault = "a list returns 20 items by default and counts the total"
	return []Fault{
		{
			Name: "default-page-size-not-20", Capability: "lists", Expect: ExpectFail, Tags: "@lists",
			Breaks:   "§2.12/§8 the default limit is 20",
			Catchers: []string{byDefault},
			wrap:     rewriteQuery(func(q url.Values) bool { return setIfAbsent(q, "limit", "10") }),
		},
		{
			Name: "page-count-is-page-size", Capability: "lists", Expect: ExpectFail, Tags: "@lists",
			Breaks:   "§2.12 page.count is the total number of records",
			Catchers: []string{byDefault},
			wrap:     rewriteResponse(countPageSize, listRoutes()...),
		},
		{
			Name: "default-order-ascending", Capability: "lists", Expect: ExpectFail, Tags: "@lists",
			Breaks:   "§2.12 the default order is created_at,desc then id,desc",
			Catchers: []string{"the default order is created_at then id, newest first"},
			wrap: rewriteQuery(func(q url.Values) bool {
				if len(q["sort"]) > 0 {
					return false
				}
				q["sort"] = []string{"created_at,asc", "id,asc"}
				return true
			}),
		},
		{
			Name: "self-link-drops-sort", Capability: "lists", Expect: ExpectFail, Tags: "@lists",
			Breaks:   "§2.12 the self link carries the sort values",
			Catchers: []string{"the self link carries offset, limit and sort"},
			wrap: rewriteResponse(func(x *faultExchange) bool {
				self := objectAt(x.out, "_links.self")
				u, err := url.Parse(stringAt(self, "href"))
				if self == nil || err != nil {
					return false
				}
				q := u.Query()
				q.Del("sort")
				u.RawQuery = q.Encode()
				self["href"] = u.String()
				return true
			}, listRoutes()...),
		},
		{
			Name: "offset-ignored", Capability: "lists", Expect: ExpectFail, Tags: "@lists",
			Breaks:   "§4.10 lists honour offset",
			Catchers: []string{"offset and limit select a window of the list"},
			wrap:     dropQuery("offset"),
		},
		{
			Name: "sort-parameter-ignored", Capability: "lists", Expect: ExpectFail, Tags: "@lists",
			Breaks:   "§2.12/§4.10 lists honour an explicit sort",
			Catchers: []string{"an explicit sort orders the list oldest first and is echoed in the self link"},
			wrap:     dropQuery("sort"),
		},
		{
			Name: "webhook-list-ignores-limit", Capability: "lists", Expect: ExpectFail, Tags: "@webhooks",
			Breaks:   "§4.10 the webhook list honours limit",
			Catchers: []string{"the webhook list honours its limit and counts every webhook"},
			wrap:     dropQuery("limit", "webhooks.list"),
		},
		{
			Name: "enrollment-list-count-is-page-size", Capability: "lists", Expect: ExpectFail, Tags: "@subscriptions",
			Breaks:   "§2.12 page.count of the enrollment list is the total number of records",
			Catchers: []string{"the enrollment list honours its limit and counts every enrollment"},
			wrap:     rewriteResponse(countPageSize, "subscription_enrollments.list"),
		},
		{
			Name: "file-list-ignores-offset", Capability: "lists", Expect: ExpectFail, Tags: "@files",
			Breaks:   "§4.10 the file list honours offset",
			Catchers: []string{"the file list pages by offset and limit and counts every file"},
			wrap:     dropQuery("offset", "files.list"),
		},
		{
			Name: "dispute-list-ignores-limit", Capability: "lists", Expect: ExpectFail, Tags: "@disputes",
			Breaks:   "§4.10 the dispute list honours limit",
			Catchers: []string{"the dispute list pages by offset and limit and counts every dispute"},
			wrap:     dropQuery("limit", "disputes.list"),
		},
		{
			Name: "evidence-list-count-is-page-size", Capability: "lists", Expect: ExpectFail, Tags: "@disputes",
			Breaks:   "§2.12 page.count of a dispute's evidence list is the total number of records",
			Catchers: []string{"the evidence list of a dispute pages by offset and limit and counts exactly"},
			wrap:     rewriteResponse(countPageSize, "dispute_evidence.list"),
		},
		{
			Name: "evidence-list-embedded-null-when-empty", Capability: "lists", Expect: ExpectFail, Tags: "@disputes",
			Breaks: "§2.12 an empty list still carries _embedded.evidences as an array",
			Catchers: []string{
				"a new dispute's evidence list is empty and still carries its page",
				"the evidence list of a dispute pages by offset and limit and counts exactly",
			},
			wrap: rewriteResponse(func(x *faultExchange) bool {
				emb := objectAt(x.out, "_embedded")
				if items, ok := emb["evidences"].([]any); !ok || len(items) > 0 {
					return false
				}
				emb["evidences"] = nil
				return true
			}, "dispute_evidence.list"),
		},
		{
			Name: "limit-over-100-accepted", Capability: "lists", Expect: ExpectWarn, Tags: "@lists",
			Breaks:   "DESIGN lists: limit above 100 is 422 INVALID_FIELD (assumed)",
			Catchers: []string{"a limit over the maximum is refused or clamped as declared"},
			wrap: rewriteQuery(func(q url.Values) bool {
				if n, err := strconv.Atoi(q.Get("limit")); err != nil || n <= 100 {
					return false
				}
				q.Set("limit", "100")
				return true
			}),
		},
	}
}

// stringAt returns the string field key of doc, or "".
func stringAt(doc map[string]any, key string) string {
	s, _ := doc[key].(string)
	return s
}

// setIfAbsent sets key in q when it has no value.
func setIfAbsent(q url.Values, key, value string) bool {
	if q.Get(key) != "" {
		return false
	}
	q.Set(key, value)
	return true
}

// rewriteQuery returns a fault editing the query of list requests.
func rewriteQuery(edit func(url.Values) bool, opIDs ...string) func(http.Handler, faultDeps) http.Handler {
	if len(opIDs) == 0 {
		opIDs = listRoutes()
	}
	return rewriteHeaders(func(r *http.Request, _ faultDeps) {
		q := r.URL.Query()
		if edit(q) {
			r.URL.RawQuery = q.Encode()
		}
	}, opIDs...)
}

// dropQuery removes a query parameter from the requests of the given list
// routes, so the list answers as if it had not been sent.
func dropQuery(param string, opIDs ...string) func(http.Handler, faultDeps) http.Handler {
	return rewriteQuery(func(q url.Values) bool {
		if !q.Has(param) {
			return false
		}
		q.Del(param)
		return true
	}, opIDs...)
}

// countPageSize sets a list's page.count to the number of items on the page
// instead of the total.
func countPageSize(x *faultExchange) bool {
	page := objectAt(x.out, "page")
	if page == nil {
		return false
	}
	page["count"] = len(listItems(x.out))
	return true
}

// dropUploadedFileEvents answers deliveries of a file's UPLOADED event with
// 200 without sending them, so the alert never arrives.
func dropUploadedFileEvents(base http.RoundTripper) http.RoundTripper {
	return &faultTransport{base: base, fn: func(base http.RoundTripper, req *http.Request) (*http.Response, error) {
		body, err := deliveryBody(req)
		if err != nil {
			return nil, err
		}
		var ev struct {
			Entity   string `json:"entity"`
			Embedded struct {
				Files []struct {
					Status string `json:"status"`
				} `json:"files"`
			} `json:"_embedded"`
		}
		if json.Unmarshal(body, &ev) == nil && ev.Entity == "file" &&
			len(ev.Embedded.Files) > 0 && ev.Embedded.Files[0].Status == "UPLOADED" {
			return &http.Response{
				StatusCode: http.StatusOK, Status: "200 OK", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
				Header: http.Header{}, Body: io.NopCloser(bytes.NewReader(nil)), Request: req,
			}, nil
		}
		return base.RoundTrip(req)
	}}
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
