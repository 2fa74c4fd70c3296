package report_test

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/conform-kit/conform/steps/report"
)

// sampleRun has every outcome, text that needs escaping in XML and HTML, a
// control character and a negative duration (clock skew must not leak out).
func sampleRun() report.Run {
	ex := &report.Exchange{Method: "PUT", URL: "http://127.0.0.1:1/authorizations/AUxyz", User: "platform",
		RequestBody: `{"capture_amount":1200}`, Status: 200, ResponseBody: `{"state":"SUCCEEDED","amount":1000}`}
	run := report.Run{
		Tool: "conform", Target: "http://127.0.0.1:1", Seed: 42, Concurrency: 2, Tags: "not @slow",
		Started:  time.Date(2026, 11, 23, 13, 0, 0, 0, time.UTC),
		Duration: 1234.5,
		Scenarios: []report.Scenario{
			{Feature: "authorizations.feature", FeatureName: "Authorizations", Name: "a capture over the amount is refused",
				Line: 12, Tags: []string{"@authorizations", "@spec-4.1", "@spec-7"}, Outcome: report.Fail, Duration: 12.5,
				Checks: []report.Check{{Kind: report.KindNormative, Step: "the request is refused", Clause: "4.1",
					Message:  "PUT /authorizations/AUxyz as platform: status 200, want a refusal (4xx) <&> \x01",
					Expected: "4xx", Observed: "200", Exchange: ex, Curl: `curl -sS -X PUT 'http://127.0.0.1:1/authorizations/AUxyz' -u "$CONFORM_USER:$CONFORM_PASSWORD"`}},
				Steps: []report.Step{
					{Keyword: "Given ", Text: "an authorization of 1000 cents", Line: 13, Status: report.StepPassed, Duration: 3},
					{Keyword: "When ", Text: "I capture 1200 cents", Line: 14, Status: report.StepPassed, Duration: 3},
					{Keyword: "Then ", Text: "the request is refused", Line: 15, Status: report.StepFailed, Duration: 1, Message: "status 200"},
				}},
			{Feature: "authorizations.feature", FeatureName: "Authorizations", Name: "a capture is 200",
				Line: 20, Tags: []string{"@authorizations", "@spec-4.1"}, Outcome: report.Warn, Duration: -5,
				Checks: []report.Check{{Kind: report.KindAssumed, Step: "the request succeeds", ProfileKey: "status.capture",
					Expected: "200", Observed: "201", Message: "PUT /authorizations/AUabc: status 201, want 200"}},
				Steps: []report.Step{{Keyword: "Then ", Text: "the request succeeds", Line: 21, Status: report.StepWarned, Message: "status 201, want 200"}}},
			{Feature: "disputes.feature", FeatureName: "Disputes", Name: "a dispute lists its evidence",
				Line: 5, Tags: []string{"@disputes", "@spec-4.8"}, Outcome: report.Skip,
				Checks: []report.Check{{Kind: report.KindSkip, Message: "fixtures.dispute is not configured"}}},
			{Feature: "disputes.feature", FeatureName: "Disputes", Name: "evidence upload",
				Line: 9, Tags: []string{"@disputes"}, Outcome: report.Error,
				Checks: []report.Check{{Kind: report.KindKit, Message: "POST /disputes/DIx/evidence: dial tcp: connection refused"}}},
			{Feature: "transfers.feature", FeatureName: "Transfers", Name: "a sale succeeds",
				Line: 3, Tags: []string{"@transfers", "@spec-4.2"}, Outcome: report.Pass, Duration: 2},
		},
	}
	run.Recount()
	return run
}

func writeJUnit(t *testing.T, run report.Run) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := report.WriteJUnit(&buf, run); err != nil {
		t.Fatalf("WriteJUnit: %v", err)
	}
	return buf.Bytes()
}

// TestJUnitAgainstXSD validates the JUnit report with xmllint against the
// junit-10.xsd that CI servers use (Jenkins' schema, MIT licensed, kept in
// testdata/junit-10.xsd with its licence).
func TestJUnitAgainstXSD(t *testing.T) {
	xsd := filepath.Join("testdata", "junit-10.xsd")
	if _, err := os.Stat(xsd); err != nil {
		t.Fatalf("junit-10.xsd: %v", err)
	}
	xmllint, err := exec.LookPath("xmllint")
	if err != nil {
		t.Skip("xmllint not installed (Debian: libxml2-utils)")
	}
	for name, run := range map[string]report.Run{"every outcome": sampleRun(), "empty run": {Tool: "conform"}} {
		t.Run(name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "junit.xml")
			if err := os.WriteFile(file, writeJUnit(t, run), 0o600); err != nil {
				t.Fatal(err)
			}
			out, err := exec.Command(xmllint, "--noout", "--schema", xsd, file).CombinedOutput()
			if err != nil {
				t.Fatalf("xmllint --schema junit-10.xsd: %v\n%s", err, out)
			}
		})
	}
}

// junitDoc mirrors junit-10.xsd closely enough to check structure without xmllint.
type junitDoc struct {
	XMLName  xml.Name `xml:"testsuites"`
	Tests    string   `xml:"tests,attr"`
	Failures string   `xml:"failures,attr"`
	Errors   string   `xml:"errors,attr"`
	Time     string   `xml:"time,attr"`
	Suites   []struct {
		Name       *string `xml:"name,attr"`
		Tests      *string `xml:"tests,attr"`
		Failures   *string `xml:"failures,attr"`
		Errors     *string `xml:"errors,attr"`
		Skipped    string  `xml:"skipped,attr"`
		Time       string  `xml:"time,attr"`
		Properties []struct {
			Name  *string `xml:"name,attr"`
			Value *string `xml:"value,attr"`
		} `xml:"properties>property"`
		Cases []struct {
			Name      *string `xml:"name,attr"`
			Classname string  `xml:"classname,attr"`
			Time      string  `xml:"time,attr"`
			Group     string  `xml:"group,attr"`
			Any       []struct {
				XMLName xml.Name
				Message string `xml:"message,attr"`
				Type    string `xml:"type,attr"`
				Text    string `xml:",chardata"`
			} `xml:",any"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

// surefireTime is junit-10.xsd's SUREFIRE_TIME pattern, anchored.
var surefireTime = regexp.MustCompile(`^(([0-9]{0,3},)*[0-9]{3}|[0-9]{0,3})*(\.[0-9]*)?$`)

// TestJUnitStructure checks what the XSD checks, and the outcomes, in Go.
func TestJUnitStructure(t *testing.T) {
	raw := writeJUnit(t, sampleRun())
	if !bytes.HasPrefix(raw, []byte(xml.Header)) {
		t.Errorf("JUnit does not start with the XML header: %.60q", raw)
	}
	var doc junitDoc
	if err := xml.Unmarshal(raw, &doc); err != nil {
		t.Fatalf("JUnit is not well-formed XML: %v", err)
	}
	if doc.Tests != "5" || doc.Failures != "1" || doc.Errors != "1" {
		t.Errorf("testsuites tests/failures/errors = %s/%s/%s, want 5/1/1", doc.Tests, doc.Failures, doc.Errors)
	}
	if !surefireTime.MatchString(doc.Time) || doc.Time != "1.234" {
		t.Errorf("testsuites time %q, want 1.234 (SUREFIRE_TIME)", doc.Time)
	}
	children := map[string]bool{"skipped": true, "error": true, "failure": true, "system-out": true, "system-err": true}
	got := map[string]string{} // scenario name → its outcome element
	props := map[string]string{}
	for _, s := range doc.Suites {
		if s.Name == nil || s.Tests == nil || s.Failures == nil || s.Errors == nil {
			t.Errorf("testsuite lacks a required attribute (name, tests, failures, errors)")
			continue
		}
		if !surefireTime.MatchString(s.Time) || strings.HasPrefix(s.Time, "-") {
			t.Errorf("testsuite %s time %q is not a SUREFIRE_TIME", *s.Name, s.Time)
		}
		for _, p := range s.Properties {
			if p.Name == nil || p.Value == nil {
				t.Errorf("testsuite %s: property without name or value", *s.Name)
				continue
			}
			props[*s.Name+" "+*p.Name] = *p.Value
		}
		for _, c := range s.Cases {
			if c.Name == nil {
				t.Errorf("testcase without name in %s", *s.Name)
				continue
			}
			if !surefireTime.MatchString(c.Time) {
				t.Errorf("testcase %s time %q is not a SUREFIRE_TIME", *c.Name, c.Time)
			}
			for _, el := range c.Any {
				if !children[el.XMLName.Local] {
					t.Errorf("testcase %s has <%s>, which junit-10.xsd does not allow", *c.Name, el.XMLName.Local)
				}
				if el.XMLName.Local != "system-out" {
					got[*c.Name] += el.XMLName.Local + ":" + el.Message
				} else if strings.HasPrefix(el.Text, "WARN:") {
					got[*c.Name] += el.Text
				}
			}
			if *c.Name == "a capture over the amount is refused" && c.Group != "§4.1 §7" {
				t.Errorf("testcase group %q, want the spec sections §4.1 §7", c.Group)
			}
		}
	}
	want := map[string]string{
		"a capture over the amount is refused": "failure:PUT /authorizations/AUxyz as platform: status 200, want a refusal (4xx) <&> \uFFFD",
		"a dispute lists its evidence":         "skipped:fixtures.dispute is not configured",
		"evidence upload":                      "error:POST /disputes/DIx/evidence: dial tcp: connection refused",
	}
	for name, w := range want {
		if got[name] != w {
			t.Errorf("testcase %q: %q, want %q", name, got[name], w)
		}
	}
	if !strings.HasPrefix(got["a capture is 200"], "WARN: only assumed checks failed") || !strings.Contains(got["a capture is 200"], "[status.capture]") {
		t.Errorf("WARN testcase: system-out %q, want the warning and its profile key", got["a capture is 200"])
	}
	if got["a sale succeeds"] != "" {
		t.Errorf("PASS testcase has %q, want no outcome element", got["a sale succeeds"])
	}
	for key, want := range map[string]string{
		"Authorizations outcome.WARN": "1", "Authorizations outcome.FAIL": "1", "Authorizations spec §4.1": "1 FAIL, 1 WARN",
		"Authorizations seed": "42", "Disputes outcome.SKIP": "1", "Transfers target": "http://127.0.0.1:1",
	} {
		if props[key] != want {
			t.Errorf("property %q = %q, want %q", key, props[key], want)
		}
	}
}

// TestResultsRoundTrip: every report written from a results file read back is
// the report written from the run itself.
func TestResultsRoundTrip(t *testing.T) {
	run := sampleRun()
	var file bytes.Buffer
	if err := report.WriteResults(&file, run); err != nil {
		t.Fatal(err)
	}
	back, err := report.ReadResults(bytes.NewReader(file.Bytes()))
	if err != nil {
		t.Fatalf("ReadResults: %v", err)
	}
	writers := map[string]func(*bytes.Buffer, report.Run) error{
		"junit":    func(b *bytes.Buffer, r report.Run) error { return report.WriteJUnit(b, r) },
		"cucumber": func(b *bytes.Buffer, r report.Run) error { return report.WriteCucumber(b, r) },
		"html":     func(b *bytes.Buffer, r report.Run) error { return report.WriteHTML(b, r) },
		"results":  func(b *bytes.Buffer, r report.Run) error { return report.WriteResults(b, r) },
	}
	for name, write := range writers {
		var a, b bytes.Buffer
		if err := write(&a, run); err != nil {
			t.Fatalf("%s from the run: %v", name, err)
		}
		if err := write(&b, back); err != nil {
			t.Fatalf("%s from the results file: %v", name, err)
		}
		if !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Errorf("%s written from the results file differs from the one written from the run", name)
		}
	}
	refs := back.Unsettled()
	if len(refs) != 3 || refs[0].Name != "a capture over the amount is refused" || refs[2].Name != "evidence upload" {
		t.Errorf("Unsettled() = %+v, want the FAIL, WARN and ERROR scenarios", refs)
	}
}

func TestReadResultsRefusesOtherFiles(t *testing.T) {
	for name, in := range map[string]string{
		"not JSON":      "<testsuites/>",
		"other version": `{"conform_results": 99, "scenarios": []}`,
		"cucumber JSON": `[{"uri": "a.feature"}]`,
	} {
		if _, err := report.ReadResults(strings.NewReader(in)); !errors.Is(err, report.ErrNotResults) {
			t.Errorf("%s: ReadResults error %v, want ErrNotResults", name, err)
		}
	}
}

// TestCucumberOutcomes: every outcome survives in cucumber JSON.
func TestCucumberOutcomes(t *testing.T) {
	var buf bytes.Buffer
	if err := report.WriteCucumber(&buf, sampleRun()); err != nil {
		t.Fatal(err)
	}
	var feats []struct {
		URI      string `json:"uri"`
		Elements []struct {
			Name string `json:"name"`
			Tags []struct {
				Name string `json:"name"`
			} `json:"tags"`
			Steps []struct {
				Result struct {
					Status   string `json:"status"`
					Duration int64  `json:"duration"`
					Error    string `json:"error_message"`
				} `json:"result"`
			} `json:"steps"`
		} `json:"elements"`
	}
	if err := json.Unmarshal(buf.Bytes(), &feats); err != nil {
		t.Fatalf("cucumber JSON does not decode: %v", err)
	}
	got := map[string]string{}
	for _, f := range feats {
		for _, el := range f.Elements {
			var statuses []string
			for _, st := range el.Steps {
				statuses = append(statuses, st.Result.Status)
				if st.Result.Duration < 0 {
					t.Errorf("%s: negative step duration %d", el.Name, st.Result.Duration)
				}
				if st.Result.Status == "pending" && !strings.HasPrefix(st.Result.Error, "WARN: ") {
					t.Errorf("%s: pending step without its warning: %q", el.Name, st.Result.Error)
				}
			}
			tag := el.Tags[len(el.Tags)-1].Name
			got[el.Name] = tag + " " + strings.Join(statuses, ",")
		}
	}
	want := map[string]string{
		"a capture over the amount is refused": "@conform-outcome-fail passed,passed,failed",
		"a capture is 200":                     "@conform-outcome-warn pending",
		"a dispute lists its evidence":         "@conform-outcome-skip skipped",
		"evidence upload":                      "@conform-outcome-error failed",
		"a sale succeeds":                      "@conform-outcome-pass passed",
	}
	for name, w := range want {
		if got[name] != w {
			t.Errorf("cucumber %q: %q, want %q", name, got[name], w)
		}
	}
}

func TestCausesGroupTheSameCheck(t *testing.T) {
	run := sampleRun()
	for i := range 3 {
		run.Scenarios = append(run.Scenarios, report.Scenario{
			Feature: "lists.feature", Name: "list " + strconv.Itoa(i), Line: 10 + i, Outcome: report.Fail,
			Checks: []report.Check{{Kind: report.KindNormative, Step: "the page count is the total",
				Message: "GET /transfers/TR" + strings.Repeat(strconv.Itoa(i), 20) + ": page.count 20, want 45\n    response: …",
				Detail:  "page.count 20, want 45"}},
		})
	}
	for i, msg := range []string{"POST /transfers as nobody: status 403, want 401", "GET /merchants/MU1 as platform (wrong password): status 403, want 401"} {
		run.Scenarios = append(run.Scenarios, report.Scenario{
			Feature: "authentication.feature", Name: "refused " + strconv.Itoa(i), Line: 30 + i, Outcome: report.Warn,
			Checks: []report.Check{{Kind: report.KindAssumed, Step: "the request is refused as unauthenticated", Message: msg, Detail: "status 403, want 401"}},
		})
	}
	causes := run.Causes()
	if len(causes) != 5 {
		t.Fatalf("Causes() = %d causes, want 5 (one grouping three scenarios, one two): %+v", len(causes), causes)
	}
	if causes[0].Outcome != report.Error {
		t.Errorf("first cause %s, want the ERROR (worst first)", causes[0].Outcome)
	}
	var grouped, refused *report.Cause
	for i := range causes {
		switch len(causes[i].Scenarios) {
		case 3:
			grouped = &causes[i]
		case 2:
			refused = &causes[i]
		}
	}
	if refused == nil || refused.Outcome != report.Warn {
		t.Errorf("the same refusal check on two operations is not one WARN cause of 2: %+v", causes)
	}
	if grouped == nil || grouped.Scenarios[0] != "lists.feature:10" {
		t.Errorf("the page-count check on three lists is not one cause of 3: %+v", causes)
	}
}

func TestSectionsMatrix(t *testing.T) {
	rows := sampleRun().Sections()
	var order []string
	for _, r := range rows {
		order = append(order, r.Section+"="+strconv.Itoa(len(r.Scenarios)))
	}
	if got, want := strings.Join(order, " "), "4.1=2 4.2=1 4.8=1 7=1 —=1"; got != want {
		t.Errorf("Sections() = %s, want %s", got, want)
	}
}

// TestCausesOneCausePerCheckClauseAndMessage: the same check with the same
// clauses and message is one cause whatever the step, operation or user it
// failed with, naming the operations it hit with their counts; another
// clause, kind or message is another cause.
func TestCausesOneCausePerCheckClauseAndMessage(t *testing.T) {
	envelope := func(op, method, path, user, step string) report.Check {
		return report.Check{Kind: report.KindNormative, Step: step, Clause: "7", Clauses: []string{"7"}, Operation: op,
			Message: method + " " + path + " as " + user + ": error body is not the §7 envelope: /total (required): total is required",
			Detail:  "error body is not the §7 envelope: /total (required): total is required"}
	}
	run := report.Run{Scenarios: []report.Scenario{
		{Feature: "a.feature", Line: 1, Outcome: report.Fail, Checks: []report.Check{
			envelope("transfers.create", "POST", "/transfers", "platform", "the request is refused as an invalid field \"/fee\""),
			envelope("transfers.create", "POST", "/transfers", "platform", "the request is refused as an invalid field \"/amount\""),
		}},
		{Feature: "a.feature", Line: 2, Outcome: report.Fail, Checks: []report.Check{envelope("transfers.create", "POST", "/transfers", "nobody", "the request is refused as unauthenticated")}},
		{Feature: "b.feature", Line: 3, Outcome: report.Fail, Checks: []report.Check{envelope("authorizations.create", "POST", "/authorizations", "merchant", "the request is refused")}},
		{Feature: "b.feature", Line: 4, Outcome: report.Fail, Checks: []report.Check{
			{Kind: report.KindNormative, Clauses: []string{"4.2", "7"}, Operation: "transfers.create", Message: "POST /transfers as platform: status 201, want 4xx", Detail: "status 201, want 4xx"},
			{Kind: report.KindNormative, Clauses: []string{"4.1", "7"}, Operation: "authorizations.capture", Message: "PUT /authorizations/AU1 as platform: status 201, want 4xx", Detail: "status 201, want 4xx"},
		}},
		{Feature: "b.feature", Line: 5, Outcome: report.Pass, Operations: []string{"transfers.create"}},
	}}
	causes := run.Causes()
	require.Len(t, causes, 3, "%+v", causes)
	first := causes[0]
	assert.Equal(t, []string{"a.feature:1", "a.feature:2", "b.feature:3"}, first.Scenarios)
	assert.Equal(t, []string{"7"}, first.Clauses)
	assert.Equal(t, []report.OperationCount{{ID: "transfers.create", Count: 2}, {ID: "authorizations.create", Count: 1}}, first.Operations)
	assert.Equal(t, "error body is not the §7 envelope: /total (required): total is required", first.Text())
	for _, c := range causes[1:] {
		assert.Len(t, c.Scenarios, 1, "another clause is another cause: %+v", c)
	}
}

// TestOperationRowsCountTheSubject: a failing scenario counts only for the
// operations its failing checks were about, not those it called to set
// up; a passing one counts for every operation it called.
func TestOperationRowsCountTheSubject(t *testing.T) {
	run := report.Run{
		Operations: []report.Operation{{ID: "payment_instruments.create"}, {ID: "transfers.create"}},
		Scenarios: []report.Scenario{
			{Feature: "t.feature", Line: 1, Outcome: report.Fail, Operations: []string{"payment_instruments.create", "transfers.create"},
				Checks: []report.Check{{Kind: report.KindNormative, Clauses: []string{"4.2"}, Operation: "transfers.create", Message: "m"}}},
			{Feature: "t.feature", Line: 2, Outcome: report.Pass, Operations: []string{"payment_instruments.create", "transfers.create"}},
		},
	}
	rows := run.OperationRows()
	require.Len(t, rows, 2)
	assert.Equal(t, map[report.Outcome]int{report.Pass: 1}, rows[0].Counts, "the card created to set up the sale is not blamed")
	assert.Equal(t, map[report.Outcome]int{report.Pass: 1, report.Fail: 1}, rows[1].Counts)
}

// TestHTMLClauseTitlesAndWholeReplay: the matrix and the cause table name
// each section by its title, and the replay script is in the page whole.
func TestHTMLClauseTitlesAndWholeReplay(t *testing.T) {
	run := sampleRun()
	run.ClauseTitles = map[string]string{"4.1": "Authorizations", "4.2": "Transfers", "7": "Errors"}
	run.Scenarios[0].Checks[0].Clauses = []string{"4.1", "7"}
	var script strings.Builder
	script.WriteString("#!/bin/sh\n")
	for i := range 60 {
		fmt.Fprintf(&script, "curl -sS 'http://127.0.0.1:1/authorizations/AU%d'\n", i)
	}
	run.Scenarios[0].Reproduction = script.String()
	var buf bytes.Buffer
	require.NoError(t, report.WriteHTML(&buf, run))
	page := html.UnescapeString(buf.String())
	matrix := page[strings.Index(page, `id="matrix"`):strings.Index(page, `id="causes"`)]
	assert.Contains(t, matrix, `§4.1 <span class="small">Authorizations</span>`)
	assert.Contains(t, matrix, `§4.2 <span class="small">Transfers</span>`)
	causes := page[strings.Index(page, `id="causes"`):strings.Index(page, `id="failures"`)]
	assert.Contains(t, causes, `§7 <span class="small">Errors</span>`)
	assert.Contains(t, page, script.String(), "the replay script is whole")
	assert.NotContains(t, page, "whole in the results file)</pre></details>")
}
