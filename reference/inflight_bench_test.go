package reference

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/conform-kit/conform/reference/ledger"
	"github.com/stretchr/testify/require"
)

// inFlightBodies are the 1 MiB bodies a hostile client sends at once, each
// read whole and refused: a sale with 25,000 tags whose card does not exist
// (validated, decoded into a tree, built into the sale's input, then
// refused by the store), a webhook whose 25,000 tags break the schema at
// the last one (read by the validator's pass, 422), and an array where an
// object belongs (refused at its first byte).
func inFlightBodies(merchant string) []struct {
	path string
	body []byte
} {
	const size = 1 << 20
	tags := func(last string) string {
		var b strings.Builder
		b.WriteString(`"tags":{`)
		for i := 0; b.Len() < size-256; i++ {
			fmt.Fprintf(&b, `"tag%05d":"value number %05d, a little padding",`, i, i)
		}
		b.WriteString(`"last":` + last + `}`)
		return b.String()
	}
	sale := `{"source":"PI0123456789abcdefghijkl","merchant":"` + merchant + `","amount":100,"currency":"USD",` + tags(`"v"`) + `}`
	hook := `{"url":"https://example.com/hook",` + tags(`1`) + `}`
	zeros := "[" + strings.Repeat("0,", size/2-2) + "0]"
	return []struct {
		path string
		body []byte
	}{{"/transfers", []byte(sale)}, {"/webhooks", []byte(hook)}, {"/transfers", []byte(zeros)}}
}

// peakRSS reads the process's peak resident set (VmHWM) in bytes.
func peakRSS(tb testing.TB) int64 {
	tb.Helper()
	status, err := os.ReadFile("/proc/self/status")
	require.NoError(tb, err)
	for _, line := range strings.Split(string(status), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			require.NoError(tb, err)
			return kb << 10
		}
	}
	tb.Fatal("no VmHWM in /proc/self/status")
	return 0
}

// BenchmarkInFlightMemory sends a bounded hostile load over loopback
// (127.0.0.1 only) to a reference with its quotas off: CONFORM_LOAD_REQUESTS
// requests (default 2,000) of 1 MiB bodies from 64 connections at once,
// for at most 2 minutes, and reports the process's peak RSS (VmHWM, reset
// before the load) and the sampled peak of the Go heap in MiB. The clients
// share each body, so what grows is the server's. Run it alone, once:
//
//	go test -run '^$' -bench '^BenchmarkInFlightMemory$' -benchtime 1x ./reference/
func BenchmarkInFlightMemory(b *testing.B) {
	requests := 2000
	if s := os.Getenv("CONFORM_LOAD_REQUESTS"); s != "" {
		n, err := strconv.Atoi(s)
		require.NoError(b, err)
		requests = n
	}
	const clients = 64
	for b.Loop() {
		h := newHarness(b, func(c *Config) {
			c.Limits = ledger.Limits{MaxAge: -1, CreatesPerMinute: -1, Webhooks: -1, UploadBytes: -1, Tags: -1}
			if s := os.Getenv("CONFORM_LOAD_BUDGET_MIB"); s != "" {
				n, _ := strconv.Atoi(s)
				c.BodyBudget = int64(n) << 20
			}
		})
		srv := httptest.NewServer(h.srv)
		cred := h.platform()
		bodies := inFlightBodies(h.fx.Fixtures.Merchant)
		client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients, MaxConnsPerHost: clients}}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)

		runtime.GC()
		require.NoError(b, os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)) // VmHWM := VmRSS
		before := peakRSS(b)
		var heapPeak atomic.Uint64
		stop := make(chan struct{})
		sampled := make(chan struct{})
		go func() {
			defer close(sampled)
			t := time.NewTicker(2 * time.Millisecond)
			defer t.Stop()
			var m runtime.MemStats
			for {
				runtime.ReadMemStats(&m)
				heapPeak.Store(max(heapPeak.Load(), m.HeapInuse))
				select {
				case <-stop:
					return
				case <-t.C:
				}
			}
		}()
		var next atomic.Int64
		var statuses sync.Map
		var wg sync.WaitGroup
		start := time.Now()
		for range clients {
			wg.Go(func() {
				for {
					i := next.Add(1) - 1
					if i >= int64(requests) || ctx.Err() != nil {
						return
					}
					body := bodies[i%int64(len(bodies))]
					req, err := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+body.path, bytes.NewReader(body.body))
					if err != nil {
						return
					}
					req.Header.Set("Content-Type", "application/vnd.json+api")
					req.SetBasicAuth(cred.Username, cred.Password)
					resp, err := client.Do(req)
					code := 0
					if err == nil {
						code = resp.StatusCode
						_, _ = io.Copy(io.Discard, resp.Body)
						resp.Body.Close()
					}
					n, _ := statuses.LoadOrStore(code, new(atomic.Int64))
					n.(*atomic.Int64).Add(1)
				}
			})
		}
		wg.Wait()
		elapsed := time.Since(start)
		close(stop)
		<-sampled
		peak := peakRSS(b)
		cancel()
		srv.Close()
		done := min(next.Load(), int64(requests))
		var counts []string
		statuses.Range(func(k, v any) bool {
			counts = append(counts, fmt.Sprintf("%v: %d", k, v.(*atomic.Int64).Load()))
			return true
		})
		b.Logf("%d requests of 1 MiB from %d connections in %v (%s); RSS %.1f MiB before, peak %.1f MiB; Go heap peak %.1f MiB",
			done, clients, elapsed.Round(time.Millisecond), strings.Join(counts, ", "), mib(before), mib(peak), mib(int64(heapPeak.Load())))
		b.ReportMetric(mib(peak), "peak-RSS-MiB")
		b.ReportMetric(mib(int64(heapPeak.Load())), "peak-heap-MiB")
	}
}

func mib(n int64) float64 { return float64(n) / (1 << 20) }

// TestInFlightBodiesKeepTheHeapSmall has 64 clients send 4 bodies of
// 1 MiB each, one after the other (inFlightBodies, a third of them sales
// whose 25,000 tags are decoded and built before the store refuses them),
// to a reference with its quotas off and the default body budget, and
// samples the heap meanwhile: the budget lets in no more than keeps the
// process under 128 MiB (BenchmarkInFlightMemory measures it).
func TestInFlightBodiesKeepTheHeapSmall(t *testing.T) {
	h := newHarness(t, func(c *Config) {
		c.Limits = ledger.Limits{MaxAge: -1, CreatesPerMinute: -1, Webhooks: -1, UploadBytes: -1, Tags: -1}
	})
	cred := h.platform()
	bodies := inFlightBodies(h.fx.Fixtures.Merchant)
	const clients, each = 64, 4
	runtime.GC()
	before := heapInUse()
	var peak atomic.Uint64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		var m runtime.MemStats
		for {
			runtime.ReadMemStats(&m)
			peak.Store(max(peak.Load(), m.HeapAlloc))
			select {
			case <-stop:
				return
			case <-time.After(200 * time.Microsecond):
			}
		}
	}()
	statuses := make([]int, clients*each)
	var wg sync.WaitGroup
	for c := range clients {
		wg.Go(func() {
			for j := range each {
				i := c*each + j
				body := bodies[i%len(bodies)]
				req := httptest.NewRequest("POST", testBase+body.path, bytes.NewReader(body.body))
				req.Header.Set("Content-Type", "application/vnd.json+api")
				req.SetBasicAuth(cred.Username, cred.Password)
				rec := httptest.NewRecorder()
				h.srv.ServeHTTP(rec, req)
				statuses[i] = rec.Code
			}
		})
	}
	wg.Wait()
	close(stop)
	<-sampled
	growth := int64(peak.Load()) - before
	t.Logf("the heap grew by %.1f MiB at most with %d clients sending %d bodies of 1 MiB each", mib(growth), clients, each)
	for _, s := range statuses {
		require.Less(t, s, 500)
		require.GreaterOrEqual(t, s, 400)
	}
	require.Less(t, growth, int64(96<<20), "the heap grew by more than 96 MiB")
}
