package steps_test

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/conform-kit/conform/features"
	"github.com/conform-kit/conform/steps"
)

// noopScenarios is the number of no-op scenarios mixed into the timed run.
const noopScenarios = 50

// featuresWithNoops copies the embedded features and adds a feature of
// scenarios whose only step sends nothing: godog's own per-scenario cost.
func featuresWithNoops(tb testing.TB) fs.FS {
	tb.Helper()
	m := fstest.MapFS{}
	err := fs.WalkDir(features.FS, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(features.FS, path)
		m[path] = &fstest.MapFile{Data: b}
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("@noop\nFeature: No-op scenarios\n  Scenarios that send nothing, to time godog itself.\n\n")
	for i := range noopScenarios {
		fmt.Fprintf(&b, "  Scenario: no-op scenario %d\n    Given I send no credentials\n\n", i)
	}
	m["zz_noop.feature"] = &fstest.MapFile{Data: []byte(b.String())}
	return m
}

// BenchmarkSuite runs the whole suite against the in-process reference, with
// no-op scenarios in the same run, and reports the wall time of a run, the mean
// wall time of a real scenario and of a no-op one (godog's per-scenario overhead:
// step matching against every precompiled pattern, hooks, formatter).
//
//	go test -run '^$' -bench BenchmarkSuite -benchtime 5x ./steps/
func BenchmarkSuite(b *testing.B) {
	cfg := startReference(b)
	fsys := featuresWithNoops(b)
	var real, noop time.Duration
	var nReal, nNoop int
	b.ResetTimer()
	for range b.N {
		sum, err := steps.Run(context.Background(), cfg, steps.Options{FS: fsys, Strict: true, Concurrency: 4, Seed: -1, Out: io.Discard})
		if err != nil || sum.Failed() {
			b.Fatalf("Run: %v; %s", err, sum.Line())
		}
		for _, r := range sum.Results {
			if strings.HasPrefix(r.Name, "no-op scenario") {
				noop, nNoop = noop+r.Duration, nNoop+1
			} else {
				real, nReal = real+r.Duration, nReal+1
			}
		}
	}
	b.ReportMetric(float64(nReal)/float64(b.N), "scenarios/run")
	b.ReportMetric(float64(real.Microseconds())/float64(nReal), "µs/scenario")
	b.ReportMetric(float64(noop.Microseconds())/float64(nNoop), "µs/noop-scenario")
}
