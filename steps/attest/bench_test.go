package attest

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/conform-kit/conform/steps/report"
)

// bigRun is a run the size of the whole suite: n scenarios with steps, a
// failing check on every tenth.
func bigRun(n int) report.Run {
	run := sampleRun(false)
	for i := range n {
		s := report.Scenario{Feature: fmt.Sprintf("f%02d.feature", i%13), FeatureName: "F", Name: fmt.Sprintf("scenario number %d does what it says", i),
			Line: 10 + i, Outcome: report.Pass, Tags: []string{"@spec-4.1", "@transfers"}, Operations: []string{"transfers.create"}}
		for j := range 8 {
			s.Steps = append(s.Steps, report.Step{Keyword: "When ", Text: fmt.Sprintf("the platform user sends request %d with a body of some length", j), Status: "passed"})
		}
		if i%10 == 0 {
			s.Outcome = report.Warn
			s.Checks = []report.Check{{Kind: report.KindAssumed, Step: "Then", Clause: "4.1", Expected: "201", Observed: "200", Message: "status 200, want 201"}}
		}
		run.Scenarios = append(run.Scenarios, s)
	}
	run.Recount()
	return run
}

// BenchmarkAttest measures what --attest adds to a run of the whole suite's
// size: Build (every report read and digested, the features, the binary)
// and Sign, against the floor of writing the same reports (results file,
// JUnit, HTML). Interleaved rounds, medians; run with -benchtime 1x.
func BenchmarkAttest(b *testing.B) {
	dir := b.TempDir()
	run := bigRun(300)
	reports := []string{filepath.Join(dir, "results.json"), filepath.Join(dir, "conform.xml"), filepath.Join(dir, "conform.html")}
	writers := []func(io.Writer, report.Run) error{report.WriteResults, report.WriteJUnit, report.WriteHTML}
	private, _, err := GenerateKey()
	require.NoError(b, err)
	key, err := ParsePrivateKey(private)
	require.NoError(b, err)
	exe, err := os.Executable()
	require.NoError(b, err)
	writeReports := func() {
		for i, w := range writers {
			f, err := os.Create(reports[i])
			require.NoError(b, err)
			require.NoError(b, w(f, run))
			require.NoError(b, f.Close())
		}
	}
	var size int
	attest := func() {
		st, err := Build(Input{Run: run, RunID: "run-1", Reports: reports, Dir: dir, Config: []byte(`{}`), Version: "v0", Executable: exe})
		require.NoError(b, err)
		bundle, err := Sign(st, key)
		require.NoError(b, err)
		size = len(bundle)
		require.NoError(b, os.WriteFile(filepath.Join(dir, "conform.sigstore.json"), bundle, 0o644))
	}
	var floor, cost []time.Duration
	for b.Loop() {
		for range 15 {
			start := time.Now()
			writeReports()
			floor = append(floor, time.Since(start))
			start = time.Now()
			attest()
			cost = append(cost, time.Since(start))
		}
	}
	median := func(d []time.Duration) time.Duration { slices.Sort(d); return d[len(d)/2] }
	f, c := median(floor), median(cost)
	info, err := os.Stat(exe)
	require.NoError(b, err)
	b.ReportMetric(float64(f.Microseconds())/1000, "write-ms")
	b.ReportMetric(float64(c.Microseconds())/1000, "attest-ms")
	b.ReportMetric(float64(c)/float64(f), "attest/write")
	b.ReportMetric(float64(size), "bundle-bytes")
	b.ReportMetric(float64(info.Size())/1e6, "binary-MB")
}
