package explore_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/conform-kit/conform/reference"
	"github.com/conform-kit/conform/reference/faults"
	"github.com/conform-kit/conform/steps/explore"
	"github.com/conform-kit/conform/steps/explore/suite"
)

// BenchmarkExploreDelayedTarget explores a reference that answers each
// request after 40 ms (a remote sandbox's round trip), on loopback, for
// three seconds, with one worker and with the default, and reports the
// requests per second of each: their ratio is what the workers buy.
//
//	go test -run '^$' -bench ExploreDelayedTarget -benchtime 1x ./steps/explore/
func BenchmarkExploreDelayedTarget(b *testing.B) {
	for _, bc := range []struct {
		name    string
		workers int
	}{{"workers=1", 1}, {"workers=default", 0}} {
		b.Run(bc.name, func(b *testing.B) {
			for range b.N {
				ref, h, err := faults.Serve(reference.Config{ReviewDelay: 20 * time.Millisecond, RetryScale: 0.0001}, nil)
				require.NoError(b, err)
				slow := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					time.Sleep(40 * time.Millisecond)
					h.ServeHTTP(w, r)
				})
				srv := httptest.NewServer(slow)
				res, err := explore.Run(context.Background(), explore.Options{Target: suite.Target(configOf(srv.URL, ref.Seeded())), Model: model,
					Seed: 1, Time: 3 * time.Second, Workers: bc.workers})
				srv.Close()
				_ = ref.Close()
				require.NoError(b, err)
				b.ReportMetric(float64(res.Requests)/res.Duration.Seconds(), "req/s")
			}
		})
	}
}

// BenchmarkExploreReference explores the bundled reference on loopback for
// five seconds with the default workers and reports the requests per second.
func BenchmarkExploreReference(b *testing.B) {
	for range b.N {
		cfg := serveFaults(b)
		res, err := explore.Run(context.Background(), explore.Options{Target: suite.Target(cfg), Model: model, Seed: 1, Time: 5 * time.Second})
		require.NoError(b, err)
		b.ReportMetric(float64(res.Requests)/res.Duration.Seconds(), "req/s")
	}
}
