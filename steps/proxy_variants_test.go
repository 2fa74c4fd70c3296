package steps_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"

	"github.com/conform-kit/conform/reference/faults"
	"github.com/conform-kit/conform/steps"
	"github.com/conform-kit/conform/validate/judging"
	"github.com/conform-kit/conform/validate/proxy"
)

// lockedBuffer is a log the proxy writes from its handlers.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) lines() [][]byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out [][]byte
	sc := bufio.NewScanner(bytes.NewReader(b.buf.Bytes()))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		out = append(out, append([]byte(nil), sc.Bytes()...))
	}
	return out
}

// TestVariantsThroughTheProxy: the validating proxy, told a conformant
// variant's profile, finds nothing normative in its answers while the whole
// suite runs through it with the same profile (the features where the
// choice shows, under the race detector): the proxy judges a server by the
// same law as the suite. The suite's own requests break rules on purpose,
// so only what the server answers counts here.
func TestVariantsThroughTheProxy(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the suite through the proxy per variant")
	}
	j, err := judging.Default()
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range faults.Variants() {
		t.Run(v.Name, func(t *testing.T) {
			t.Parallel()
			cfg := startVariant(t, v.Name)
			profile, err := j.DecodeProfile([]byte(v.Profile))
			if err != nil {
				t.Fatalf("%s: profile: %v", v.Name, err)
			}
			target, err := url.Parse(cfg.Target)
			if err != nil {
				t.Fatal(err)
			}
			log := &lockedBuffer{}
			px := proxy.New(proxy.Config{Target: target, Judge: j, Profile: &profile, Log: log})
			front := httptest.NewServer(px)
			t.Cleanup(front.Close)
			cfg.Target = front.URL
			cfg.Profile = json.RawMessage(v.Profile)
			tags := ""
			if raceDetector {
				tags = v.Tags
			}
			sum, err := steps.Run(context.Background(), cfg, steps.Options{Concurrency: 4, Tags: tags})
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if sum.Counts[steps.Fail]+sum.Counts[steps.Error] > 0 {
				t.Errorf("%s through the proxy: %s", v.Name, sum.Line())
			}
			exchanges := 0
			for _, op := range px.Summary() {
				exchanges += op.Exchanges
			}
			if exchanges == 0 {
				t.Fatalf("%s: no exchange went through the proxy", v.Name)
			}
			for _, line := range log.lines() {
				var entry struct {
					Method, Path string
					Status       int
					Violations   []proxy.Violation
				}
				if err := json.Unmarshal(line, &entry); err != nil {
					t.Fatalf("proxy log line %s: %v", line, err)
				}
				for _, vi := range entry.Violations {
					if vi.Where == "response" && vi.Severity == proxy.Normative {
						t.Errorf("%s (%s): %s %s answered %d: the proxy judges %+v normative", v.Name, v.Choice, entry.Method, entry.Path, entry.Status, vi)
					}
				}
			}
		})
	}
}
