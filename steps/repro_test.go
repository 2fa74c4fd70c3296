package steps_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/conform-kit/conform/steps"
	"github.com/conform-kit/conform/steps/report"
)

// TestReproductionReplaysTheSetUp: the script of a failed stateful check
// replays its set-up, reads credentials from the environment and uses the ids
// its own requests create. Run against the same faulty reference, it
// reproduces the failure (the over-amount capture accepted) instead of
// hitting the original, already captured authorization.
func TestReproductionReplaysTheSetUp(t *testing.T) {
	cfg := startReference(t, "capture-over-amount-accepted")
	sum, err := steps.Run(context.Background(), cfg, steps.Options{Tags: "@authorizations", Concurrency: 2, Seed: 3})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	var failed *steps.ScenarioResult
	for i, r := range sum.Results {
		if r.Name == "a capture over the authorized amount is refused and changes nothing" {
			failed = &sum.Results[i]
		}
	}
	if failed == nil || failed.Outcome != steps.Fail {
		t.Fatalf("the over-amount capture scenario did not FAIL against the fault: %+v", failed)
	}
	script := failed.Reproduction
	for _, want := range []string{`-u "$CONFORM_USER:$CONFORM_PASSWORD"`, "id_1=$(curl", `'"${id_`, "-X PUT"} {
		if !strings.Contains(script, want) {
			t.Errorf("reproduction lacks %q:\n%s", want, script)
		}
	}
	if strings.Contains(script, cfg.Credentials.Platform.Password) {
		t.Errorf("reproduction carries the platform password:\n%s", script)
	}
	var check *report.Check
	for i, c := range failed.Verdicts {
		if c.Report.Kind == report.KindNormative {
			check = &failed.Verdicts[i].Report
		}
	}
	if check == nil || check.Exchange == nil || check.Exchange.Method != "PUT" || !strings.Contains(check.Curl, "$CONFORM_PASSWORD") {
		t.Errorf("the failed check does not carry its exchange and curl: %+v", check)
	}

	sh, errSh := exec.LookPath("sh")
	_, errJq := exec.LookPath("jq")
	_, errCurl := exec.LookPath("curl")
	if errSh != nil || errJq != nil || errCurl != nil {
		t.Skip("sh, curl or jq not installed: the script is checked, not run")
	}
	file := filepath.Join(t.TempDir(), "repro.sh")
	if err := os.WriteFile(file, []byte(script), 0o700); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, sh, file)
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "CONFORM_USER="+cfg.Credentials.Platform.Username, "CONFORM_PASSWORD="+cfg.Credentials.Platform.Password)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the reproduction script failed: %v\n%s\n%s", err, out, script)
	}
	last := string(out)
	if i := strings.LastIndex(last, "\n{"); i >= 0 {
		last = last[i:]
	}
	if strings.Contains(last, "UNPROCESSABLE_ENTITY") || strings.Contains(last, "NOT_FOUND") || strings.Contains(last, "Unauthorized") || !strings.Contains(last, `"captured_amount"`) && !strings.Contains(last, `"state"`) {
		t.Errorf("the replayed capture did not reproduce the accepted over-amount capture; last response:\n%s\nscript:\n%s", last, script)
	}
}
