package steps_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/cucumber/godog"

	"github.com/conform-kit/conform/features"
	"github.com/conform-kit/conform/reference"
	"github.com/conform-kit/conform/steps"
	"github.com/conform-kit/conform/validate"
)

// startReference serves the reference in-process and returns the suite config for it.
func startReference(tb testing.TB) steps.Config {
	tb.Helper()
	ref, err := reference.New(reference.Config{ReviewDelay: 20 * time.Millisecond, RetryScale: 0.0001})
	if err != nil {
		tb.Fatalf("reference.New: %v", err)
	}
	srv := httptest.NewServer(ref)
	tb.Cleanup(func() {
		srv.Close()
		_ = ref.Close()
	})
	raw, err := json.Marshal(ref.Fixtures())
	if err != nil {
		tb.Fatalf("encode fixtures: %v", err)
	}
	var cfg steps.Config
	if err := json.Unmarshal(raw, &cfg); err != nil {
		tb.Fatalf("decode fixtures as steps.Config: %v", err)
	}
	cfg.Target = srv.URL
	cfg.WaitTimeout = 5 * time.Second
	return cfg
}

// TestFeatures runs every scenario against the reference: strict, concurrent, random order.
func TestFeatures(t *testing.T) {
	cfg := startReference(t)
	suite, err := steps.NewSuite(cfg, true)
	if err != nil {
		t.Fatalf("NewSuite: %v", err)
	}
	defer func() {
		c := time.Now()
		suite.Close()
		t.Logf("close %s", time.Since(c))
	}()
	start := time.Now()
	status := godog.TestSuite{
		Name:                "conform",
		ScenarioInitializer: suite.InitializeScenario,
		Options: &godog.Options{
			Format: "progress", Output: io.Discard, Paths: []string{"."},
			FS: features.FS, TestingT: t, Strict: true, Randomize: -1, Concurrency: 4,
		},
	}.Run()
	results := suite.Results()
	t.Logf("%d scenarios against the reference in %s", len(results), time.Since(start).Round(time.Millisecond))
	for _, r := range results {
		if r.Outcome != steps.Pass {
			t.Errorf("%s %s: %s (details above)", r.Outcome, r.Feature, r.Name)
		}
	}
	if status != 0 {
		t.Errorf("godog status %d, want 0", status)
	}
	checkCoverage(t, suite.Coverage())
}

// checkCoverage: every operation of the table answered at least one success and one refusal.
func checkCoverage(t *testing.T, cov map[string]steps.Coverage) {
	t.Helper()
	v, err := validate.New()
	if err != nil {
		t.Fatal(err)
	}
	for _, op := range v.Operations() {
		if c := cov[op.ID]; c.Successes == 0 || c.Refusals == 0 {
			t.Errorf("operation %s (%s): %d successes, %d refusals; want at least one of each", op.ID, op.Source, c.Successes, c.Refusals)
		}
	}
}

// TestRunSummary drives the public runner the CLI uses and checks its summary.
func TestRunSummary(t *testing.T) {
	cfg := startReference(t)
	sum, err := steps.Run(context.Background(), cfg, steps.Options{
		Tags: "@webhooks", Strict: true, Concurrency: 2, Seed: 7, Formats: []string{"progress"}, Out: io.Discard,
	})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if sum.Total() == 0 || sum.Failed() || sum.Counts[steps.Warn] != 0 {
		t.Errorf("Run(@webhooks) = %s, want only PASS", sum.Line())
	}
}

// TestMissingFixturesSkip runs against a config with only the target and the
// platform credentials: scenarios needing more are SKIPPED naming the key, none ERROR.
func TestMissingFixturesSkip(t *testing.T) {
	full := startReference(t)
	cfg := steps.Config{Target: full.Target, Credentials: steps.Credentials{Platform: full.Credentials.Platform}}
	sum, err := steps.Run(context.Background(), cfg, steps.Options{Concurrency: 4, Seed: 1, Out: io.Discard})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	t.Log(sum.Line())
	if sum.Counts[steps.Error] != 0 || sum.Counts[steps.Skip] == 0 {
		t.Errorf("partial config: %s, want SKIPs and no ERROR", sum.Line())
	}
	for _, r := range sum.Results {
		if r.Outcome == steps.Skip && !strings.Contains(strings.Join(r.Messages, " "), "is not configured") {
			t.Errorf("SKIP %s does not name the missing key: %v", r.Name, r.Messages)
		}
		if r.Outcome == steps.Error || r.Outcome == steps.Fail {
			t.Errorf("%s %s: %v", r.Outcome, r.Name, r.Messages)
		}
	}
}

// TestListOnly prints scenarios without running them.
func TestListOnly(t *testing.T) {
	out, err := os.CreateTemp(t.TempDir(), "list")
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	if err := steps.List(steps.Options{Tags: "@merchants", Out: out}); err != nil {
		t.Fatalf("List: %v", err)
	}
}
