package reference

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"testing"
	"time"
)

// BenchmarkServeLatency measures, against a running conform serve (the
// reference's figures on PostgreSQL are taken with --store), the latency of
// a GET of a card and of a Level 3 sale, one request at a time over
// loopback, and reports their p50 and p99. CONFORM_LATENCY_CONFIG names
// the config file serve --fixtures wrote (its target, its platform
// credentials and fixtures); CONFORM_LATENCY_N is the requests per case
// (default 2000). Without CONFORM_LATENCY_CONFIG there is nothing to
// measure. Run it with -benchtime 1x:
//
//	CONFORM_LATENCY_CONFIG=f.json go test -run '^$' -bench '^BenchmarkServeLatency$' -benchtime 1x ./reference/
func BenchmarkServeLatency(b *testing.B) {
	path := os.Getenv("CONFORM_LATENCY_CONFIG")
	if path == "" {
		b.Skip("CONFORM_LATENCY_CONFIG names no serve config file: nothing to measure")
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	var cfg struct {
		Target      string
		Credentials struct {
			Platform struct{ Username, Password string }
		}
		Fixtures struct {
			Merchant      string
			BuyerIdentity string `json:"buyer_identity"`
		}
	}
	if err := json.Unmarshal(raw, &cfg); err != nil {
		b.Fatalf("%s: %v", path, err)
	}
	n := 2000
	if v := os.Getenv("CONFORM_LATENCY_N"); v != "" {
		if _, err := fmt.Sscan(v, &n); err != nil || n < 100 {
			b.Fatalf("CONFORM_LATENCY_N=%q: want a count of at least 100", v)
		}
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}
	send := func(method, path string, body []byte, want int) ([]byte, error) {
		req, err := http.NewRequest(method, cfg.Target+path, bytes.NewReader(body))
		if err != nil {
			return nil, err
		}
		req.Header.Set("Content-Type", "application/vnd.json+api")
		req.SetBasicAuth(cfg.Credentials.Platform.Username, cfg.Credentials.Platform.Password)
		resp, err := client.Do(req)
		if err != nil {
			return nil, err
		}
		defer resp.Body.Close()
		out, err := io.ReadAll(resp.Body)
		if err == nil && resp.StatusCode != want {
			err = fmt.Errorf("%s %s: status %d, want %d: %s", method, path, resp.StatusCode, want, out)
		}
		return out, err
	}
	mustJSON := func(v any) []byte {
		out, err := json.Marshal(v)
		if err != nil {
			b.Fatal(err)
		}
		return out
	}
	out, err := send("POST", "/payment_instruments", mustJSON(cardBody(cfg.Fixtures.BuyerIdentity, "4111111111111111")), 201)
	if err != nil {
		b.Fatal(err)
	}
	var card struct{ ID string }
	if err := json.Unmarshal(out, &card); err != nil {
		b.Fatal(err)
	}
	sale := mustJSON(map[string]any{"source": card.ID, "merchant": cfg.Fixtures.Merchant, "amount": 1000,
		"currency": "USD", "additional_purchase_data": purchaseDataBody()})
	for _, c := range []struct {
		name, method, path string
		body               []byte
		status             int
	}{
		{"get-card", "GET", "/payment_instruments/" + card.ID, nil, 200},
		{"level3-sale", "POST", "/transfers", sale, 201},
	} {
		took := make([]time.Duration, n)
		for i := -n / 10; i < n; i++ { // a tenth to warm up, not counted
			start := time.Now()
			if _, err := send(c.method, c.path, c.body, c.status); err != nil {
				b.Fatal(err)
			}
			if i >= 0 {
				took[i] = time.Since(start)
			}
		}
		slices.Sort(took)
		p50, p99 := took[n/2], took[n*99/100]
		b.ReportMetric(float64(p50.Microseconds()), c.name+"-p50-µs")
		b.ReportMetric(float64(p99.Microseconds()), c.name+"-p99-µs")
		b.Logf("%s: p50 %v, p99 %v over %d requests", c.name, p50, p99, n)
	}
}
