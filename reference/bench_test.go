package reference

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
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
	h := newHarness(b, func(c *Config) { c.Limits = Limits{CreatesPerMinute: -1, MaxRetained: -1, MaxBytes: -1} })
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

// BenchmarkHTTP puts the reference and a plain net/http handler writing the
// same bytes (the floor: a map from path to a pre-encoded answer, reading
// the request body as the reference must) each behind a loopback
// httptest.Server, called by one keep-alive client: a GET of a card and a
// Level 3 sale. The ratio of floor to reference ns/op is the reference's
// share of the floor's throughput.
func BenchmarkHTTP(b *testing.B) {
	h := newHarness(b, func(c *Config) { c.Limits = Limits{CreatesPerMinute: -1, MaxRetained: -1, MaxBytes: -1} })
	card := h.card()
	sale, err := json.Marshal(map[string]any{
		"source": card, "merchant": h.fx.Fixtures.Merchant, "amount": 1000, "currency": "USD",
		"additional_purchase_data": purchaseDataBody(),
	})
	if err != nil {
		b.Fatal(err)
	}
	cases := []struct {
		name, method, path string
		body               []byte
		status             int
	}{
		{"get-card", "GET", "/payment_instruments/" + card, nil, 200},
		{"level3-sale", "POST", "/transfers", sale, 201},
	}
	answers := map[string][]byte{}
	for _, c := range cases {
		answers[c.method+" "+c.path] = h.call(h.platform(), c.method, c.path, c.body).body
	}
	floorSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		body, ok := answers[r.Method+" "+r.URL.Path]
		if !ok {
			w.WriteHeader(http.StatusNotFound)
			return
		}
		w.Header().Set("Content-Type", halJSON)
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		status := http.StatusOK
		if r.Method == http.MethodPost {
			status = http.StatusCreated
		}
		w.WriteHeader(status)
		_, _ = w.Write(body)
	}))
	b.Cleanup(floorSrv.Close)
	refSrv := httptest.NewServer(h.srv)
	b.Cleanup(refSrv.Close)
	for _, c := range cases {
		for _, target := range []struct {
			name string
			srv  *httptest.Server
		}{{"reference", refSrv}, {"floor", floorSrv}} {
			b.Run(c.name+"/"+target.name, func(b *testing.B) {
				client := target.srv.Client()
				b.ReportAllocs()
				for b.Loop() {
					req, err := http.NewRequest(c.method, target.srv.URL+c.path, bytes.NewReader(c.body))
					if err != nil {
						b.Fatal(err)
					}
					req.Header.Set("Content-Type", "application/vnd.json+api")
					req.SetBasicAuth(h.platform().Username, h.platform().Password)
					resp, err := client.Do(req)
					if err != nil {
						b.Fatal(err)
					}
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode != c.status {
						b.Fatalf("status %d", resp.StatusCode)
					}
				}
			})
		}
	}
}
