package steps_test

import (
	"context"
	"fmt"
	"io"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/cucumber/godog"

	"github.com/conform-kit/conform/features"
	"github.com/conform-kit/conform/reference"
	"github.com/conform-kit/conform/reference/faults"
	"github.com/conform-kit/conform/steps"
	"github.com/conform-kit/conform/validate"
)

// startReference serves the reference in-process, behind the named faults of
// the catalog if any, and returns the suite config for it.
func startReference(tb testing.TB, faultNames ...string) steps.Config {
	tb.Helper()
	ref, h, err := faults.Serve(reference.Config{ReviewDelay: 20 * time.Millisecond, RetryScale: 0.0001}, faultNames)
	if err != nil {
		tb.Fatalf("faults.Serve(%v): %v", faultNames, err)
	}
	srv := httptest.NewServer(h)
	tb.Cleanup(func() {
		srv.Close()
		_ = ref.Close()
	})
	cfg := referenceConfig(srv.URL, ref.Seeded())
	cfg.WaitTimeout = 5 * time.Second
	return cfg
}

// referenceConfig is the suite config for a reference serving at target, as
// cmd/conform maps it for "conform run" (its suiteConfig; tests cannot import cmd).
func referenceConfig(target string, seeded reference.Seeded) steps.Config {
	cred := func(c reference.Credential) *steps.Credential {
		return &steps.Credential{Username: c.Username, Password: c.Password}
	}
	ids := seeded.Fixtures
	return steps.Config{
		Target: target,
		Credentials: steps.Credentials{
			Platform: cred(seeded.Credentials.Platform), Merchant: cred(seeded.Credentials.Merchant),
			OtherApplication: cred(seeded.Credentials.OtherApplication),
		},
		Fixtures: steps.Fixtures{
			BuyerIdentity: ids.BuyerIdentity, Merchant: ids.Merchant, MerchantIdentity: ids.MerchantIdentity,
			PlainMerchant: ids.PlainMerchant, PlainMerchantIdentity: ids.PlainMerchantIdentity,
			SubscriptionSchedule: ids.SubscriptionSchedule, SubscriptionAmount: ids.SubscriptionAmount,
			Dispute: ids.Dispute, BalanceTransfer: ids.BalanceTransfer,
		},
	}
}

// TestFeatures runs every scenario against the reference: strict, concurrent, random order.
func TestFeatures(t *testing.T) {
	cfg := startReference(t)
	sum, err := steps.Run(context.Background(), cfg, steps.Options{Strict: true, Seed: -1, Concurrency: 4, Out: io.Discard})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	t.Logf("%d scenarios against the reference in %s", sum.Total(), sum.Duration.Round(time.Millisecond))
	want := scenarioCount(t, "")
	if sum.Total() != want {
		t.Errorf("Run judged %d scenarios, want all %d of the features", sum.Total(), want)
	}
	for _, r := range sum.Results {
		if r.Outcome != steps.Pass {
			t.Errorf("%s %s: %s: %s", r.Outcome, r.Feature, r.Name, strings.Join(r.Messages(), "; "))
		}
	}
	checkCoverage(t, sum.Coverage)
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
		if r.Outcome == steps.Skip && !strings.Contains(strings.Join(r.Messages(), " "), "is not configured") {
			t.Errorf("SKIP %s does not name the missing key: %v", r.Name, r.Messages())
		}
		if r.Outcome == steps.Error || r.Outcome == steps.Fail {
			t.Errorf("%s %s: %v", r.Outcome, r.Name, r.Messages())
		}
	}
}

// TestListOnly prints the selected scenarios, one a line, and runs none: the
// config has no usable target, so any run would fail.
func TestListOnly(t *testing.T) {
	var out strings.Builder
	sum, err := steps.Run(context.Background(), steps.Config{}, steps.Options{Tags: "@merchants", ListOnly: true, Out: &out})
	if err != nil {
		t.Fatalf("Run(ListOnly): %v", err)
	}
	if sum.Total() != 0 {
		t.Errorf("Run(ListOnly) judged %d scenarios, want 0", sum.Total())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	want := scenarioCount(t, "@merchants")
	var scenarios, sections []string
	for _, l := range lines {
		switch {
		case strings.Contains(l, ".feature:") && strings.Contains(l, " @merchants"):
			scenarios = append(scenarios, l)
		case strings.HasPrefix(l, "§"):
			sections = append(sections, l)
		}
	}
	if want == 0 || len(scenarios) != want {
		t.Fatalf("Run(ListOnly, @merchants) printed %d scenario lines, want %d:\n%s", len(scenarios), want, out.String())
	}
	if len(sections) == 0 || !strings.HasPrefix(sections[0], "§") || !strings.Contains(out.String(), "§4.4") {
		t.Errorf("no spec section × scenario table (want a row for §4.4):\n%s", out.String())
	}
	if got, wantLast := lines[len(lines)-1], fmt.Sprintf("conform: %d scenarios", want); got != wantLast {
		t.Errorf("last line %q, want %q", got, wantLast)
	}
}

// scenarioCount counts the scenarios of the embedded features that tags select.
func scenarioCount(t *testing.T, tags string) int {
	t.Helper()
	feats, err := godog.TestSuite{Options: &godog.Options{FS: features.FS, Paths: []string{"."}, Tags: tags}}.RetrieveFeatures()
	if err != nil {
		t.Fatalf("read features: %v", err)
	}
	n := 0
	for _, f := range feats {
		n += len(f.Pickles)
	}
	return n
}

// TestSeedReplaysOrder: the same seed starts the scenarios in the same order;
// another seed, in another.
func TestSeedReplaysOrder(t *testing.T) {
	cfg := startReference(t)
	order := func(seed int64) []string {
		sum, err := steps.Run(context.Background(), cfg, steps.Options{Tags: "@lists or @merchants", Concurrency: 1, Seed: seed, Strict: true})
		if err != nil {
			t.Fatalf("Run(seed %d): %v", seed, err)
		}
		if sum.Seed != seed || len(sum.Order) != sum.Total() || sum.Total() < 10 {
			t.Fatalf("Run(seed %d): seed %d, %d started for %d judged", seed, sum.Seed, len(sum.Order), sum.Total())
		}
		return sum.Order
	}
	first, again, other := order(7), order(7), order(8)
	if strings.Join(first, " ") != strings.Join(again, " ") {
		t.Errorf("seed 7 twice started scenarios in different orders:\n%v\n%v", first, again)
	}
	if strings.Join(first, " ") == strings.Join(other, " ") {
		t.Errorf("seeds 7 and 8 started scenarios in the same order: %v", first)
	}
}
