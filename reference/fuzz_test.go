package reference

import (
	"bufio"
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/conform-kit/conform/reference/ledger"
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
		checkFuzzAnswer(t, h, req, rec)
	})
}

// FuzzRawRequest is the whole server from the wire: arbitrary bytes are
// read as an HTTP/1.1 request the way net/http reads one (what it cannot
// read never reaches a handler), with a valid Authorization header added
// or not, and served. No answer may be a 5xx, every 4xx is in the error
// envelope, and no answer holds a password.
func FuzzRawRequest(f *testing.F) {
	h := newHarness(f)
	fx := h.fx.Fixtures
	for _, seed := range []string{
		"GET /disputes/" + fx.Dispute + " HTTP/1.1\r\nHost: x\r\n\r\n",
		"OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n",
		"CONNECT reference.test:443 HTTP/1.1\r\nHost: x\r\n\r\n",
		"POST /transfers HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 12\r\n\r\n{\"amount\":1}",
		"POST /transfers HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n",
		"GET /disputes?limit=1;offset=2 HTTP/1.1\r\nHost: x\r\nX-Request-Id: " + strings.Repeat("r", 300) + "\r\n\r\n",
		"PUT /external_links/EL1/upload HTTP/1.1\r\nHost: x\r\nContent-Type: application/pdf\r\nContent-Length: 4\r\n\r\n%PDF",
		"POST /disputes/" + fx.Dispute + "/evidence HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=b\r\nContent-Length: 9\r\n\r\n--b\r\n--b--",
		"get //webhooks/../disputes HTTP/1.0\r\n\r\n",
		"GET http://evil.example/disputes HTTP/1.1\r\nHost: evil.example\r\n\r\n",
	} {
		f.Add([]byte(seed), true)
		f.Add([]byte(seed), false)
	}
	f.Fuzz(func(t *testing.T, raw []byte, authenticated bool) {
		req, err := http.ReadRequest(bufio.NewReader(bytes.NewReader(raw)))
		if err != nil {
			return // net/http answers this itself, before any handler
		}
		if authenticated {
			req.SetBasicAuth(h.platform().Username, h.platform().Password)
		}
		rec := httptest.NewRecorder()
		h.srv.ServeHTTP(rec, req)
		checkFuzzAnswer(t, h, req, rec)
	})
}

// checkFuzzAnswer fails on a 5xx, a 4xx outside the envelope, or an answer
// holding a password.
func checkFuzzAnswer(t *testing.T, h *harness, req *http.Request, rec *httptest.ResponseRecorder) {
	t.Helper()
	body := rec.Body.Bytes()
	if rec.Code >= 500 {
		t.Fatalf("%s %.100s: status %d; body %s", req.Method, req.RequestURI, rec.Code, truncate(body))
	}
	if rec.Code >= 400 && req.Method != http.MethodHead {
		if err := h.v.Resource("error", body); err != nil {
			t.Fatalf("%s %.100s: status %d outside the envelope (%v): %s", req.Method, req.RequestURI, rec.Code, err, truncate(body))
		}
	}
	for _, c := range []ledger.Credential{h.platform(), h.merchant(), h.other()} {
		if bytes.Contains(body, []byte(c.Password)) {
			t.Fatalf("%s %.100s: the answer holds a password", req.Method, req.RequestURI)
		}
	}
}
