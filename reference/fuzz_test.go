package reference

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// FuzzServer sends arbitrary methods, paths, headers and bodies (with and
// without valid credentials): no response may be a 5xx, and no panic may
// escape (ServeHTTP turns panics into 500s, so both are caught here).
func FuzzServer(f *testing.F) {
	h := newHarness(f)
	fx := h.fx.Fixtures
	seeds := []struct {
		method, path, headers string
		body                  string
	}{
		{"GET", "/disputes/" + fx.Dispute, "", ""},
		{"GET", "/disputes?limit=5&offset=1&sort=amount,asc", "Accept: application/json", ""},
		{"POST", "/transfers", "Content-Type: application/json", `{"source":"PI1","merchant":"` + fx.Merchant + `","amount":102,"currency":"USD"}`},
		{"PUT", "/authorizations/AU1", "Content-Type: application/vnd.api+json", `{"capture_amount":1}`},
		{"POST", "/payment_instruments", "Content-Type: application/json", `{"number":"4111"}`},
		{"POST", "/disputes/" + fx.Dispute + "/evidence", "Content-Type: multipart/form-data; boundary=x", "--x\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.pdf\"\r\n\r\n%PDF\r\n--x--\r\n"},
		{"PUT", "/external_links/EL_x/upload", "Content-Type: application/pdf", "data"},
		{"PATCH", "/subscription/subscription_schedules/" + fx.SubscriptionSchedule + "/subscription_amounts/" + fx.SubscriptionAmount, "Content-Type: application/json", `{"amount_type":"FEE","nickname":"n","fee_amount_data":{"amount":5}}`},
		{"DELETE", "/webhooks", "", ""},
		{"GET", "/%zz", "", ""},
		// Regressions: numbers the validator could not turn into a rational
		// (a panic, so a 500) or took seconds to; non-canonical paths (a 307
		// with an HTML body); q=0 in Accept; multipart without a boundary.
		{"POST", "/transfers", "Content-Type: application/json", `{"source":"PI1","merchant":"` + fx.Merchant + `","amount":1e999999999,"currency":"USD"}`},
		{"POST", "/authorizations", "Content-Type: application/json", `{"source":"PI1","merchant":"` + fx.Merchant + `","amount":99999999999999999999,"currency":"USD"}`},
		{"PUT", "/authorizations/AU1", "Content-Type: application/json", `{"capture_amount":1.0e-999999999,"fee":1e400}`},
		{"GET", "//disputes/../webhooks", "", ""},
		{"GET", "/disputes", "Accept: application/json;q=0", ""},
		{"POST", "/disputes/" + fx.Dispute + "/evidence", "Content-Type: multipart/form-data", "--x--"},
	}
	for _, s := range seeds {
		f.Add(s.method, s.path, s.headers, []byte(s.body), true)
		f.Add(s.method, s.path, s.headers, []byte(s.body), false)
	}
	f.Fuzz(func(t *testing.T, method, path, headers string, body []byte, authenticated bool) {
		if !strings.HasPrefix(path, "/") {
			return
		}
		req, err := http.NewRequest(method, testBase+path, bytes.NewReader(body))
		if err != nil {
			return // not a request a server could receive
		}
		for _, line := range strings.Split(headers, "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) != "" {
				req.Header.Add(strings.TrimSpace(k), strings.TrimSpace(v))
			}
		}
		if authenticated {
			req.SetBasicAuth(h.platform().Username, h.platform().Password)
		}
		rec := httptest.NewRecorder()
		h.srv.ServeHTTP(rec, req)
		if rec.Code >= 500 {
			t.Fatalf("%s %s: status %d; body %s", method, path, rec.Code, truncate(rec.Body.Bytes()))
		}
	})
}
