package main

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/conform-kit/conform/reference"
	"github.com/conform-kit/conform/reference/faults"
	results "github.com/conform-kit/conform/steps/report"
)

// serveReference serves the reference (with faults) over HTTP and writes a
// config file for it; keep lists the credential keys to keep ("" keeps all)
// and fixtures whether to keep the fixtures.
func serveReference(t *testing.T, faultNames []string, keep []string, fixtures bool) (string, string) {
	t.Helper()
	ref, handler, err := faults.Serve(reference.Config{ReviewDelay: 20 * time.Millisecond, RetryScale: 0.0001}, faultNames)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(handler)
	t.Cleanup(func() {
		srv.Close()
		_ = ref.Close()
	})
	raw, err := json.Marshal(suiteConfig(srv.URL, ref.Seeded()))
	if err != nil {
		t.Fatal(err)
	}
	var cfg map[string]any
	if err := json.Unmarshal(raw, &cfg); err != nil {
		t.Fatal(err)
	}
	if keep != nil {
		creds, _ := cfg["credentials"].(map[string]any)
		kept := map[string]any{}
		for _, k := range keep {
			kept[k] = creds[k]
		}
		cfg["credentials"] = kept
	}
	if !fixtures {
		delete(cfg, "fixtures")
	}
	path := filepath.Join(t.TempDir(), "conform.json")
	raw, err = json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	return srv.URL, path
}

// TestRunRefusesWhatItCannotTest: a target the suite cannot test, or a run
// that would test nothing, is exit 2 with one line that says why.
func TestRunRefusesWhatItCannotTest(t *testing.T) {
	_, full := serveReference(t, nil, nil, true)
	_, noCreds := serveReference(t, nil, []string{}, true)
	_, platformOnly := serveReference(t, nil, []string{"platform"}, false)

	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := "http://" + closed.Addr().String()

	notAPI := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte("<html><body>" + strings.Repeat("<p>not found</p>", 500) + "</body></html>"))
	}))
	defer notAPI.Close()

	hang := make(chan struct{})
	silent := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { <-hang }))
	defer silent.Close()
	defer close(hang)
	// Closed only now, so neither server above can be given its port.
	closed.Close()

	tests := []struct {
		name    string
		args    []string
		wantErr string
	}{
		{"no credentials", []string{"--config", noCreds}, "no platform credentials: set CONFORM_USER and CONFORM_PASSWORD"},
		{"wrong password", []string{"--config", full, "--password", "not-it"}, "refused the platform credentials"},
		{"connection refused", []string{"--target", refused, "--user", "u", "--password", "p"}, "refused the connection"},
		{"not this API", []string{"--target", notAPI.URL, "--user", "u", "--password", "p"}, "does not speak the Payments Service API: GET /disputes?limit=1 without credentials answered 404 text/html"},
		{"a socket that never answers", []string{"--target", silent.URL, "--user", "u", "--password", "p", "--timeout", "300ms"}, "did not answer within 300ms"},
		{"bad tag expression", []string{"--config", full, "--tags", "@transfers &&"}, `tag expression "@transfers &&": expected a tag after "&&"`},
		{"empty selection", []string{"--config", full, "--tags", "@transfers and @webhooks and not @transfers"}, "selects no scenario"},
		{"every scenario skipped", []string{"--config", platformOnly, "--tags", "@level3"}, "every one of the"},
		{"two reports on stdout", []string{"--config", full, "--format", "junit,html"}, "only one report can go to standard output"},
		{"unknown format", []string{"--config", full, "--format", "xml:out.xml"}, `unknown format "xml"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			code, out, errOut := run(t, "", append([]string{"run"}, tt.args...)...)
			if code != exitUsage {
				t.Fatalf("conform run %v: exit %d, want 2\nstdout: %.500s\nstderr: %.500s", tt.args, code, out, errOut)
			}
			lines := strings.Split(strings.TrimSpace(errOut), "\n")
			last := lines[len(lines)-1]
			if !strings.Contains(last, tt.wantErr) {
				t.Errorf("last stderr line %q, want it to contain %q", last, tt.wantErr)
			}
			if tt.name != "every scenario skipped" && len(lines)+strings.Count(out, "\n") > 2 {
				t.Errorf("conform run %v printed %d lines, want one line that says why:\n%s%s", tt.args, len(lines)+strings.Count(out, "\n"), out, errOut)
			}
			if d := time.Since(start); d > 30*time.Second {
				t.Errorf("conform run %v took %s to give up", tt.args, d)
			}
		})
	}
}

// TestRunWholeSuite runs every scenario against the bundled reference at the
// default concurrency and at 32: both green, every time (a delivery the
// receiver drops would fail a webhook scenario).
func TestRunWholeSuite(t *testing.T) {
	for _, concurrency := range []string{"0", "32"} {
		t.Run("concurrency "+concurrency, func(t *testing.T) {
			dir := t.TempDir()
			resultsFile := filepath.Join(dir, "results.json")
			code, out, errOut := run(t, "", "run", "--concurrency", concurrency, "--format", "progress,json:"+resultsFile)
			if code != exitOK {
				t.Fatalf("conform run --concurrency %s: exit %d, want 0\n%s\n%s", concurrency, code, out, errOut)
			}
			got, err := results.ReadResultsFile(resultsFile)
			if err != nil {
				t.Fatal(err)
			}
			if got.Total() < 250 || got.Counts[results.Pass] != got.Total() {
				t.Errorf("results file: %d scenarios, %v; want every scenario PASS", got.Total(), got.Counts)
			}
		})
	}
}

// TestRunReportsAgainstAFaultyTarget: a live target with an assumed choice
// of its own (403 instead of 401) and a partial config. WARN and SKIP show in
// every report, the run exits 0 (WARN is not a failure unless --strict), and
// --rerun-failed runs exactly the WARN scenarios again.
func TestRunReportsAgainstAFaultyTarget(t *testing.T) {
	_, cfg := serveReference(t, []string{"unauthenticated-answered-403"}, []string{"platform"}, true)
	dir := t.TempDir()
	junit, resultsFile, html := filepath.Join(dir, "junit.xml"), filepath.Join(dir, "results.json"), filepath.Join(dir, "results.html")
	code, out, errOut := run(t, "", "run", "--config", cfg, "--tags", "@authentication or @disputes",
		"--format", "junit:"+junit+",json:"+resultsFile+",html:"+html)
	if code != exitOK {
		t.Fatalf("exit %d, want 0 (WARN and SKIP only)\n%s\n%s", code, out, errOut)
	}
	run1, err := results.ReadResultsFile(resultsFile)
	if err != nil {
		t.Fatal(err)
	}
	warns, skips := run1.Counts[results.Warn], run1.Counts[results.Skip]
	if warns == 0 || skips == 0 || run1.Counts[results.Fail] != 0 {
		t.Fatalf("counts %v, want WARN and SKIP and no FAIL", run1.Counts)
	}
	if !strings.Contains(out, fmt.Sprintf("refusals.unauthenticated  401 UNKNOWN  403 UNKNOWN  %d:", warns)) {
		t.Errorf("console output does not group the WARN cause in the table of differences:\n%s", out)
	}

	raw, err := os.ReadFile(junit)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Suites []struct {
			Properties []struct {
				Name  string `xml:"name,attr"`
				Value string `xml:"value,attr"`
			} `xml:"properties>property"`
			Cases []struct {
				Skipped *struct {
					Message string `xml:"message,attr"`
				} `xml:"skipped"`
				Out string `xml:"system-out"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(raw, &doc); err != nil {
		t.Fatalf("JUnit: %v", err)
	}
	var junitWarn, junitSkip, warnProp int
	for _, s := range doc.Suites {
		for _, p := range s.Properties {
			if p.Name == "outcome.WARN" {
				var n int
				_ = json.Unmarshal([]byte(p.Value), &n)
				warnProp += n
			}
		}
		for _, c := range s.Cases {
			if strings.HasPrefix(c.Out, "WARN:") {
				junitWarn++
			}
			if c.Skipped != nil {
				junitSkip++
				if !strings.HasSuffix(c.Skipped.Message, "is not configured") {
					t.Errorf("skipped message %q does not name the missing key", c.Skipped.Message)
				}
			}
		}
	}
	if junitWarn != warns || warnProp != warns || junitSkip != skips {
		t.Errorf("JUnit shows %d WARN (property %d) and %d skipped, want %d and %d", junitWarn, warnProp, junitSkip, warns, skips)
	}
	if page, err := os.ReadFile(html); err != nil || !strings.Contains(string(page), "conformant, with assumptions that differ") {
		t.Errorf("HTML report missing or without its verdict (err %v)", err)
	}

	// Run again only what did not pass.
	rerun := filepath.Join(dir, "rerun.json")
	code, out, errOut = run(t, "", "run", "--config", cfg, "--rerun-failed", resultsFile, "--format", "json:"+rerun)
	if code != exitOK {
		t.Fatalf("--rerun-failed: exit %d\n%s\n%s", code, out, errOut)
	}
	run2, err := results.ReadResultsFile(rerun)
	if err != nil {
		t.Fatal(err)
	}
	if run2.Total() != warns || run2.Counts[results.Warn] != warns {
		t.Errorf("--rerun-failed ran %d scenarios (%v), want the %d WARN ones", run2.Total(), run2.Counts, warns)
	}
}

// TestRunReportOnStdout: a report without a file owns standard output; the
// progress and the summary go to standard error.
func TestRunReportOnStdout(t *testing.T) {
	code, out, errOut := run(t, "", "run", "--tags", "@merchants", "--format", "progress,junit")
	if code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	if !strings.HasPrefix(out, "<?xml") || !strings.HasSuffix(strings.TrimSpace(out), "</testsuites>") {
		t.Errorf("stdout is not only the JUnit document: %.200q … %.200q", out, out[max(0, len(out)-200):])
	}
	var doc struct {
		Tests int `xml:"tests,attr"`
	}
	if err := xml.Unmarshal([]byte(out), &doc); err != nil || doc.Tests == 0 {
		t.Errorf("stdout JUnit: %v, %d tests", err, doc.Tests)
	}
	if !strings.Contains(errOut, "conform: ") || !strings.Contains(errOut, " PASS, 0 FAIL") {
		t.Errorf("stderr lacks the summary line: %s", errOut)
	}
}

// TestBundledReferenceWaitsForALateRequest: the bundled reference reads a
// request whose headers arrive late (here 6 s after the connection, past
// the 5 s it allowed before) and answers it: a client starved on a loaded
// machine that writes its request late gets an answer, not EOF. Its bound
// is never below the kit's own wait for an answer.
func TestBundledReferenceWaitsForALateRequest(t *testing.T) {
	assert.GreaterOrEqual(t, bundledHeaderBound(0), 10*time.Second, "the kit's default request timeout")
	assert.Equal(t, time.Minute, bundledHeaderBound(time.Minute))
	stop, cfg, err := startBundledReference(0)
	require.NoError(t, err)
	t.Cleanup(stop)
	u, err := url.Parse(cfg.Target)
	require.NoError(t, err)
	conn, err := net.Dial("tcp", u.Host)
	require.NoError(t, err)
	defer conn.Close()
	<-time.After(6 * time.Second) // the request's headers come late
	require.NoError(t, conn.SetDeadline(time.Now().Add(10*time.Second)))
	_, err = fmt.Fprintf(conn, "GET /webhooks HTTP/1.1\r\nHost: %s\r\nAuthorization: Basic %s\r\nConnection: close\r\n\r\n", u.Host,
		base64.StdEncoding.EncodeToString([]byte(cfg.Credentials.Platform.Username+":"+cfg.Credentials.Platform.Password)))
	require.NoError(t, err)
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	require.NoError(t, err, "the late request got no answer: the connection was closed")
	defer resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
}
