package report

import (
	"encoding/xml"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// JUnit layout, valid against the junit-10.xsd schema CI servers check
// against: one <testsuite> per feature file, one <testcase> per scenario.
//
//   - FAIL  → <failure type="FAIL" message="first failing check">every check</failure>
//   - ERROR → <error type="ERROR" message="…">…</error>
//   - SKIP  → <skipped message="fixtures.dispute is not configured"/>
//   - WARN  → no failure (a WARN does not fail a run unless --strict, which makes
//     it a FAIL); the warnings in <system-out> starting "WARN:", and counted
//     in the suite's "outcome.WARN" property (the schema allows no attribute for it).
//
// Spec sections are the testcase's group attribute ("§4.1 §7") and, per
// section, a suite property "spec §4.1" with its outcome counts.
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Time       string          `xml:"time,attr"`
	Timestamp  string          `xml:"timestamp,attr,omitempty"`
	File       string          `xml:"file,attr"`
	Properties []junitProperty `xml:"properties>property"`
	Cases      []junitCase     `xml:"testcase"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Group     string        `xml:"group,attr,omitempty"`
	Skipped   *junitMessage `xml:"skipped"`
	Error     *junitMessage `xml:"error"`
	Failure   *junitMessage `xml:"failure"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitMessage struct {
	Type    string `xml:"type,attr,omitempty"`
	Message string `xml:"message,attr"`
	Text    string `xml:",chardata"`
}

// WriteJUnit writes run as JUnit XML.
func WriteJUnit(w io.Writer, run Run) error {
	doc := junitSuites{Name: "conform", Time: seconds(run.Duration)}
	for _, f := range run.Features() {
		suite := junitFeature(run, f)
		doc.Tests += suite.Tests
		doc.Failures += suite.Failures
		doc.Errors += suite.Errors
		doc.Suites = append(doc.Suites, suite)
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return fmt.Errorf("report: write junit: %w", err)
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("report: write junit: %w", err)
	}
	if _, err := io.WriteString(w, "\n"); err != nil {
		return fmt.Errorf("report: write junit: %w", err)
	}
	return nil
}

func junitFeature(run Run, f Feature) junitSuite {
	counts := f.Counts()
	suite := junitSuite{
		Name: f.Title(), File: f.File, Tests: len(f.Scenarios),
		Failures: counts[Fail], Errors: counts[Error], Skipped: counts[Skip],
		Time: seconds(f.Duration()),
	}
	if !run.Started.IsZero() {
		suite.Timestamp = run.Started.UTC().Format("2006-01-02T15:04:05")
	}
	suite.Properties = runProperties(run)
	for _, o := range Outcomes {
		suite.Properties = append(suite.Properties, junitProperty{Name: "outcome." + string(o), Value: strconv.Itoa(counts[o])})
	}
	for _, row := range (Run{Scenarios: f.Scenarios}).Sections() {
		suite.Properties = append(suite.Properties, junitProperty{Name: "spec §" + row.Section, Value: countLine(row.Counts)})
	}
	for _, s := range f.Scenarios {
		suite.Cases = append(suite.Cases, junitScenario(s))
	}
	return suite
}

func runProperties(run Run) []junitProperty {
	props := []junitProperty{
		{Name: "target", Value: run.Target},
		{Name: "seed", Value: strconv.FormatInt(run.Seed, 10)},
		{Name: "strict", Value: strconv.FormatBool(run.Strict)},
	}
	if run.Tags != "" {
		props = append(props, junitProperty{Name: "tags", Value: run.Tags})
	}
	return props
}

func junitScenario(s Scenario) junitCase {
	c := junitCase{Name: s.Name, Classname: s.Feature, Time: seconds(s.Duration)}
	if secs := s.Clauses(); len(secs) > 0 {
		c.Group = "§" + strings.Join(secs, " §")
	}
	detail := checksText(s)
	switch s.Outcome {
	case Fail:
		c.Failure = &junitMessage{Type: string(Fail), Message: s.Summary(), Text: detail}
	case Error:
		c.Error = &junitMessage{Type: string(Error), Message: s.Summary(), Text: detail}
	case Skip:
		c.Skipped = &junitMessage{Message: s.Summary()}
	case Warn:
		c.SystemOut = "WARN: only assumed checks failed: " + s.Summary() + "\n\n" + detail
	}
	if s.Outcome != Warn && s.Reproduction != "" {
		c.SystemOut = s.Reproduction
	}
	return c
}

// checksText renders every check of a scenario for a report body.
func checksText(s Scenario) string {
	var b strings.Builder
	for _, c := range s.Checks {
		fmt.Fprintf(&b, "%s", strings.ToUpper(c.Kind))
		if c.Clause != "" {
			fmt.Fprintf(&b, " §%s", c.Clause)
		}
		if c.ProfileKey != "" {
			fmt.Fprintf(&b, " [%s]", c.ProfileKey)
		}
		if c.Step != "" {
			fmt.Fprintf(&b, " in %q", c.Step)
		}
		fmt.Fprintf(&b, ":\n  %s\n", strings.ReplaceAll(c.Message, "\n", "\n  "))
		if c.Says != "" {
			fmt.Fprintf(&b, "  the spec: \u201c%s\u201d\n", c.Says)
		}
		if c.Expected != "" || c.Observed != "" {
			fmt.Fprintf(&b, "  expected: %s\n  observed: %s\n", c.Expected, c.Observed)
		}
		if c.Curl != "" {
			fmt.Fprintf(&b, "  reproduce: %s\n", c.Curl)
		}
	}
	return b.String()
}

// countLine renders outcome counts: "3 PASS, 1 WARN" (zero counts left out).
func countLine(c map[Outcome]int) string {
	var parts []string
	for _, o := range Outcomes {
		if c[o] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", c[o], o))
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// seconds renders a duration as the schema's SUREFIRE_TIME: "12.345", never negative.
func seconds(m Millis) string { return strconv.FormatFloat(m.Seconds(), 'f', 3, 64) }
