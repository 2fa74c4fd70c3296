package steps

import (
	"cmp"
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

// Outcomes; see features/README.md, "How the kit judges".
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
	Outcome     Outcome       // computed from the kinds of Verdicts (outcomeOf)
	Duration    time.Duration // wall time from the first step to the verdict
	// Verdicts are the checks that did not hold, and the skip reason, each
	// recorded once, where it was judged.
	Verdicts []Verdict
	// Steps are the scenario's steps as they ran.
	Steps []report.Step
	// Reproduction replays the scenario's requests up to its first failing check.
	Reproduction string
	// Operations are the ids of the operations the scenario called.
	Operations []string
}

// Verdict is one check that did not hold, or the reason a scenario was
// skipped: the one record of it from the step that judged it to the
// reports. Report is what the reports show (its Kind decides the
// scenario's outcome); Judged is the check as the kit judged it (its
// basis, profile key, expected and observed values and profile patch: the
// difference table and --write-profile read it), nil for a kit error, a
// skip or a step's own failure that no basis judged.
type Verdict struct {
	Report report.Check
	Judged *Check
}

// Checks are the reports of the scenario's verdicts.
func (r ScenarioResult) Checks() []report.Check {
	out := make([]report.Check, len(r.Verdicts))
	for i, v := range r.Verdicts {
		out[i] = v.Report
	}
	return out
}

// Judged are the failed checks as the kit judged them, each with its basis.
func (r ScenarioResult) Judged() []Check {
	var out []Check
	for _, v := range r.Verdicts {
		if v.Judged != nil {
			out = append(out, *v.Judged)
		}
	}
	return out
}

// Messages are the verdicts, each "kind [§clauses] step: message" and the
// response it failed on.
func (r ScenarioResult) Messages() []string {
	out := make([]string, len(r.Verdicts))
	for i, v := range r.Verdicts {
		c := v.Report
		m := c.Kind
		if len(c.Clauses) > 0 {
			m += " [§" + strings.Join(c.Clauses, " §") + "]"
		}
		if c.ProfileKey != "" {
			m += fmt.Sprintf(" %s (expected %s, observed %s)", c.ProfileKey, orNone(c.Expected), orNone(c.Observed))
		}
		if c.Step != "" {
			m += " " + c.Step + ":"
		}
		m += " " + c.Message
		if ex := c.Exchange; ex != nil {
			m += fmt.Sprintf("\n    response: %d %s", ex.Status, ex.ResponseBody)
		}
		out[i] = m
	}
	return out
}

// outcomeOf is the outcome of a scenario by the kinds of its verdicts: ERROR
// if the kit could not run a step, else FAIL on a normative check, WARN on
// an assumed one (FAIL when strict), SKIP on a skip reason, else PASS.
func outcomeOf(vs []Verdict, strict bool) Outcome {
	kinds := map[string]bool{}
	for _, v := range vs {
		kinds[v.Report.Kind] = true
	}
	switch {
	case kinds[report.KindKit]:
		return Error
	case kinds[report.KindNormative]:
		return Fail
	case kinds[report.KindAssumed] && strict:
		return Fail
	case kinds[report.KindAssumed]:
		return Warn
	case kinds[report.KindSkip]:
		return Skip
	}
	return Pass
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
	verdicts    []Verdict
	stepStart   time.Time
	mark        int    // len(verdicts) when the step began
	stepMark    int    // len(exchanges) when the step began
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
		s.says = c.says
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
	s.rec.mark, s.rec.stepMark = len(s.rec.verdicts), len(s.rec.exchanges)
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
	case errors.As(err, &se):
		s.skipped = se.Error()
	case errors.As(err, &sd):
		s.skipped = sd.Error()
	case errors.Is(err, godog.ErrSkip):
		s.skipped = err.Error()
	case errors.As(err, &ke), errors.Is(err, godog.ErrUndefined), errors.Is(err, godog.ErrPending), errors.Is(err, godog.ErrAmbiguous):
		s.verdict(Verdict{Report: report.Check{Kind: report.KindKit, Step: st.Text, Message: err.Error(), Operation: s.stepOperation(nil)}})
	default: // a step's own failure, not judged by a basis: normative by the scenario's sections
		s.verdict(Verdict{Report: s.reportCheck(Check{Basis: judging.Basis{Clauses: slices.Clone(s.clauses)}, Message: err.Error(), Err: err})})
	}
	s.recordStep(st, status, err)
	return ctx, nil
}

// recordStep appends the step with its status, the worst kind of the
// verdicts recorded while it ran (recorded as they were judged).
func (s *scenario) recordStep(st *godog.Step, status godog.StepResultStatus, err error) {
	pos := s.suite.catalog.step(st)
	step := report.Step{Keyword: pos.keyword, Text: st.Text, Line: pos.line, Duration: report.MillisOf(time.Since(s.rec.stepStart))}
	added := s.rec.verdicts[s.rec.mark:]
	if len(added) > 0 {
		step.Message = firstLine(added[0].Report.Message)
	}
	switch outcomeOf(added, false) {
	case Error:
		step.Status = report.StepError
	case Fail:
		step.Status = report.StepFailed
	case Warn:
		step.Status = report.StepWarned
	default:
		step.Status = report.StepPassed
		if status == godog.StepSkipped || err != nil {
			step.Status = report.StepSkipped
			if s.skipped != "" && err != nil {
				step.Message = s.skipped
			}
		}
	}
	s.rec.steps = append(s.rec.steps, step)
}

// verdict appends a verdict to the scenario; the reproduction replays the
// exchanges up to the first one.
func (s *scenario) verdict(v Verdict) {
	if s.rec.reproUpTo == 0 {
		s.rec.reproUpTo = len(s.rec.exchanges)
	}
	s.rec.verdicts = append(s.rec.verdicts, v)
}

// stepOperation is the operation a failed check is about: the operation of
// the exchange it names, else that of the last exchange the running step
// sent; "" when the step sent none (a check of what earlier steps set up is
// not blamed on their operations).
func (s *scenario) stepOperation(ex *exchange) string {
	if ex == nil && len(s.rec.exchanges) > s.rec.stepMark {
		ex = s.rec.exchanges[len(s.rec.exchanges)-1]
	}
	if ex == nil || !ex.hasOp {
		return ""
	}
	return ex.op.ID
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
	} else {
		// A check the scenario's sections judge (a business rule, a field
		// read back) rests on the scenario's own words.
		rc.Says = cmp.Or(c.Basis.Says, s.says)
		for _, inv := range c.Basis.Invariants { // an invariant's statement is its sentence
			if rc.Says == "" {
				rc.Says = s.suite.table.Invariants[inv]
			}
		}
	}
	var f *failure
	if errors.As(c.Err, &f) {
		rc.Message, rc.Detail = f.text, f.detail
		rc.Exchange = s.exchangeReport(f.ex)
		rc.Curl, rc.CurlEnv = s.curl(f.ex)
		rc.Operation = s.stepOperation(f.ex)
	} else {
		rc.Operation = s.stepOperation(nil)
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

// after cleans up and records the scenario's result, its outcome computed
// from the kinds of its verdicts; in strict mode a warning fails it.
func (s *scenario) after(ctx context.Context, _ *godog.Scenario, err error) (context.Context, error) {
	s.cleanup(ctx)
	if s.rec.unselected {
		return ctx, nil
	}
	if err != nil && !errors.Is(err, godog.ErrSkip) && len(s.rec.verdicts) == 0 {
		s.verdict(Verdict{Report: report.Check{Kind: report.KindNormative, Message: err.Error()}})
	}
	if s.skipped != "" && len(s.rec.verdicts) == 0 {
		s.rec.verdicts = append(s.rec.verdicts, Verdict{Report: report.Check{Kind: report.KindSkip, Message: s.skipped}})
	}
	res := ScenarioResult{
		Feature: s.feature, FeatureName: s.rec.featureName, Name: s.name, Line: s.rec.line, Tags: s.tags,
		Duration: time.Since(s.start), Steps: s.rec.steps, Verdicts: s.rec.verdicts, Operations: s.rec.operations,
	}
	res.Outcome = outcomeOf(res.Verdicts, s.suite.strict)
	if res.Outcome == Fail || res.Outcome == Warn || res.Outcome == Error {
		res.Reproduction = s.reproduction()
	}
	s.suite.results.add(res)
	if s.suite.strict && outcomeOf(res.Verdicts, false) == Warn {
		return ctx, fmt.Errorf("assumed checks failed (strict):\n  %s", strings.Join(res.Messages(), "\n  "))
	}
	return ctx, nil
}

// needFixture returns the fixture value or a skip naming its key.
func (s *scenario) needFixture(key string) (string, error) {
	if v := s.suite.cfg.fixture(key); v != "" {
		return v, nil
	}
	return "", &skipError{key: "fixtures." + key}
}
