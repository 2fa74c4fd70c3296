package steps

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/cucumber/godog"

	"github.com/conform-kit/conform/validate/judging"
)

// Check is one failed check of a scenario with the basis it judged by
// (schemas/judging.json): a normative check names the spec sections or the
// safety invariant it enforces and FAILs; an assumed one names the profile
// key of the choice it checked and WARNs.
type Check struct {
	// Basis is what the check enforces; Basis.Normative() decides FAIL or WARN.
	Basis judging.Basis
	// Key names the assumed choice: the profile key, with the entry of a
	// map-valued key ("refusals.not_found", "success_status.transfers.create");
	// "" for a normative check.
	Key string
	// Expected is what the target's profile (or the spec) says; Observed what the target did.
	Expected, Observed string
	// Message describes the failure with its evidence (request, response,
	// curl): Err's message, when Err is set.
	Message string
	// Err is the failure: a report reads the exchange it names and the
	// violations of a *validate.Error behind it with errors.As.
	Err error
	// Patch is a profile object declaring the observed choice
	// ({"create_status": 200}); nil when the observation declares nothing.
	Patch json.RawMessage
}

// Cites renders the check's basis for a report ("§4.1, §7", "invariant
// secrets", "assumed: refusals.not_found").
func (c Check) Cites() string {
	if c.Basis.Normative() {
		return c.Basis.Cites()
	}
	return "assumed: " + c.Key
}

// Scenario-level and step-level markers of the features: a scenario tagged
// @assumed names the profile key of its checks with a tag @profile-<key>; a
// step ending in "(assumed: <key>)" has its checks judged under that key.
var (
	assumedStepSuffix = regexp.MustCompile(` \(assumed: ([a-z_]+)\)$`)
	profileTagPrefix  = "@profile-"
	specTagPrefix     = "@spec-"
)

// stepBasis is the basis of the generic checks of the current step: the
// step's key, else the scenario's key when it is @assumed, else the spec
// sections the scenario's tags name.
func (s *scenario) stepBasis() judging.Basis {
	switch {
	case s.stepKey != "":
		return judging.Basis{Assumed: s.stepKey, Clauses: slices.Clone(s.clauses)}
	case s.allAssumed:
		return judging.Basis{Assumed: s.profileKey, Clauses: slices.Clone(s.clauses)}
	}
	return judging.Basis{Clauses: slices.Clone(s.clauses)}
}

// stepAssumed reports whether the current step's generic checks are assumed.
func (s *scenario) stepAssumed() bool { return !s.stepBasis().Normative() }

// judgeCheck records a failed check: a normative one is returned as the
// step's error (FAIL); an assumed one becomes a warning naming its key and
// the value observed (WARN) and nil is returned, so the scenario goes on.
func (s *scenario) judgeCheck(c Check) error {
	if c.Err != nil && c.Message == "" {
		c.Message = c.Err.Error()
	}
	if c.Basis.Assumed != "" && !s.suite.profileKeys[c.Basis.Assumed] {
		return &kitError{fmt.Errorf("a check is assumed under %q, which is not a profile key of judging.json", c.Basis.Assumed)}
	}
	if c.Basis.Normative() && len(c.Basis.Clauses)+len(c.Basis.Invariants) == 0 {
		return &kitError{fmt.Errorf("a normative check names no spec section or invariant: %s", c.Message)}
	}
	if !c.Basis.Normative() && c.Key == "" {
		c.Key = c.Basis.Assumed
	}
	if !c.Basis.Normative() && s.declaresUnchecked(c.Basis.Assumed) {
		return nil // the target declares it does not share this choice
	}
	if c.Basis.Assumed == keyAlsoMethods && c.Patch == nil && s.last != nil && s.last.hasOp && s.last.method != s.last.op.Method {
		// A method the spec does not name, not answered: the target
		// answers the operation with the spec's method alone.
		methods := slices.DeleteFunc(slices.Clone(s.suite.profile.AlsoMethods[s.last.op.ID]), func(m string) bool { return m == s.last.method })
		c.Patch, _ = json.Marshal(map[string]map[string][]string{keyAlsoMethods: {s.last.op.ID: nonNil(methods)}})
	}
	if !c.Basis.Normative() && c.Patch == nil && s.offersUnchecked(c.Basis.Assumed) {
		// The observed choice is not the reference's: a key that may be
		// unchecked is written so.
		c.Patch, _ = json.Marshal(map[string]string{c.Basis.Assumed: judging.Unchecked})
	}
	s.verdict(Verdict{Report: s.reportCheck(c), Judged: &c})
	if c.Basis.Normative() {
		return &judgedError{msg: fmt.Sprintf("(%s) %s", citesWithWords(c.Basis), c.Message)}
	}
	return nil
}

// keyAlsoMethods is the profile key of the methods a target answers an
// operation with beyond the one the spec names.
const keyAlsoMethods = "also_methods"

// citesWithWords renders a normative basis with the spec's words it rests
// on, so the one line of a FAIL names the sentence to read and argue with:
// §8 — the spec: "Card address.city: max 20 characters".
func citesWithWords(b judging.Basis) string {
	if b.Says == "" {
		return b.Cites()
	}
	return b.Cites() + " — the spec: \u201c" + b.Says + "\u201d"
}

// judgedError is the step error of a failed normative check already
// recorded with its basis: the scenario FAILs, no second check is recorded.
type judgedError struct{ msg string }

func (e *judgedError) Error() string { return e.msg }

func orNone(v string) string {
	if v == "" {
		return "-"
	}
	return v
}

// judge judges a failed generic check by the current step's basis.
func (s *scenario) judge(err error) error {
	if err == nil {
		return nil
	}
	return s.judgeCheck(Check{Basis: s.stepBasis(), Err: err})
}

// fail judges a failed generic check of an exchange by the current step's basis.
func (s *scenario) fail(ex *exchange, format string, args ...any) error {
	return s.judge(s.failf(ex, format, args...))
}

// normative judges a failed check by the spec sections of its own, whatever
// the step or scenario is marked (a FAIL).
func (s *scenario) normative(clauses []string, err error) error {
	return s.judgeCheck(Check{Basis: judging.Basis{Clauses: clauses}, Err: err})
}

// invariant judges a failed check of a safety invariant: always a FAIL.
func (s *scenario) invariant(name string, err error) error {
	if _, ok := s.suite.table.Invariants[name]; !ok {
		return &kitError{fmt.Errorf("unknown invariant %q", name)}
	}
	return s.judgeCheck(Check{Basis: judging.Basis{Invariants: []string{name}, Clauses: slices.Clone(s.clauses)}, Err: err})
}

// assume judges a failed assumed check under a profile key (key may carry a
// map entry: "refusals.not_found"): a WARN naming the key, what the profile
// expects and what was observed. patch, when not nil, is the profile object
// that declares the observed choice (for --write-profile).
func (s *scenario) assume(key, expected, observed string, patch any, err error) error {
	top, _, _ := strings.Cut(key, ".")
	c := Check{Basis: judging.Basis{Assumed: top, Clauses: slices.Clone(s.clauses)}, Key: key, Expected: expected, Observed: observed, Err: err}
	if patch != nil {
		b, merr := json.Marshal(patch)
		if merr != nil {
			return &kitError{fmt.Errorf("encode the observed profile value of %s: %w", key, merr)}
		}
		c.Patch = b
	}
	return s.judgeCheck(c)
}

// declares reports whether the profile gives key the value "unchecked":
// the target declares it does not share the reference's choice, so the
// kit does not check it.
func (s *scenario) declaresUnchecked(key string) bool {
	v, ok := s.suite.profile.Value(key)
	return ok && string(v) == `"`+judging.Unchecked+`"`
}

// offersUnchecked reports whether key may take the value "unchecked".
func (s *scenario) offersUnchecked(key string) bool {
	for _, k := range s.suite.table.Profile {
		if k.Key == key {
			return slices.Contains(k.Values, judging.Unchecked)
		}
	}
	return false
}

// skipDeclared stops a scenario whose subject the target's profile declares
// it does not offer: a SKIP naming the key and the declared value.
type skipDeclared struct{ key, value string }

func (e *skipDeclared) Error() string {
	return fmt.Sprintf("skipped: the target's profile declares %s %s", e.key, e.value)
}

func (e *skipDeclared) Unwrap() error { return godog.ErrSkip }

// declaredSkip skips an @assumed scenario whose subject the target's
// profile declares it does not have: no such trigger. A key declared
// unchecked skips nothing: the scenario runs, its checks under the key are
// dropped (judgeCheck) and its normative checks count.
func (s *scenario) declaredSkip() error {
	if !s.allAssumed {
		return nil
	}
	p := &s.suite.profile
	switch s.profileKey {
	case "decline_trigger_amount":
		if _, ok := p.DeclineTrigger(); !ok {
			return &skipDeclared{key: s.profileKey, value: "0 (no decline trigger)"}
		}
	case "dispute_trigger_amount":
		if _, ok := p.DisputeTrigger(); !ok {
			return &skipDeclared{key: s.profileKey, value: "0 (no dispute trigger)"}
		}
	case "file_reject_trigger":
		if p.FileRejectTrigger == "" {
			return &skipDeclared{key: s.profileKey, value: `"" (no reject trigger)`}
		}
	}
	return nil
}

// parseTags reads the judging markers of a scenario's tags: the spec
// sections (@spec-4.1) and the profile key of an @assumed scenario.
func (s *scenario) parseTags() {
	for _, t := range s.tags {
		switch {
		case strings.HasPrefix(t, specTagPrefix):
			if c := strings.TrimPrefix(t, specTagPrefix); !slices.Contains(s.clauses, c) {
				s.clauses = append(s.clauses, c)
			}
		case strings.HasPrefix(t, profileTagPrefix):
			s.profileKey = strings.TrimPrefix(t, profileTagPrefix)
		case t == "@assumed":
			s.allAssumed = true
		}
	}
}

// stepKeyOf returns the key of a step ending in "(assumed: <key>)", or "".
func stepKeyOf(text string) string {
	if m := assumedStepSuffix.FindStringSubmatch(text); m != nil {
		return m[1]
	}
	return ""
}
