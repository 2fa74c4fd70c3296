package reference

import (
	"fmt"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// hostileBodies are the three shapes of 1 MiB (validate.MaxBodyBytes) a
// client sends to make a server spend memory on a body: an array of zeros
// where an object belongs, 25,000 tags, and nesting as deep as JSON allows.
func hostileBodies() map[string][]byte {
	const size = 1 << 20
	zeros := "[" + strings.Repeat("0,", size/2-2) + "0]"
	var tags strings.Builder
	tags.WriteString(`{"url":"https://example.com/hook","tags":{`)
	for i := 0; i < 25000; i++ {
		if i > 0 {
			tags.WriteByte(',')
		}
		fmt.Fprintf(&tags, `"tag%05d":"%05d%s"`, i, i, strings.Repeat("v", 22))
	}
	tags.WriteString(`}}`)
	const depth = 9990
	deep := `{"url":"https://example.com/hook","tags":{"a":` + strings.Repeat(`[`, depth) + strings.Repeat(`]`, depth) + `},"pad":"`
	deep += strings.Repeat("x", size-len(deep)-2) + `"}`
	return map[string][]byte{"array of zeros": []byte(zeros), "25,000 tags": []byte(tags.String()), "deep nesting": []byte(deep)}
}

// TestHostileBodiesKeepTheHeapSmall sends 8 concurrent 1 MiB bodies of each
// hostile shape to POST /webhooks and samples the heap while they are in
// flight: it may grow by the bodies themselves and a little more, never by
// a tree of each.
func TestHostileBodiesKeepTheHeapSmall(t *testing.T) {
	h := newHarness(t)
	cred := h.platform()
	const inFlight = 8
	for name, body := range hostileBodies() {
		t.Run(name, func(t *testing.T) {
			require.LessOrEqual(t, len(body), 1<<20)
			require.Greater(t, len(body), 1<<20-1<<15)
			before := heapInUse()
			var peak atomic.Uint64
			stop := make(chan struct{})
			sampled := make(chan struct{})
			go func() {
				defer close(sampled)
				var m runtime.MemStats
				for {
					runtime.ReadMemStats(&m)
					if m.HeapAlloc > peak.Load() {
						peak.Store(m.HeapAlloc)
					}
					select {
					case <-stop:
						return
					case <-time.After(200 * time.Microsecond):
					}
				}
			}()
			statuses := make([]int, inFlight)
			var wg sync.WaitGroup
			for i := range inFlight {
				wg.Go(func() {
					req := httptest.NewRequest("POST", testBase+"/webhooks", strings.NewReader(string(body)))
					req.Header.Set("Content-Type", "application/vnd.json+api")
					req.SetBasicAuth(cred.Username, cred.Password)
					rec := httptest.NewRecorder()
					h.srv.ServeHTTP(rec, req)
					statuses[i] = rec.Code
				})
			}
			wg.Wait()
			close(stop)
			<-sampled
			growth := int64(peak.Load()) - before
			t.Logf("%s: statuses %v, heap grew by %.1f MiB at most with %d bodies of %d bytes in flight", name, statuses, float64(growth)/(1<<20), inFlight, len(body))
			for _, s := range statuses {
				require.Less(t, s, 500)
			}
			require.Less(t, growth, int64(4*inFlight<<20), "the heap grew by more than four times the bodies in flight")
		})
	}
}
