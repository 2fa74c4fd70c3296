package steps

import (
	"context"
	"fmt"
	"strings"

	"github.com/cucumber/godog"
	"github.com/go-resty/resty/v2"
)

// httpSteps is the generic vocabulary: who calls, raw requests, refusals and field checks.
func httpSteps() []stepDef {
	return []stepDef{
		step(`I am the (platform|merchant|other application) user`, func(s *scenario) any { return s.iAmUser }),
		step(`I send no credentials`, func(s *scenario) any { return s.sendNoCredentials }),
		step(`I send a wrong password`, func(s *scenario) any { return s.sendWrongPassword }),
		step(`I call "([^"]*)"`, func(s *scenario) any { return s.callOperation }),
		step(`I call "([^"]*)" without credentials`, func(s *scenario) any { return s.callWithoutCredentials }),
		step(`I call "([^"]*)" with a wrong password`, func(s *scenario) any { return s.callWithWrongPassword }),
		step(`I (GET|POST|PUT|PATCH|DELETE) "([^"]*)"`, func(s *scenario) any { return s.request }),
		step(`I (POST|PUT|PATCH) "([^"]*)" with the body:`, func(s *scenario) any { return s.requestWithBody }),
		step(`I (POST|PUT|PATCH) "([^"]*)" with content type "([^"]*)" and the body:`, func(s *scenario) any { return s.requestWithType }),
		step(`I GET "([^"]*)" accepting "([^"]*)"`, func(s *scenario) any { return s.getAccepting }),
		step(`I POST "([^"]*)" with a body of (\d+) bytes`, func(s *scenario) any { return s.postLarge }),
		step(`the request succeeds`, func(s *scenario) any { return s.requestSucceeds }),
		step(`the request is refused`, func(s *scenario) any { return s.requestRefused }),
		step(`the request is refused as (unauthenticated|forbidden|not found|unprocessable|declined|not acceptable|malformed|method not allowed|too large)`, func(s *scenario) any { return s.requestRefusedAs }),
		step(`the request is refused as an invalid field "([^"]*)"`, func(s *scenario) any { return s.refusedInvalidField }),
		step(`the response field "([^"]*)" is "([^"]*)"`, func(s *scenario) any { return s.fieldIsString }),
		step(`the response field "([^"]*)" is (-?\d+)`, func(s *scenario) any { return s.fieldIsInt }),
		step(`the response field "([^"]*)" is (true|false|null)`, func(s *scenario) any { return s.fieldIsLiteral }),
		step(`the response field "([^"]*)" is the ([a-z ]+) id`, func(s *scenario) any { return s.fieldIsID }),
		step(`the response field "([^"]*)" is absent`, func(s *scenario) any { return s.fieldAbsent }),
		step(`the response field "([^"]*)" is present`, func(s *scenario) any { return s.fieldPresent }),
		step(`the response field "([^"]*)" is an absolute URL`, func(s *scenario) any { return s.fieldAbsoluteURL }),
		step(`the response field "([^"]*)" starts with "([^"]*)"`, func(s *scenario) any { return s.fieldStartsWith }),
		step(`the response has no body`, func(s *scenario) any { return s.responseHasNoBody }),
		step(`the response content type is "([^"]*)"`, func(s *scenario) any { return s.contentTypeIs }),
		step(`the response fields "([^"]*)" and "([^"]*)" are equal`, func(s *scenario) any { return s.fieldsEqual }),
		step(`the link "([^"]*)" names the response field "([^"]*)"`, func(s *scenario) any { return s.linkNamesField }),
		step(`the response never contains the (card number|security code|password)`, func(s *scenario) any { return s.responseNeverContains }),
		step(`I remember the response as the ([a-z ]+)`, func(s *scenario) any { return s.rememberAs }),
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

func (s *scenario) sendNoCredentials() error { s.auth = authNone; return nil }

func (s *scenario) sendWrongPassword() error { s.auth = authWrongPassword; return nil }

func (s *scenario) callOperation(ctx context.Context, opID string) error {
	return s.call(ctx, opID, false)
}

func (s *scenario) callWithoutCredentials(ctx context.Context, opID string) error {
	defer func() { s.auth = authUser }()
	s.auth = authNone
	return s.call(ctx, opID, true)
}

func (s *scenario) callWithWrongPassword(ctx context.Context, opID string) error {
	defer func() { s.auth = authUser }()
	s.auth = authWrongPassword
	return s.call(ctx, opID, true)
}

// call invokes an operation of the table with path ids from the scenario
// (or placeholders) and a sample body.
func (s *scenario) call(ctx context.Context, opID string, placeholders bool) error {
	op, ok := s.suite.v.Operation(opID)
	if !ok {
		return &kitError{fmt.Errorf("unknown operation %q", opID)}
	}
	path, err := s.fillPath(op, placeholders)
	if err != nil {
		return err
	}
	body, err := s.sampleBody(op, placeholders)
	if err != nil {
		return err
	}
	_, err = s.send(ctx, op.Method, path, body, s.user)
	return err
}

func (s *scenario) request(ctx context.Context, method, path string) error {
	p, err := s.expandChecked(path)
	if err != nil {
		return err
	}
	_, err = s.send(ctx, method, p, nil, s.user)
	return err
}

func (s *scenario) requestWithBody(ctx context.Context, method, path string, doc *godog.DocString) error {
	return s.requestWithType(ctx, method, path, jsonType, doc)
}

func (s *scenario) requestWithType(ctx context.Context, method, path, ctype string, doc *godog.DocString) error {
	p, err := s.expandChecked(path)
	if err != nil {
		return err
	}
	content, err := s.expandChecked(doc.Content)
	if err != nil {
		return err
	}
	_, err = s.send(ctx, method, p, rawBody{ctype: ctype, data: []byte(content)}, s.user)
	return err
}

func (s *scenario) getAccepting(ctx context.Context, path, accept string) error {
	p, err := s.expandChecked(path)
	if err != nil {
		return err
	}
	_, err = s.send(ctx, "GET", p, nil, s.user, func(r *resty.Request) { r.SetHeader("Accept", accept) })
	return err
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
	for k, p := range s.suite.cfg.Fixtures.fields() {
		pairs = append(pairs, "{fixture:"+k+"}", *p)
	}
	return strings.NewReplacer(pairs...).Replace(text)
}

// expandChecked expands text and skips when it names a fixture that is not configured.
func (s *scenario) expandChecked(text string) (string, error) {
	for k, p := range s.suite.cfg.Fixtures.fields() {
		if *p == "" && strings.Contains(text, "{fixture:"+k+"}") {
			return "", &skipError{key: "fixtures." + k}
		}
	}
	return s.expand(text), nil
}

// postLarge sends a JSON object of exactly n bytes.
func (s *scenario) postLarge(ctx context.Context, path string, n int) error {
	const head, tail = `{"tags":{"pad":"`, `"}}`
	pad := max(n-len(head)-len(tail), 0)
	body := head + strings.Repeat("x", pad) + tail
	_, err := s.send(ctx, "POST", path, rawBody{ctype: jsonType, data: []byte(body)}, s.user)
	return err
}
