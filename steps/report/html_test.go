package report_test

import (
	"bytes"
	"context"
	"fmt"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/conform-kit/conform/steps/report"
)

func writeHTML(t *testing.T, run report.Run) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := report.WriteHTML(&buf, run); err != nil {
		t.Fatalf("WriteHTML: %v", err)
	}
	return buf.Bytes()
}

// bigRun has n scenarios over 12 features; every failing one (one in
// failEvery) carries a long masked exchange.
func bigRun(n, failEvery int) report.Run {
	body := `{"amount":1000,"tags":{"pad":"` + strings.Repeat("x", 8000) + `"}}`
	run := report.Run{Tool: "conform", Target: "https://sandbox.example", Seed: 7, Duration: 60000}
	for i := range n {
		s := report.Scenario{
			Feature: fmt.Sprintf("feature%02d.feature", i%12), FeatureName: fmt.Sprintf("Feature %d", i%12),
			Name: fmt.Sprintf("scenario number %d checks one clause of the contract", i), Line: i + 1,
			Tags: []string{fmt.Sprintf("@spec-%d.%d", 2+i%6, i%13)}, Outcome: report.Pass, Duration: 3,
		}
		if i%failEvery == 0 {
			s.Outcome = report.Fail
			s.Checks = []report.Check{{Kind: report.KindNormative, Step: "the request succeeds",
				Message:  fmt.Sprintf("POST /transfers as platform: status 500, want 2xx (scenario %d)", i),
				Exchange: &report.Exchange{Method: "POST", URL: "https://sandbox.example/transfers", RequestBody: body, Status: 500, ResponseBody: body},
				Curl:     `curl -sS -X POST 'https://sandbox.example/transfers' -u "$CONFORM_USER:$CONFORM_PASSWORD" --data-raw '` + body + `'`}}
			s.Reproduction = "#!/bin/sh\n" + strings.Repeat("curl -sS https://sandbox.example/x\n", 5)
		}
		run.Scenarios = append(run.Scenarios, s)
	}
	run.Recount()
	return run
}

func TestHTMLSelfContainedAndSmall(t *testing.T) {
	for name, run := range map[string]report.Run{
		"500 scenarios, a quarter failing": bigRun(500, 4),
		"500 scenarios, all failing":       bigRun(500, 1),
	} {
		page := writeHTML(t, run)
		if len(page) >= 2<<20 {
			t.Errorf("%s: HTML report is %d bytes, want under 2 MB", name, len(page))
		}
		for _, external := range []string{"<script", "<link", "src=", "href=", "@import", "url("} {
			if bytes.Contains(page, []byte(external)) {
				t.Errorf("%s: HTML report contains %q: it must need no external asset", name, external)
			}
		}
	}
}

// renderedText renders page in headless Chromium and returns the text of
// the resulting DOM, tags stripped and entities decoded.
func renderedText(t *testing.T, page []byte) string {
	t.Helper()
	browser := ""
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			browser = p
			break
		}
	}
	if browser == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("no headless Chromium installed (Debian: apt-get install chromium); .ci/run installs it")
		}
		t.Skip("no headless Chromium installed (Debian: apt-get install chromium)")
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "report.html")
	if err := os.WriteFile(file, page, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	// A local file needs no network: the flags keep Chromium from reaching
	// out on its own (updates, sync, background requests).
	cmd := exec.CommandContext(ctx, browser, "--headless", "--no-sandbox", "--disable-gpu",
		"--disable-quic", "--no-first-run", "--disable-background-networking",
		"--disable-component-update", "--disable-sync",
		"--user-data-dir="+filepath.Join(dir, "profile"), "--dump-dom", "file://"+file)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	dom, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s --dump-dom: %v\n%s", browser, err, stderr.String())
	}
	if !bytes.Contains(dom, []byte("</body>")) {
		t.Fatalf("Chromium rendered no document: %.300s\n%s", dom, stderr.String())
	}
	text := regexp.MustCompile(`(?s)<style.*?</style>|<[^>]*>`).ReplaceAllString(string(dom), " ")
	return strings.Join(strings.Fields(html.UnescapeString(text)), " ")
}

// TestHTMLInChromium renders the report in a real browser and reads it back:
// the summary first, then the matrix, then each failure with its evidence.
func TestHTMLInChromium(t *testing.T) {
	run := sampleRun()
	run.Operations = []report.Operation{{ID: "transfers.create", Source: "spec", Successes: 3, Refusals: 1}}
	run.Scenarios[4].Operations = []string{"transfers.create"}
	run.Notes = []string{"0 webhook deliveries arrived in this run: check webhook_receiver.public_url"}
	text := renderedText(t, writeHTML(t, run))
	want := []string{
		"target http://127.0.0.1:1 seed 42 duration 1.234 s",
		"5 scenarios: not conformant",
		"1 PASS 1 FAIL 1 WARN 1 SKIP 1 ERROR",
		"0 webhook deliveries arrived in this run",
		"Spec sections × outcome",
		"§4.1 0 1 1 0 0 2",
		"FAIL a capture over the amount is refused",
		"status 200, want a refusal (4xx) <&>",
		"expected 4xx observed 200",
		`request PUT http://127.0.0.1:1/authorizations/AUxyz as platform {"capture_amount":1200}`,
		`-u "$CONFORM_USER:$CONFORM_PASSWORD"`,
		"WARN a capture is 200",
		"status.capture",
		"fixtures.dispute is not configured",
		"transfers.create spec 3 1 1 0 0 0 0",
	}
	rest := text
	for _, w := range want {
		i := strings.Index(rest, w)
		if i < 0 {
			t.Errorf("rendered report lacks %q after the parts before it\nrendered text: %.4000s", w, text)
			continue
		}
		rest = rest[i+len(w):]
	}
}

// TestHTMLGroupsACauseAndCountsTheRest: one assumed choice (a sale answered
// 200, not 201) WARNed in scenarios of many spec sections is one row of
// the causes, not a row per section; its scenario list, longer than fits,
// ends "and N more" rather than mid-name. Rendered in headless Chromium.
func TestHTMLGroupsACauseAndCountsTheRest(t *testing.T) {
	sections := []string{"1", "2.2", "2.7", "2.12", "2.13", "3.3", "4.1", "4.2", "4.4", "4.6", "4.9", "4.10", "5", "6", "7"}
	run := report.Run{Tool: "conform", Target: "http://127.0.0.1:1", Seed: 1}
	const n = 40
	for i := range n {
		sec := sections[i%len(sections)]
		run.Scenarios = append(run.Scenarios, report.Scenario{
			Feature: "transfers.feature", FeatureName: "Transfers", Line: 10 + i, Outcome: report.Warn,
			Name: fmt.Sprintf("a sale made as set-up of a scenario of section %s", sec), Tags: []string{"@spec-" + sec},
			Checks: []report.Check{{Kind: report.KindAssumed, Clauses: []string{sec}, Clause: sec, ProfileKey: "create_status",
				Expected: "201", Observed: "200", Operation: "transfers.create",
				Message: "POST /transfers as platform: status 200, want 201 (transfers.create)", Detail: "status 200, want 201 (transfers.create)"}},
		})
	}
	run.Recount()
	causes := run.Causes()
	if len(causes) != 1 || len(causes[0].Scenarios) != n {
		t.Fatalf("Causes() = %d causes (%+v), want one of %d scenarios", len(causes), causes, n)
	}
	if got := strings.Join(causes[0].Clauses, " "); got != strings.Join(sections, " ") {
		t.Errorf("the cause's clauses = %s, want every section it failed in, in order: %s", got, strings.Join(sections, " "))
	}
	page := writeHTML(t, run)
	table := string(page)
	table = table[strings.Index(table, `id="causes"`):]
	table = table[:strings.Index(table, "</table>")]
	if rows := strings.Count(table, `<tr><td><span class="tag warn">`); rows != 1 {
		t.Errorf("the causes table has %d WARN rows, want 1", rows)
	}
	text := renderedText(t, page)
	more := regexp.MustCompile(`transfers\.feature:1\d(, transfers\.feature:\d\d)* and (\d+) more`).FindStringSubmatch(text)
	if more == nil {
		t.Fatalf("the cause's scenario list does not end \"and N more\":\n%.3000s", text)
	}
	shown := strings.Count(more[0], "transfers.feature:")
	if want := fmt.Sprint(n - shown); more[2] != want {
		t.Errorf("%q: %s more, want %s", more[0], more[2], want)
	}
}
