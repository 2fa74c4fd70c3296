package steps

import (
	"strings"

	"github.com/conform-kit/conform/validate/judging"
)

// httpSteps is the generic vocabulary: who calls and whether the request succeeded or was refused.
func httpSteps() []stepDef {
	return []stepDef{
		step(`I am the (platform|merchant|other application) user`, func(s *scenario) any { return s.iAmUser }),
		step(`the request succeeds`, func(s *scenario) any { return s.requestSucceeds }),
		step(`the request is refused`, func(s *scenario) any { return s.requestRefused }),
		step(`the request is refused as (unauthenticated|forbidden|not found|unprocessable|declined|not acceptable|malformed|method not allowed|too large)`, func(s *scenario) any { return s.requestRefusedAs }),
		step(`the request is refused as an invalid field "([^"]*)"`, func(s *scenario) any { return s.refusedInvalidField }),
	}
}

// refusalKind maps a refusal phrase of the features ("not found") to its
// kind in the refusals table of judging.json ("not_found").
func refusalKind(phrase string) string { return strings.ReplaceAll(phrase, " ", "_") }

func (s *scenario) iAmUser(role string) error {
	key := strings.ReplaceAll(role, " ", "_")
	if s.suite.cfg.credential(key) == nil {
		return &skipError{key: "credentials." + key}
	}
	s.user, s.auth = key, authUser
	return nil
}

func (s *scenario) requestSucceeds() error {
	ex, err := s.lastExchange()
	if err != nil {
		return err
	}
	return s.checkSuccess(ex)
}

func (s *scenario) requestRefused() error {
	ex, err := s.lastExchange()
	if err != nil {
		return err
	}
	return s.checkRefused(ex, "")
}

func (s *scenario) requestRefusedAs(kind string) error {
	ex, err := s.lastExchange()
	if err != nil {
		return err
	}
	return s.checkRefused(ex, refusalKind(kind))
}

// refusedInvalidField: refused (normative); the declared invalid_field
// status and codes, with an item naming the field (assumed:
// refusals.invalid_field; reference_rules in a scenario of that key, where
// the field is named by one of the reference's rules).
func (s *scenario) refusedInvalidField(pointer string) error {
	return s.refusedInvalidFieldOf(pointer)
}

// refusedInvalidFieldOf is refusedInvalidField with an item naming any of pointers.
func (s *scenario) refusedInvalidFieldOf(pointers ...string) error {
	ex, err := s.lastExchange()
	if err != nil {
		return err
	}
	if err := s.checkRefused(ex, judging.RefusalInvalidField); err != nil || ex.status < 400 || ex.status > 499 {
		return err
	}
	if refusalNotAsked(ex, judging.RefusalInvalidField) {
		return nil // the route is not the target's (judged above): no field was read
	}
	p := &s.suite.profile
	if p.ErrorFieldForm == judging.FieldFormNone {
		return nil // the target's items name no field
	}
	names := errorField(ex.doc, p.ErrorFieldMember)
	for _, pointer := range pointers {
		for _, f := range names {
			if fieldNamed(p.ErrorFieldForm, f, pointer) {
				return nil
			}
		}
	}
	named := strings.Join(pointers, " or ")
	for _, pointer := range pointers {
		if member, form, ok := fieldFormOf(ex.doc, pointer); ok {
			// An item names the field, in another form or member.
			return s.assume(keyErrorFieldForm, p.ErrorFieldForm+" in "+p.ErrorFieldMember, form+" in "+member,
				map[string]any{keyErrorFieldForm: form, keyErrorFieldMember: member},
				s.failf(ex, "an error item names field %s as a %s name in %q; the profile declares a %s name in %q", named, form, member, p.ErrorFieldForm, p.ErrorFieldMember))
		}
	}
	key := "refusals." + judging.RefusalInvalidField
	if s.stepBasis().Assumed == keyReferenceRules {
		// The reference's rule (every violation reported) is what names
		// the field, not the form of the refusal.
		key = keyReferenceRules
	}
	return s.assume(key, "an item naming "+named, "fields "+render(names), nil,
		s.failf(ex, "no error item names field %s (fields: %v)", named, names))
}

// Profile keys of how an error item names its field (schemas/judging.json).
const (
	keyErrorFieldForm   = "error_field_form"
	keyErrorFieldMember = "error_field_member"
)

// expand replaces {role} with remembered ids, {fixture:key} with fixtures and {run_id}.
func (s *scenario) expand(text string) string {
	if !strings.Contains(text, "{") {
		return text
	}
	if strings.Contains(text, "{hook_url}") {
		s.ensureHookURL()
	}
	pairs := []string{"{run_id}", s.suite.cfg.RunID, "{hook_url}", s.hookURL, "{file_reject_trigger}", s.suite.profile.FileRejectTrigger}
	for k, v := range s.ids {
		pairs = append(pairs, "{"+k+"}", v)
	}
	for _, f := range s.suite.cfg.Fixtures.fields() {
		pairs = append(pairs, "{fixture:"+f.key+"}", *f.p)
	}
	return strings.NewReplacer(pairs...).Replace(text)
}

// expandChecked expands text and skips when it names a fixture that is not configured.
func (s *scenario) expandChecked(text string) (string, error) {
	for _, f := range s.suite.cfg.Fixtures.fields() {
		if *f.p == "" && strings.Contains(text, "{fixture:"+f.key+"}") {
			return "", &skipError{key: "fixtures." + f.key}
		}
	}
	return s.expand(text), nil
}
