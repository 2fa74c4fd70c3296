package steps

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/cucumber/godog"
)

// Outcome is the verdict on one scenario.
type Outcome int

// Outcomes, from best to worst; see DESIGN.md "Normative and assumed".
const (
	Pass  Outcome = iota // every check held
	Skip                 // the target config lacks what the scenario needs
	Warn                 // only assumed checks failed
	Fail                 // a normative check failed
	Error                // the kit could not run the scenario
)

// String returns PASS, SKIP, WARN, FAIL or ERROR.
func (o Outcome) String() string {
	return [...]string{"PASS", "SKIP", "WARN", "FAIL", "ERROR"}[o]
}

// ScenarioResult is the verdict on one scenario with its evidence.
type ScenarioResult struct {
	Feature  string
	Name     string
	Tags     []string
	Outcome  Outcome
	Messages []string      // failures, warnings, the skip reason or the kit error
	Checks   []Check       // the failed checks, each with its basis, expected and observed
	Duration time.Duration // wall time from the first step to the verdict
}

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
	coverage map[string]Coverage
}

func newRecorder() *recorder { return &recorder{coverage: map[string]Coverage{}} }

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
	r.results = append(r.results, res)
	r.mu.Unlock()
}

func (r *recorder) all() []ScenarioResult {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]ScenarioResult(nil), r.results...)
}

// before records the scenario's identity and tags.
func (s *scenario) before(ctx context.Context, sc *godog.Scenario) (context.Context, error) {
	s.name, s.feature, s.start = sc.Name, sc.Uri, time.Now()
	for _, t := range sc.Tags {
		s.tags = append(s.tags, t.Name)
	}
	s.parseTags()
	return ctx, s.declaredSkip()
}

// beforeStep reads the profile key of a step ending in " (assumed: <key>)".
func (s *scenario) beforeStep(ctx context.Context, st *godog.Step) (context.Context, error) {
	s.stepKey = stepKeyOf(st.Text)
	return ctx, nil
}

// afterStep classifies a step error into the scenario's verdict.
func (s *scenario) afterStep(ctx context.Context, st *godog.Step, _ godog.StepResultStatus, err error) (context.Context, error) {
	if err == nil {
		return ctx, nil
	}
	var ke *kitError
	var se *skipError
	var sd *skipDeclared
	switch {
	case errors.As(err, &se):
		s.skipped = se.Error()
	case errors.As(err, &sd):
		s.skipped = sd.Error()
	case errors.Is(err, godog.ErrSkip):
		s.skipped = err.Error()
	case errors.As(err, &ke), errors.Is(err, godog.ErrUndefined), errors.Is(err, godog.ErrPending), errors.Is(err, godog.ErrAmbiguous):
		s.kitErrs = append(s.kitErrs, fmt.Sprintf("%s: %v", st.Text, err))
	default:
		s.failures = append(s.failures, fmt.Sprintf("%s: %v", st.Text, err))
	}
	return ctx, nil
}

// after cleans up, records the verdict and, in strict mode, fails on warnings.
func (s *scenario) after(ctx context.Context, _ *godog.Scenario, err error) (context.Context, error) {
	s.cleanup(ctx)
	res := ScenarioResult{Feature: s.feature, Name: s.name, Tags: s.tags, Duration: time.Since(s.start), Checks: s.checks}
	switch {
	case len(s.kitErrs) > 0:
		res.Outcome, res.Messages = Error, append(s.kitErrs, s.failures...)
	case len(s.failures) > 0:
		res.Outcome, res.Messages = Fail, append(s.failures, s.warnings...)
	case len(s.warnings) > 0:
		res.Outcome, res.Messages = Warn, s.warnings
	case s.skipped != "":
		res.Outcome, res.Messages = Skip, []string{s.skipped}
	case err != nil && !errors.Is(err, godog.ErrSkip):
		res.Outcome, res.Messages = Fail, []string{err.Error()}
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
