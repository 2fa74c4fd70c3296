// Package report holds the results of one conformance run as data, and writes
// them out: the conform results file (JSON, the one source every other report
// is written from), JUnit XML, cucumber JSON and a self-contained HTML page.
//
// The runner fills a Run; every writer reads only a Run, so a results file read
// back with ReadResults produces the same JUnit, cucumber and HTML reports as
// the run itself. The package imports only the standard library and the
// kinds of checks of package judging.
package report

import (
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/conform-kit/conform/validate/judging"
)

// Outcome is the verdict on one scenario.
type Outcome string

// The outcomes, best first (features/README.md, "How the kit judges").
const (
	Pass  Outcome = "PASS"  // every check held
	Skip  Outcome = "SKIP"  // the target config lacks what the scenario needs
	Warn  Outcome = "WARN"  // only assumed checks failed
	Fail  Outcome = "FAIL"  // a normative check failed
	Error Outcome = "ERROR" // the kit could not run the scenario
)

// Outcomes lists every outcome in report order.
var Outcomes = [...]Outcome{Pass, Fail, Warn, Skip, Error}

// Check kinds: what a recorded check result means for its scenario. The
// first two are the kinds of package judging, which the proxy uses too.
const (
	KindNormative = string(judging.Normative) // a check the spec states: FAIL
	KindAssumed   = string(judging.Assumed)   // a check of an assumption: WARN
	KindKit       = "kit"                     // the kit could not run a step: ERROR
	KindSkip      = "skip"                    // the config lacks what the step needs: SKIP
)

// Run is everything one run of the suite produced.
type Run struct {
	Tool        string          `json:"tool"` // "conform"
	Target      string          `json:"target"`
	Seed        int64           `json:"seed"`
	Strict      bool            `json:"strict"`
	Tags        string          `json:"tags,omitempty"`
	Concurrency int             `json:"concurrency"`
	Started     time.Time       `json:"started"`
	Duration    Millis          `json:"duration_ms"`
	Counts      map[Outcome]int `json:"counts"`
	Scenarios   []Scenario      `json:"scenarios"`
	Operations  []Operation     `json:"operations,omitempty"`
	// Notes are diagnostics of the run as a whole ("0 webhook deliveries arrived").
	Notes []string `json:"notes,omitempty"`
	// ClauseTitles names the spec sections ("4.2" → "Transfers"), from judging.json.
	ClauseTitles map[string]string `json:"clause_titles,omitempty"`
	// Exploration is what conform explore (or run --explore) covered, if it ran.
	Exploration *Exploration `json:"exploration,omitempty"`
}

// Scenario is the verdict on one scenario with its evidence.
type Scenario struct {
	Feature     string   `json:"feature"`      // file name, "transfers.feature"
	FeatureName string   `json:"feature_name"` // the Feature: title
	Name        string   `json:"name"`
	Line        int      `json:"line,omitempty"` // line of the scenario (or its example row)
	Tags        []string `json:"tags,omitempty"`
	Outcome     Outcome  `json:"outcome"`
	Duration    Millis   `json:"duration_ms"`
	// Checks are the checks that did not hold (FAIL, WARN, ERROR) and the skip reason.
	Checks []Check `json:"checks,omitempty"`
	Steps  []Step  `json:"steps,omitempty"`
	// Operations are the ids of the operations the scenario called.
	Operations []string `json:"operations,omitempty"`
	// Reproduction is a shell script replaying the scenario's requests up to
	// its first failing check, credentials read from the environment.
	Reproduction string `json:"reproduction,omitempty"`
}

// Check is one check that did not hold, or the reason a scenario was skipped.
type Check struct {
	Kind string `json:"kind"` // KindNormative, KindAssumed, KindKit or KindSkip
	Step string `json:"step,omitempty"`
	// Clause is the spec section the check judges ("4.1"), when it names one.
	Clause string `json:"clause,omitempty"`
	// Clauses are every spec section the check judges, Clause first.
	Clauses []string `json:"clauses,omitempty"`
	// Invariants name the safety invariants a normative check enforces.
	Invariants []string `json:"invariants,omitempty"`
	// Says is where the spec states the rule a normative check enforces,
	// in a few words (judging.Basis.Says): the sentence to read, and to
	// argue with, next to its section.
	Says string `json:"says,omitempty"`
	// Operation is the operation the check is about: that of the request it
	// failed on, else the last one its step sent; "" when its step sent none.
	Operation string `json:"operation,omitempty"`
	// ProfileKey names the assumption an assumed check judges, when it has one.
	ProfileKey string `json:"profile_key,omitempty"`
	Expected   string `json:"expected,omitempty"`
	Observed   string `json:"observed,omitempty"`
	Message    string `json:"message"`
	// Detail is what failed without the request it failed on ("status 200,
	// want 4xx"); checks with the same detail on other resources are one cause.
	Detail string `json:"detail,omitempty"`
	// Pointers are the JSON pointers of schema violations, when the check is a schema check.
	Pointers []string  `json:"pointers,omitempty"`
	Exchange *Exchange `json:"exchange,omitempty"`
	// Curl reproduces the request whole; it reads the credentials and every
	// secret of the body from the environment variables CurlEnv names.
	Curl    string    `json:"curl,omitempty"`
	CurlEnv []CurlVar `json:"curl_env,omitempty"`
}

// CurlVar is an environment variable a Check's Curl reads: its name, what
// it holds, and its value when that is the kit's own test data (a test
// card's number, a generated webhook password); the value of a credential
// of the config is never given ("").
type CurlVar struct {
	Name  string `json:"name"`
	Holds string `json:"holds"`
	Value string `json:"value,omitempty"`
}

// Exchange is one request and its response, secrets masked.
type Exchange struct {
	Method       string `json:"method"`
	URL          string `json:"url"`
	User         string `json:"user,omitempty"`
	RequestBody  string `json:"request_body,omitempty"`
	Status       int    `json:"status"`
	ResponseBody string `json:"response_body,omitempty"`
}

// Step is one step of a scenario as it ran.
type Step struct {
	Keyword  string `json:"keyword"` // "Given ", "When ", "Then ", "And "
	Text     string `json:"text"`
	Line     int    `json:"line,omitempty"`
	Status   string `json:"status"` // StepPassed, StepFailed, ...
	Duration Millis `json:"duration_ms"`
	Message  string `json:"message,omitempty"`
}

// Step statuses.
const (
	StepPassed  = "passed"
	StepFailed  = "failed"  // a normative check failed
	StepWarned  = "warned"  // only assumed checks failed; the step went on
	StepSkipped = "skipped" // not run: an earlier step stopped the scenario, or the config lacks a key
	StepError   = "error"   // the kit could not run it
)

// Operation is one row of the operations table with the responses seen for it.
type Operation struct {
	ID        string `json:"id"`
	Source    string `json:"source"` // "spec" or "extension"
	Successes int    `json:"successes"`
	Refusals  int    `json:"refusals"`
}

// OperationRow is an operation with the outcomes of the scenarios about it.
type OperationRow struct {
	Operation
	Counts map[Outcome]int
}

// OperationRows lists every operation of the table with the outcomes of the
// scenarios about it: a PASS or SKIP scenario counts for every operation it
// called, a FAIL, WARN or ERROR one only for the operations its failing
// checks were about (Check.Operation), not those it called to set up.
func (r Run) OperationRows() []OperationRow {
	idx := map[string]int{}
	rows := make([]OperationRow, len(r.Operations))
	for i, op := range r.Operations {
		rows[i] = OperationRow{Operation: op, Counts: map[Outcome]int{}}
		idx[op.ID] = i
	}
	for _, s := range r.Scenarios {
		for _, id := range s.Subjects() {
			if i, ok := idx[id]; ok {
				rows[i].Counts[s.Outcome]++
			}
		}
	}
	return rows
}

// Subjects are the operations a scenario's outcome is about: for a FAIL,
// WARN or ERROR the operations of its failing checks, else every
// operation it called.
func (s Scenario) Subjects() []string {
	if s.Outcome == Pass || s.Outcome == Skip {
		return s.Operations
	}
	var out []string
	for _, c := range s.Checks {
		if c.Kind != KindSkip && c.Operation != "" && !slices.Contains(out, c.Operation) {
			out = append(out, c.Operation)
		}
	}
	return out
}

// Millis is a duration in milliseconds, as the results file stores it.
type Millis float64

// MillisOf converts a duration.
func MillisOf(d time.Duration) Millis { return Millis(float64(d) / float64(time.Millisecond)) }

// Duration converts back.
func (m Millis) Duration() time.Duration {
	return time.Duration(float64(m) * float64(time.Millisecond))
}

// Seconds is m in seconds, never negative.
func (m Millis) Seconds() float64 { return max(float64(m)/1000, 0) }

// Clauses returns the spec sections a scenario's tags name ("@spec-4.1" → "4.1"), in tag order.
func (s Scenario) Clauses() []string {
	var out []string
	for _, t := range s.Tags {
		if sec, ok := strings.CutPrefix(t, "@spec-"); ok {
			out = append(out, sec)
		}
	}
	return out
}

// ID names a scenario uniquely within a run: "transfers.feature:42".
func (s Scenario) ID() string {
	if s.Line == 0 {
		return s.Feature + ": " + s.Name
	}
	return s.Feature + ":" + strconv.Itoa(s.Line)
}

// Total is the number of scenarios judged.
func (r Run) Total() int { return len(r.Scenarios) }

// Recount sets Counts from the scenarios.
func (r *Run) Recount() {
	r.Counts = map[Outcome]int{}
	for _, o := range Outcomes {
		r.Counts[o] = 0
	}
	for _, s := range r.Scenarios {
		r.Counts[s.Outcome]++
	}
}

// Features groups the scenarios by feature file, files in name order,
// scenarios in the order of the run's slice.
func (r Run) Features() []Feature {
	idx := map[string]int{}
	var out []Feature
	for _, s := range r.Scenarios {
		i, ok := idx[s.Feature]
		if !ok {
			i = len(out)
			idx[s.Feature] = i
			out = append(out, Feature{File: s.Feature, Name: s.FeatureName})
		}
		out[i].Scenarios = append(out[i].Scenarios, s)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].File < out[j].File })
	return out
}

// Feature is the scenarios of one feature file.
type Feature struct {
	File      string
	Name      string
	Scenarios []Scenario
}

// Counts tallies the feature's outcomes.
func (f Feature) Counts() map[Outcome]int {
	c := map[Outcome]int{}
	for _, s := range f.Scenarios {
		c[s.Outcome]++
	}
	return c
}

// Duration sums the feature's scenario durations.
func (f Feature) Duration() Millis {
	var d Millis
	for _, s := range f.Scenarios {
		d += max(s.Duration, 0)
	}
	return d
}

// Title is the feature's name, or its file when it has none.
func (f Feature) Title() string {
	if f.Name != "" {
		return f.Name
	}
	return f.File
}

// Summary is the first non-empty message of a scenario's checks, one line.
func (s Scenario) Summary() string {
	for _, c := range s.Checks {
		if c.Message != "" {
			first, _, _ := strings.Cut(c.Message, "\n")
			return first
		}
	}
	return ""
}
