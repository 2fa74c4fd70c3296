package steps

import (
	"strings"
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

// refusal maps a refusal phrase to DESIGN.md's status and code (both assumed).
func refusal(kind string) (int, string) {
	switch kind {
	case "unauthenticated":
		return 401, "UNKNOWN"
	case "forbidden":
		return 403, "FORBIDDEN"
	case "not found":
		return 404, "NOT_FOUND"
	case "unprocessable":
		return 422, "UNPROCESSABLE_ENTITY"
	case "declined":
		return 402, ""
	case "not acceptable":
		return 406, "NOT_ACCEPTABLE"
	case "malformed":
		return 400, "BAD_REQUEST"
	case "method not allowed":
		return 405, "METHOD_NOT_ALLOWED"
	case "too large":
		return 413, "REQUEST_TOO_LARGE"
	}
	return 0, ""
}

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
	return s.checkRefused(ex, 0, "")
}

func (s *scenario) requestRefusedAs(kind string) error {
	ex, err := s.lastExchange()
	if err != nil {
		return err
	}
	status, code := refusal(kind)
	return s.checkRefused(ex, status, code)
}

// refusedInvalidField: refused (normative); 422 INVALID_FIELD naming the field (assumed).
func (s *scenario) refusedInvalidField(pointer string) error {
	ex, err := s.lastExchange()
	if err != nil {
		return err
	}
	if err := s.checkRefused(ex, 422, "INVALID_FIELD"); err != nil {
		return err
	}
	want := strings.TrimPrefix(pointer, "/")
	for _, f := range errorField(ex.doc, "field") {
		if got := strings.TrimPrefix(f, "/"); got == want || strings.HasSuffix(want, "/"+got) {
			return nil
		}
	}
	return s.judge(true, s.failf(ex, "no error item names field %s (fields: %v)", pointer, errorField(ex.doc, "field")))
}

// expand replaces {role} with remembered ids, {fixture:key} with fixtures and {run_id}.
func (s *scenario) expand(text string) string {
	if !strings.Contains(text, "{") {
		return text
	}
	if strings.Contains(text, "{hook_url}") {
		s.ensureHookURL()
	}
	pairs := []string{"{run_id}", s.suite.cfg.RunID, "{hook_url}", s.hookURL}
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
