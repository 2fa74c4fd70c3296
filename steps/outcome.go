package steps

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/cucumber/godog"

	"github.com/conform-kit/conform/steps/report"
	"github.com/conform-kit/conform/validate"
	"github.com/conform-kit/conform/validate/judging"
)

// Outcome is the verdict on one scenario: the report's outcome, the one
// type every result of the kit is told in.
type Outcome = report.Outcome

// Outcomes; see DESIGN.md "Normative and assumed".
const (
	Pass  = report.Pass  // every check held
	Skip  = report.Skip  // the target config lacks what the scenario needs
	Warn  = report.Warn  // only assumed checks failed
	Fail  = report.Fail  // a normative check failed
	Error = report.Error // the kit could not run the scenario
)

// ScenarioResult is the verdict on one scenario with its evidence.
type ScenarioResult struct {
	Feature     string // file name, "transfers.feature"
	FeatureName string
	Name        string
	Line        int // the scenario's line (its example row's, in an outline)
	Tags        []string
	Outcome     Outcome
	Messages    []string      // failures, warnings, the skip reason or the kit error
	Duration    time.Duration // wall time from the first step to the verdict
	// Checks are the checks that did not hold, and the skip reason, with their evidence.
	Checks []report.Check
	// Steps are the scenario's steps as they ran.
	Steps []report.Step
	// Reproduction replays the scenario's requests up to its first failing check.
	Reproduction string
	// Operations are the ids of the operations the scenario called.
	Operations []string
	// Judged are the failed checks as the kit judged them, each with its
	// basis, expected and observed values (the difference table and
	// --write-profile read them).
	Judged []Check
}

// ID names the scenario within a run: "transfers.feature:42".
func (r ScenarioResult) ID() string { return fmt.Sprintf("%s:%d", r.Feature, r.Line) }

// kitError marks a failure of the kit itself (network, configuration): ERROR.
type kitError struct{ err error }

func (e *kitError) Error() string { return "kit error: " + e.err.Error() }
func (e *kitError) Unwrap() error { return e.err }

// skipError marks a scenario the target config cannot support, naming the key.
type skipError struct{ key string }

func (e *skipError) Error() string { return fmt.Sprintf("skipped: %s is not configured", e.key) }
func (e *skipError) Unwrap() error { return godog.ErrSkip }

// Coverage counts the responses of one operation during a run.
type Coverage struct {
	Successes int // 2xx responses
	Refusals  int // 4xx responses
}

// recorder collects the verdicts of one run and the operations exercised; safe for concurrent use.
type recorder struct {
	mu       sync.Mutex
	results  []ScenarioResult
	started  []string // scenario IDs in the order they started
	coverage map[string]Coverage
	notify   func(ScenarioResult) // called with each verdict, one at a time; may be nil
}

func newRecorder(notify func(ScenarioResult)) *recorder {
	return &recorder{coverage: map[string]Coverage{}, notify: notify}
}

// start records that a scenario began.
func (r *recorder) start(id string) {
	r.mu.Lock()
	r.started = append(r.started, id)
	r.mu.Unlock()
}

// order returns the scenario IDs in the order they started.
func (r *recorder) order() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.started...)
}

// cover counts a response of an operation.
func (r *recorder) cover(opID string, status int) {
	r.mu.Lock()
	c := r.coverage[opID]
	switch {
	case status >= 200 && status <= 299:
		c.Successes++
	case status >= 400 && status <= 499:
		c.Refusals++
	}
	r.coverage[opID] = c
	r.mu.Unlock()
}

func (r *recorder) coverageCopy() map[string]Coverage {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make(map[string]Coverage, len(r.coverage))
	for k, v := range r.coverage {
		out[k] = v
	}
	return out
}

func (r *recorder) add(res ScenarioResult) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.results = append(r.results, res)
	if r.notify != nil {
		r.notify(res)
	}
}

func (r *recorder) all() []ScenarioResult {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]ScenarioResult(nil), r.results...)
}

// record is what a scenario collects for its report: where it is in the
// features, its steps as they ran and the checks that did not hold.
type record struct {
	line        int
	featureName string
	unselected  bool // not selected by the run: skipped silently, never reported
	steps       []report.Step
	checks      []report.Check
	stepStart   time.Time
	marks       [4]int // len(failures), len(warnings), len(kitErrs), len(rec.checks) when the step began
	stepText    string // the text of the step running
	exchanges   []*exchange
	operations  []string // ids of the operations called, in first-call order
	reproUpTo   int      // exchanges up to the first failed check
}

// before records the scenario's identity and tags; a scenario the run does
// not select stops here, unreported.
func (s *scenario) before(ctx context.Context, sc *godog.Scenario) (context.Context, error) {
	s.name, s.feature, s.start = sc.Name, sc.Uri, time.Now()
	for _, t := range sc.Tags {
		s.tags = append(s.tags, t.Name)
	}
	if c, ok := s.suite.catalog.scenario(sc.Id); ok {
		s.rec.line, s.rec.featureName = c.line, c.featureName
		if !c.selected {
			s.rec.unselected = true
			return ctx, godog.ErrSkip
		}
	}
	s.suite.results.start(fmt.Sprintf("%s:%d", s.feature, s.rec.line))
	s.parseTags()
	return ctx, s.declaredSkip()
}

// beforeStep reads the profile key of a step ending in " (assumed: <key>)".
func (s *scenario) beforeStep(ctx context.Context, st *godog.Step) (context.Context, error) {
	s.stepKey = stepKeyOf(st.Text)
	s.rec.stepStart = time.Now()
	s.rec.marks = [4]int{len(s.failures), len(s.warnings), len(s.kitErrs), len(s.rec.checks)}
	s.rec.stepText = st.Text
	return ctx, nil
}

// afterStep classifies a step error into the scenario's verdict and records
// the step and the checks it failed.
func (s *scenario) afterStep(ctx context.Context, st *godog.Step, status godog.StepResultStatus, err error) (context.Context, error) {
	if s.rec.unselected {
		return ctx, nil
	}
	var ke *kitError
	var se *skipError
	var sd *skipDeclared
	var je *judgedError
	switch {
	case err == nil:
	case errors.As(err, &je): // recorded with its basis by judgeCheck
		s.failures = append(s.failures, fmt.Sprintf("%s: %v", st.Text, err))
	case errors.As(err, &se):
		s.skipped = se.Error()
	case errors.As(err, &sd):
		s.skipped = sd.Error()
	case errors.Is(err, godog.ErrSkip):
		s.skipped = err.Error()
	case errors.As(err, &ke), errors.Is(err, godog.ErrUndefined), errors.Is(err, godog.ErrPending), errors.Is(err, godog.ErrAmbiguous):
		s.kitErrs = append(s.kitErrs, fmt.Sprintf("%s: %v", st.Text, err))
		s.recordCheck(report.Check{Kind: report.KindKit, Step: st.Text, Message: err.Error()})
	default: // a step's own failure, not judged by a basis: normative by the scenario's sections
		s.failures = append(s.failures, fmt.Sprintf("%s: %v", st.Text, err))
		s.recordCheck(s.reportCheck(Check{Basis: judging.Basis{Clauses: slices.Clone(s.clauses)}, Message: err.Error(), Err: err}))
	}
	s.recordStep(st, status, err)
	return ctx, nil
}

// recordStep appends the step with its status; its checks were recorded
// as they were judged (recordCheck).
func (s *scenario) recordStep(st *godog.Step, status godog.StepResultStatus, err error) {
	pos := s.suite.catalog.step(st)
	step := report.Step{Keyword: pos.keyword, Text: st.Text, Line: pos.line, Duration: report.MillisOf(time.Since(s.rec.stepStart))}
	if added := s.rec.checks[s.rec.marks[3]:]; len(added) > 0 {
		step.Message = firstLine(added[0].Message)
	}
	switch {
	case len(s.kitErrs) > s.rec.marks[2]:
		step.Status = report.StepError
	case len(s.failures) > s.rec.marks[0]:
		step.Status = report.StepFailed
	case status == godog.StepSkipped || err != nil:
		step.Status = report.StepSkipped
		if len(s.warnings) > s.rec.marks[1] {
			step.Status = report.StepWarned
		}
		if s.skipped != "" && err != nil {
			step.Message = s.skipped
		}
	case len(s.warnings) > s.rec.marks[1]:
		step.Status = report.StepWarned
	default:
		step.Status = report.StepPassed
	}
	s.rec.steps = append(s.rec.steps, step)
}

// recordCheck appends a check that did not hold to the scenario's report;
// the reproduction replays the exchanges up to the first one.
func (s *scenario) recordCheck(c report.Check) {
	if s.rec.reproUpTo == 0 {
		s.rec.reproUpTo = len(s.rec.exchanges)
	}
	s.rec.checks = append(s.rec.checks, c)
}

// reportCheck fills the report of a failed check from the check itself:
// its kind and basis, the profile key with the expected and observed
// values, the text of the failure and the exchange it names (a *failure),
// and the JSON pointers of the violations of a *validate.Error behind it.
func (s *scenario) reportCheck(c Check) report.Check {
	rc := report.Check{
		Kind: string(c.Basis.Kind()), Step: s.rec.stepText, Message: c.Message,
		Clauses: slices.Clone(c.Basis.Clauses), Invariants: slices.Clone(c.Basis.Invariants),
	}
	if len(rc.Clauses) > 0 {
		rc.Clause = rc.Clauses[0]
	}
	if !c.Basis.Normative() {
		rc.ProfileKey, rc.Expected, rc.Observed = c.Key, c.Expected, c.Observed
	}
	var f *failure
	if errors.As(c.Err, &f) {
		rc.Message, rc.Detail = f.text, f.detail
		rc.Exchange = s.exchangeReport(f.ex)
		rc.Curl = s.curl(f.ex)
	}
	if len(rc.Invariants) > 0 {
		rc.Message = "invariant " + strings.Join(rc.Invariants, ", ") + ": " + rc.Message
	}
	var ve *validate.Error
	if errors.As(c.Err, &ve) {
		for _, v := range ve.Violations {
			rc.Pointers = append(rc.Pointers, v.Pointer)
		}
	}
	return rc
}

// after cleans up, records the verdict and, in strict mode, fails on warnings.
func (s *scenario) after(ctx context.Context, _ *godog.Scenario, err error) (context.Context, error) {
	s.cleanup(ctx)
	if s.rec.unselected {
		return ctx, nil
	}
	res := ScenarioResult{
		Feature: s.feature, FeatureName: s.rec.featureName, Name: s.name, Line: s.rec.line, Tags: s.tags,
		Duration: time.Since(s.start), Steps: s.rec.steps, Checks: s.rec.checks, Operations: s.rec.operations,
		Judged: s.checks, Outcome: Pass,
	}
	switch {
	case len(s.kitErrs) > 0:
		res.Outcome, res.Messages = Error, append(s.kitErrs, s.failures...)
	case len(s.failures) > 0:
		res.Outcome, res.Messages = Fail, append(s.failures, s.warnings...)
	case len(s.warnings) > 0:
		res.Outcome, res.Messages = Warn, s.warnings
	case s.skipped != "":
		res.Outcome, res.Messages = Skip, []string{s.skipped}
		res.Checks = append(res.Checks, report.Check{Kind: report.KindSkip, Message: s.skipped})
	case err != nil && !errors.Is(err, godog.ErrSkip):
		res.Outcome, res.Messages = Fail, []string{err.Error()}
		res.Checks = append(res.Checks, report.Check{Kind: report.KindNormative, Message: err.Error()})
	}
	if res.Outcome == Fail || res.Outcome == Warn || res.Outcome == Error {
		res.Reproduction = s.reproduction()
	}
	if s.suite.strict && res.Outcome == Warn {
		res.Outcome = Fail
		s.suite.results.add(res)
		return ctx, fmt.Errorf("assumed checks failed (strict):\n  %s", strings.Join(s.warnings, "\n  "))
	}
	s.suite.results.add(res)
	return ctx, nil
}

// needFixture returns the fixture value or a skip naming its key.
func (s *scenario) needFixture(key string) (string, error) {
	if v := s.suite.cfg.fixture(key); v != "" {
		return v, nil
	}
	return "", &skipError{key: "fixtures." + key}
}
