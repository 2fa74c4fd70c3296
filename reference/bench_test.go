package reference

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
)

// The benchmarks compare a request through the whole reference handler with
// a minimal net/http handler serving a pre-encoded body of the same size
// (the floor): the ratio of their ns/op is the reference's overhead.

func benchRequest(b *testing.B, h *harness, method, path string, body []byte) *http.Request {
	b.Helper()
	req := httptest.NewRequest(method, testBase+path, bytes.NewReader(body))
	if body != nil {
		req.Header.Set("Content-Type", "application/vnd.json+api")
	}
	req.SetBasicAuth(h.platform().Username, h.platform().Password)
	return req
}

func runBench(b *testing.B, h http.Handler, method, path string, body []byte, hx *harness, want int) {
	b.ReportAllocs()
	for b.Loop() {
		req := benchRequest(b, hx, method, path, body)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != want {
			b.Fatalf("status %d: %s", rec.Code, truncate(rec.Body.Bytes()))
		}
	}
}

// floor serves a fixed pre-encoded body.
func floor(body []byte, status int) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", halJSON)
		w.WriteHeader(status)
		_, _ = w.Write(body)
	})
}

func BenchmarkFetch(b *testing.B) {
	h := newHarness(b)
	path := "/disputes/" + h.fx.Fixtures.Dispute
	b.Run("reference", func(b *testing.B) { runBench(b, h.srv, "GET", path, nil, h, 200) })
	body := h.call(h.platform(), "GET", path, nil).body
	b.Run("floor", func(b *testing.B) { runBench(b, floor(body, 200), "GET", path, nil, h, 200) })
}

func BenchmarkLevel3Sale(b *testing.B) {
	h := newHarness(b)
	sale, err := json.Marshal(map[string]any{
		"source": h.card(), "merchant": h.fx.Fixtures.Merchant, "amount": 1000, "currency": "USD",
		"additional_purchase_data": purchaseDataBody(),
	})
	if err != nil {
		b.Fatal(err)
	}
	b.Run("reference", func(b *testing.B) { runBench(b, h.srv, "POST", "/transfers", sale, h, 201) })
	body := h.call(h.platform(), "POST", "/transfers", sale).body
	b.Run("floor", func(b *testing.B) { runBench(b, floor(body, 201), "POST", "/transfers", sale, h, 201) })
}
