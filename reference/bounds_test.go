package reference

import (
	"fmt"
	"io"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// TestErrorAnswersAreBounded: an error answer's size does not grow with what
// the client sends. A body with thousands of unknown fields, a long query and
// a long X-Request-Id once made an answer hundreds of times the request.
func TestErrorAnswersAreBounded(t *testing.T) {
	h := newHarness(t)
	var b strings.Builder
	b.WriteString(`{"amount":100,"currency":"USD","source":"PI1","merchant":"` + h.fx.Fixtures.Merchant + `"`)
	for i := range 3000 {
		fmt.Fprintf(&b, `,"unknown_%d":1`, i)
	}
	b.WriteString("}")
	longID := strings.Repeat("r", 4000)
	query := "?pad=" + strings.Repeat("q", 6000)
	r := h.call(h.platform(), "POST", "/transfers"+query, b.String(), "X-Request-Id", longID)
	h.expect(r, 422, "error")
	if len(r.body) > 64<<10 {
		t.Fatalf("a %d-byte request got a %d-byte answer", b.Len(), len(r.body))
	}
	env := r.json(t)
	items := env["_embedded"].(map[string]any)["errors"].([]any)
	if len(items) != maxErrorItems {
		t.Errorf("%d items, want %d", len(items), maxErrorItems)
	}
	last := items[len(items)-1].(map[string]any)["message"].(string)
	if !strings.Contains(last, "more violations not listed") {
		t.Errorf("last item %q does not count the rest", last)
	}
	if strings.Contains(string(r.body), longID) || strings.Contains(string(r.body), "qqqq") {
		t.Error("the answer echoes the long request id or the query")
	}
	if got := r.header.Get("X-Request-Id"); got == longID || got == "" {
		t.Errorf("X-Request-Id %q: want a generated id", truncate([]byte(got)))
	}
	short := h.call(h.platform(), "GET", "/disputes/DP0", nil, "X-Request-Id", "req-123")
	if got := short.header.Get("X-Request-Id"); got != "req-123" {
		t.Errorf("a short request id is not kept: %q", got)
	}
}

// TestErrorLinksNameTheBase: the error envelope's links use the configured
// base URL, never a Host header the client chose.
func TestErrorLinksNameTheBase(t *testing.T) {
	h := newHarness(t)
	req := httptest.NewRequest("GET", testBase+"/disputes/DP404?x=1", nil)
	req.Host = "attacker.example"
	req.SetBasicAuth(h.platform().Username, h.platform().Password)
	rec := httptest.NewRecorder()
	h.srv.ServeHTTP(rec, req)
	if rec.Code != 404 {
		t.Fatalf("status %d", rec.Code)
	}
	if strings.Contains(rec.Body.String(), "attacker.example") {
		t.Fatalf("the error links echo the Host header: %s", truncate(rec.Body.Bytes()))
	}
	if !strings.Contains(rec.Body.String(), `"href":"`+testBase+`/disputes/DP404"`) {
		t.Errorf("the links do not name the base and path: %s", truncate(rec.Body.Bytes()))
	}
}

// TestOddRequestTargets: targets the ServeMux answers on its own (with an
// empty or plain-text body) get the error envelope; a query too long to read
// is refused rather than dropped.
func TestOddRequestTargets(t *testing.T) {
	h := newHarness(t)
	many := strings.Repeat("x&", 10001) + "limit=1" // was read as no parameter at all, limit ignored
	tests := []struct {
		name, method, target string
		status               int
		code                 string
	}{
		{"asterisk", "OPTIONS", "*", 400, "BAD_REQUEST"},
		{"asterisk GET", "GET", "*", 400, "BAD_REQUEST"},
		{"CONNECT authority", "CONNECT", "reference.test:443", 400, "BAD_REQUEST"},
		{"CONNECT path", "CONNECT", "/disputes", 405, "METHOD_NOT_ALLOWED"},
		{"over 10,000 parameters", "GET", "/disputes?" + many, 414, "URI_TOO_LONG"},
		{"semicolon query", "GET", "/disputes?limit=1;offset=2", 400, "BAD_REQUEST"},
		{"target over 8 KiB", "GET", "/disputes?pad=" + strings.Repeat("p", maxTargetBytes), 414, "URI_TOO_LONG"},
		{"path over 8 KiB", "GET", "/" + strings.Repeat("p", maxTargetBytes), 414, "URI_TOO_LONG"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req := httptest.NewRequest(tc.method, tc.target, nil)
			req.SetBasicAuth(h.platform().Username, h.platform().Password)
			rec := httptest.NewRecorder()
			h.srv.ServeHTTP(rec, req)
			r := response{status: rec.Code, header: rec.Header(), body: rec.Body.Bytes()}
			h.expect(r, tc.status, "error")
			if got := errorCode(t, r); got != tc.code {
				t.Errorf("code %s, want %s", got, tc.code)
			}
			if len(r.body) > 4<<10 {
				t.Errorf("answer of %d bytes", len(r.body))
			}
		})
	}
}

// countingReader serves n bytes and counts how many were read.
type countingReader struct {
	left int
	read atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	if c.left == 0 {
		return 0, io.EOF
	}
	n := min(len(p), c.left)
	clear(p[:n])
	c.left -= n
	c.read.Add(int64(n))
	return n, nil
}

// TestUploadToUnknownLinkReadsNoBody: the upload URL has no credential but
// its link id; a wrong one is refused before its body is read.
func TestUploadToUnknownLinkReadsNoBody(t *testing.T) {
	h := newHarness(t)
	body := &countingReader{left: maxUploadBytes}
	req := httptest.NewRequest("PUT", testBase+"/external_links/EL0000000000000000000000/upload", body)
	req.Header.Set("Content-Type", "application/pdf")
	rec := httptest.NewRecorder()
	h.srv.ServeHTTP(rec, req)
	h.expect(response{status: rec.Code, body: rec.Body.Bytes()}, 404, "error")
	if n := body.read.Load(); n > 0 {
		t.Errorf("read %d bytes of the body before refusing the link", n)
	}
}
