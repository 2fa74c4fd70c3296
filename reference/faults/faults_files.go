package faults

import (
	"encoding/json"
	"net/http"
	"net/url"
)

// Names of the scenarios that catch the file faults (the review alert one
// catches a webhook fault too).
const (
	scenarioFileHook = "an uploaded file passes review to UPLOADED and the webhook receives the alert"
	scenarioLinkNew  = "an upload link is created, fetched and listed"
)

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
			Breaks:   "the kit's files: display_name is returned as sent (assumed)",
			Catchers: []string{"a file is created requiring an upload"},
			wrap:     rewriteResponse(setFieldOnSuccess("display_name", "untitled"), "files.create"),
		},
		{
			Name: "external-link-type-wrong", Capability: "external_links", Expect: ExpectWarn, Tags: "@files",
			Breaks:   "the kit's external links: the link has the type requested (assumed)",
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
			return answeredDelivery(req, http.StatusOK), nil
		}
		return base.RoundTrip(req)
	}}
}
