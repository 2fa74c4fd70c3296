package steps

import (
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/cucumber/godog"
)

// BenchmarkNoopScenario times godog itself for scenarios that send nothing:
// initializeScenario (binding every precompiled pattern), step matching against
// all of them (strict, so every pattern is tried), hooks and the formatter.
// The suite is built once, outside the timed loop.
func BenchmarkNoopScenario(b *testing.B) {
	const n = 500
	// The only step sends nothing, so the target is never contacted.
	st, err := newSuite(Config{Target: "http://127.0.0.1:1"}, true)
	if err != nil {
		b.Fatal(err)
	}
	defer st.close()
	var sb strings.Builder
	sb.WriteString("Feature: No-op\n  Timing.\n\n")
	for i := range n {
		fmt.Fprintf(&sb, "  Scenario: no-op %d\n    Given I send no credentials\n\n", i)
	}
	fsys := fstest.MapFS{"noop.feature": &fstest.MapFile{Data: []byte(sb.String())}}
	b.ResetTimer()
	for range b.N {
		status := godog.TestSuite{
			ScenarioInitializer: st.initializeScenario,
			Options:             &godog.Options{Format: "progress", Output: io.Discard, Paths: []string{"."}, FS: fsys, Strict: true, Concurrency: 4},
		}.Run()
		if status != 0 {
			b.Fatalf("godog status %d", status)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*n), "µs/scenario")
}
