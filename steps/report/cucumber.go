package report

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// Cucumber JSON layout: the format cucumber's reporters read. Step statuses
// keep the outcome: FAIL → "failed"; ERROR → "failed" with a message starting
// "ERROR:"; SKIP → "skipped"; WARN → "pending" (rendered neither green nor
// red) with a message starting "WARN:". Each scenario also carries the tag
// "@conform-outcome-<outcome>" so the outcome survives in any viewer.
type cucumberFeature struct {
	URI      string            `json:"uri"`
	ID       string            `json:"id"`
	Keyword  string            `json:"keyword"`
	Name     string            `json:"name"`
	Line     int               `json:"line"`
	Elements []cucumberElement `json:"elements"`
}

type cucumberElement struct {
	ID      string         `json:"id"`
	Keyword string         `json:"keyword"`
	Name    string         `json:"name"`
	Line    int            `json:"line"`
	Type    string         `json:"type"`
	Tags    []cucumberTag  `json:"tags"`
	Steps   []cucumberStep `json:"steps"`
}

type cucumberTag struct {
	Name string `json:"name"`
	Line int    `json:"line"`
}

type cucumberStep struct {
	Keyword string         `json:"keyword"`
	Name    string         `json:"name"`
	Line    int            `json:"line"`
	Result  cucumberResult `json:"result"`
}

type cucumberResult struct {
	Status   string `json:"status"`
	Duration int64  `json:"duration"` // nanoseconds
	Error    string `json:"error_message,omitempty"`
}

// WriteCucumber writes run as cucumber JSON.
func WriteCucumber(w io.Writer, run Run) error {
	out := []cucumberFeature{}
	for _, f := range run.Features() {
		cf := cucumberFeature{URI: f.File, ID: slug(f.Title()), Keyword: "Feature", Name: f.Title(), Line: 1}
		for _, s := range f.Scenarios {
			cf.Elements = append(cf.Elements, cucumberScenario(cf.ID, s))
		}
		out = append(out, cf)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		return fmt.Errorf("report: write cucumber: %w", err)
	}
	return nil
}

func cucumberScenario(featureID string, s Scenario) cucumberElement {
	el := cucumberElement{
		ID: featureID + ";" + slug(s.Name), Keyword: "Scenario", Name: s.Name, Line: s.Line, Type: "scenario",
		Tags: []cucumberTag{},
	}
	for _, t := range s.Tags {
		el.Tags = append(el.Tags, cucumberTag{Name: t, Line: s.Line})
	}
	el.Tags = append(el.Tags, cucumberTag{Name: "@conform-outcome-" + strings.ToLower(string(s.Outcome)), Line: s.Line})
	for _, st := range s.Steps {
		el.Steps = append(el.Steps, cucumberStep{
			Keyword: st.Keyword, Name: st.Text, Line: st.Line,
			Result: cucumberStepResult(st),
		})
	}
	if len(el.Steps) == 0 {
		// A scenario stopped before its steps (a skip decided up front) still shows its outcome.
		el.Steps = []cucumberStep{{Keyword: "* ", Name: "conform verdict", Result: cucumberStepResult(Step{Status: stepStatusOf(s.Outcome), Message: s.Summary()})}}
	}
	return el
}

func cucumberStepResult(st Step) cucumberResult {
	r := cucumberResult{Duration: int64(st.Duration.Duration())}
	switch st.Status {
	case StepPassed:
		r.Status = "passed"
	case StepFailed:
		r.Status, r.Error = "failed", st.Message
	case StepError:
		r.Status, r.Error = "failed", "ERROR: "+st.Message
	case StepWarned:
		r.Status, r.Error = "pending", "WARN: "+st.Message
	default:
		r.Status, r.Error = "skipped", st.Message
	}
	return r
}

// stepStatusOf is the step status that stands for a scenario outcome.
func stepStatusOf(o Outcome) string {
	switch o {
	case Fail:
		return StepFailed
	case Warn:
		return StepWarned
	case Error:
		return StepError
	case Skip:
		return StepSkipped
	}
	return StepPassed
}

// slug turns a title into a cucumber id: lower case, words joined by "-".
func slug(s string) string {
	return strings.Join(strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	}), "-")
}
