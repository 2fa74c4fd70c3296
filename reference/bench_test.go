package reference

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/conform-kit/conform/reference/ledger"
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
	h := newHarness(b, func(c *Config) { c.Limits = ledger.Limits{CreatesPerMinute: -1, MaxRetained: -1, MaxBytes: -1} })
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

// httpCase is one request BenchmarkHTTP and BenchmarkHTTPRatios send.
type httpCase struct {
	name, method, path string
	body               []byte
	status             int
}

// benchCases makes a reference without bounds holding a card and two pages
// of balance transfers, and returns it with the requests the HTTP benchmarks
// send: a GET of the card, a Level 3 sale and a default page of balance
// transfers.
func benchCases(b *testing.B) (*harness, []httpCase) {
	b.Helper()
	h := newHarness(b, func(c *Config) { c.Limits = ledger.Limits{CreatesPerMinute: -1, MaxRetained: -1, MaxBytes: -1} })
	card := h.card()
	sale, err := json.Marshal(map[string]any{
		"source": card, "merchant": h.fx.Fixtures.Merchant, "amount": 1000, "currency": "USD",
		"additional_purchase_data": purchaseDataBody(),
	})
	if err != nil {
		b.Fatal(err)
	}
	for i := range 2 * ledger.DefaultLimit {
		h.expect(h.call(h.platform(), "POST", "/balance_transfers", map[string]any{
			"amount": 100 + i, "currency": "USD", "description": fmt.Sprint("bench ", i), "source": "OPERATING_ACCOUNT",
			"destination": "FOR_BENEFIT_OF_ACCOUNT", "processor_type": "LITLE_V1", "tags": map[string]any{"run": "bench"},
		}), 201, "")
	}
	return h, []httpCase{
		{"get-card", "GET", "/payment_instruments/" + card, nil, 200},
		{"level3-sale", "POST", "/transfers", sale, 201},
		{"list-page", "GET", "/balance_transfers", nil, 200},
	}
}

// BenchmarkPaths sends the requests of the HTTP benchmarks (benchCases)
// straight to the reference's handler, without a connection: the time and
// allocations of the reference's own work on each path.
func BenchmarkPaths(b *testing.B) {
	h, cases := benchCases(b)
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) { runBench(b, h.srv, c.method, c.path, c.body, h, c.status) })
	}
}

// httpTargets puts the reference and a plain net/http handler writing the
// same bytes (the floor: a map from path to a pre-encoded answer, reading the
// request body as the reference must) each behind a loopback
// httptest.Server, and returns them with the requests to send: a GET of a
// card, a Level 3 sale and a default page of balance transfers (a full page
// of a list holding two).
func httpTargets(b *testing.B) (ref, floor *httptest.Server, cases []httpCase, send func(*httptest.Server, httpCase) error) {
	h, cases := benchCases(b)
	answers := map[string][]byte{}
	for _, c := range cases {
		answers[c.method+" "+c.path] = h.call(h.platform(), c.method, c.path, c.body).body
	}
	floor = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
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
	b.Cleanup(floor.Close)
	ref = httptest.NewServer(h.srv)
	b.Cleanup(ref.Close)
	cred := h.platform()
	send = func(srv *httptest.Server, c httpCase) error {
		req, err := http.NewRequest(c.method, srv.URL+c.path, bytes.NewReader(c.body))
		if err != nil {
			return err
		}
		req.Header.Set("Content-Type", "application/vnd.json+api")
		req.SetBasicAuth(cred.Username, cred.Password)
		resp, err := srv.Client().Do(req)
		if err != nil {
			return err
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != c.status {
			return fmt.Errorf("%s %s: status %d, want %d", c.method, c.path, resp.StatusCode, c.status)
		}
		return nil
	}
	return ref, floor, cases, send
}

// BenchmarkHTTP times each request against the reference and the floor
// (httpTargets) as ordinary sub-benchmarks: the ratio of floor to reference
// ns/op is the reference's share of the floor's throughput. The two run one
// after the other, so on a busy machine prefer BenchmarkHTTPRatios.
func BenchmarkHTTP(b *testing.B) {
	ref, floor, cases, send := httpTargets(b)
	for _, c := range cases {
		for _, target := range []struct {
			name string
			srv  *httptest.Server
		}{{"reference", ref}, {"floor", floor}} {
			b.Run(c.name+"/"+target.name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if err := send(target.srv, c); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkHTTPRatios measures the reference's share of the floor's
// throughput (floor ns/op ÷ reference ns/op, 1 is the floor's speed) in one
// run: every round times a batch of requests to each, interleaved, the one
// leading alternating, and the metric is the median over rounds of each
// round's ratio. Run it with -benchtime 1x; it times its own loops.
func BenchmarkHTTPRatios(b *testing.B) {
	ref, floor, cases, send := httpTargets(b)
	const rounds = 31
	var table strings.Builder
	table.WriteString("\n| request | reference | floor | floor ÷ reference (median of rounds) |\n|---|---|---|---|\n")
	for _, c := range cases {
		batch := func(srv *httptest.Server, n int) time.Duration {
			start := time.Now()
			for range n {
				if err := send(srv, c); err != nil {
					b.Fatal(err)
				}
			}
			return time.Since(start)
		}
		n := 1
		for batch(floor, n) < 10*time.Millisecond && n < 1<<16 {
			n *= 2
		}
		var refNs, floorNs, ratios []float64
		for r := range rounds {
			var rd, fd time.Duration
			if r%2 == 0 {
				rd, fd = batch(ref, n), batch(floor, n)
			} else {
				fd, rd = batch(floor, n), batch(ref, n)
			}
			refNs = append(refNs, float64(rd.Nanoseconds())/float64(n))
			floorNs = append(floorNs, float64(fd.Nanoseconds())/float64(n))
			ratios = append(ratios, float64(fd)/float64(rd))
		}
		ratio := median(ratios)
		fmt.Fprintf(&table, "| %s | %.1f µs | %.1f µs | %.2f× |\n", c.name, median(refNs)/1000, median(floorNs)/1000, ratio)
		b.ReportMetric(ratio, "floor/reference/"+c.name)
	}
	b.Log(table.String())
}

// median is the middle value of xs (the upper one of an even count).
func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}
