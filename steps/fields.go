package steps

import (
	"encoding/json"
	"fmt"
	"mime"
	"net/url"
	"path"
	"strconv"
	"strings"
)

// fieldSteps is the generic vocabulary on the last response: fields, links, media type.
func fieldSteps() []stepDef {
	return []stepDef{
		step(`the response field "([^"]*)" is one of "([^"]*)"`, func(s *scenario) any { return s.fieldOneOf }),
		step(`the response field "([^"]*)" is "([^"]*)"`, func(s *scenario) any { return s.fieldIsString }),
		step(`the response field "([^"]*)" is (-?\d+)`, func(s *scenario) any { return s.fieldIsInt }),
		step(`the response field "([^"]*)" is (true|false|null)`, func(s *scenario) any { return s.fieldIsLiteral }),
		step(`the response field "([^"]*)" is the ([a-z ]+) id`, func(s *scenario) any { return s.fieldIsID }),
		step(`the response field "([^"]*)" is absent`, func(s *scenario) any { return s.fieldAbsent }),
		step(`the response field "([^"]*)" is present`, func(s *scenario) any { return s.fieldPresent }),
		step(`the response field "([^"]*)" is an absolute URL`, func(s *scenario) any { return s.fieldAbsoluteURL }),
		step(`the response field "([^"]*)" starts with "([^"]*)"`, func(s *scenario) any { return s.fieldStartsWith }),
		step(`the response has no body`, func(s *scenario) any { return s.responseHasNoBody }),
		step(`the response carries the declared content type`, func(s *scenario) any { return s.contentTypeIsDeclared }),
		step(`the response fields "([^"]*)" and "([^"]*)" are equal`, func(s *scenario) any { return s.fieldsEqual }),
		step(`the link "([^"]*)" names the response field "([^"]*)"`, func(s *scenario) any { return s.linkNamesField }),
		step(`the response never contains the (card number|security code|password)`, func(s *scenario) any { return s.responseNeverContains }),
		step(`I remember the response as the ([a-z ]+)`, func(s *scenario) any { return s.rememberAs }),
	}
}

// field reads a dotted path from the last response.
func (s *scenario) field(path string) (*exchange, any, bool, error) {
	ex, err := s.lastExchange()
	if err != nil {
		return nil, nil, false, err
	}
	v, ok := lookup(ex.doc, path)
	return ex, v, ok, nil
}

func (s *scenario) fieldIsString(path, want string) error {
	ex, v, ok, err := s.field(path)
	if err != nil {
		return err
	}
	want = s.expand(want)
	if got, isStr := v.(string); !ok || !isStr || got != want {
		return s.judgeValue(ex, path, strconv.Quote(want), v, ok, s.failf(ex, "field %s = %s, want %q", path, render(v), want))
	}
	return nil
}

// judgeValue judges a field that is not the wanted value by the step's
// basis, with the field's value (or its absence) as the observed choice.
func (s *scenario) judgeValue(ex *exchange, path, want string, v any, present bool, err error) error {
	observed := render(v)
	if !present {
		observed = "absent"
	}
	return s.judgeCheck(Check{Basis: s.stepBasis(), Expected: path + " = " + want, Observed: observed, Err: err})
}

func (s *scenario) fieldIsInt(path string, want int64) error {
	ex, v, ok, err := s.field(path)
	if err != nil {
		return err
	}
	if got, isInt := asInt(v); !ok || !isInt || got != want {
		return s.judgeValue(ex, path, strconv.FormatInt(want, 10), v, ok, s.failf(ex, "field %s = %s, want %d", path, render(v), want))
	}
	return nil
}

func (s *scenario) fieldIsLiteral(path, lit string) error {
	ex, v, ok, err := s.field(path)
	if err != nil {
		return err
	}
	var want any
	_ = json.Unmarshal([]byte(lit), &want)
	if !ok || v != want {
		return s.judge(s.failf(ex, "field %s = %s, want %s", path, render(v), lit))
	}
	return nil
}

func (s *scenario) fieldIsID(path, role string) error {
	ex, v, _, err := s.field(path)
	if err != nil {
		return err
	}
	want, err := s.id(role)
	if err != nil {
		return err
	}
	if got, _ := v.(string); got != want {
		return s.judge(s.failf(ex, "field %s = %s, want the %s id %q", path, render(v), role, want))
	}
	return nil
}

func (s *scenario) fieldAbsent(path string) error {
	ex, v, ok, err := s.field(path)
	if err != nil {
		return err
	}
	if ok {
		return s.judge(s.failf(ex, "field %s = %s, want it absent", path, render(v)))
	}
	return nil
}

func (s *scenario) fieldPresent(path string) error {
	ex, _, ok, err := s.field(path)
	if err != nil {
		return err
	}
	if !ok {
		return s.judge(s.failf(ex, "field %s is absent", path))
	}
	return nil
}

func (s *scenario) fieldAbsoluteURL(path string) error {
	ex, v, _, err := s.field(path)
	if err != nil {
		return err
	}
	if !isAbsoluteURL(v) {
		return s.judge(s.failf(ex, "field %s = %s, want an absolute http(s) URL", path, render(v)))
	}
	return nil
}

func (s *scenario) fieldStartsWith(path, prefix string) error {
	ex, v, _, err := s.field(path)
	if err != nil {
		return err
	}
	if got, _ := v.(string); !strings.HasPrefix(got, prefix) {
		return s.judge(s.failf(ex, "field %s = %s, want a value starting with %q", path, render(v), prefix))
	}
	return nil
}

// responseNeverContains searches the whole raw response for a secret the scenario sent.
func (s *scenario) responseNeverContains(what string) error {
	ex, err := s.lastExchange()
	if err != nil {
		return err
	}
	secret, ok := s.sent[what]
	if !ok {
		return &kitError{fmt.Errorf("the scenario sent no %s", what)}
	}
	if strings.Contains(string(ex.body), secret) {
		// A secret returned is the secrets invariant's wherever it shows,
		// in an assumed scenario too (a card number the target accepts by
		// choice).
		return s.invariant("secrets", s.failf(ex, "the response contains the %s that was sent", what))
	}
	return nil
}

// rememberAs keeps the last response's id and representation under a role name.
func (s *scenario) rememberAs(role string) error {
	ex, v, _, err := s.field("id")
	if err != nil {
		return err
	}
	id, _ := v.(string)
	if id == "" {
		return s.fail(ex, "the response has no id to remember as the %s", role)
	}
	s.ids[role], s.docs[role] = id, ex.doc
	return nil
}

// responseHasNoBody: the response carries no body (e.g. §4.5 enrollment delete).
func (s *scenario) responseHasNoBody() error {
	ex, err := s.lastExchange()
	if err != nil {
		return err
	}
	if len(strings.TrimSpace(string(ex.body))) > 0 {
		return s.fail(ex, "the response has a body of %d bytes, want none", len(ex.body))
	}
	return nil
}

// linkNamesField: _links.<link>.href is an absolute URL whose last path
// segment is the value of the response field (the link leads to that resource).
func (s *scenario) linkNamesField(link, field string) error {
	ex, href, _, err := s.field("_links." + link + ".href")
	if err != nil {
		return err
	}
	want, _ := lookupString(ex.doc, field)
	str, _ := href.(string)
	u, perr := url.Parse(str)
	if want == "" || perr != nil || !isAbsoluteURL(str) || path.Base(u.Path) != want {
		return s.judge(s.failf(ex, "link %s = %s, want an absolute URL ending in /%s (the %s)", link, render(href), want, field))
	}
	return nil
}

// contentTypeIsDeclared: the media type of the response's Content-Type
// header, parameters aside, is the declared one (assumed: response_content_type).
func (s *scenario) contentTypeIsDeclared() error {
	ex, err := s.lastExchange()
	if err != nil {
		return err
	}
	want := s.suite.profile.ResponseContentType
	if !s.suite.profile.ContentTypeMatches(ex.header.Get("Content-Type")) {
		got, _, _ := mime.ParseMediaType(ex.header.Get("Content-Type"))
		var patch any
		if got != "" {
			patch = map[string]any{"response_content_type": got}
		}
		return s.assume("response_content_type", want, orNone(got), patch,
			s.failf(ex, "Content-Type %q, want %s", ex.header.Get("Content-Type"), want))
	}
	return nil
}

// fieldsEqual: two fields of the last response hold the same present value
// (e.g. created_at and updated_at of a resource just created).
func (s *scenario) fieldsEqual(a, b string) error {
	ex, va, okA, err := s.field(a)
	if err != nil {
		return err
	}
	vb, okB := lookup(ex.doc, b)
	if !okA || !okB || render(va) != render(vb) {
		return s.judgeCheck(Check{Basis: s.stepBasis(), Expected: a + " equal to " + b, Observed: render(va) + " and " + render(vb),
			Err: s.failf(ex, "field %s = %s and field %s = %s, want them equal", a, render(va), b, render(vb))})
	}
	return nil
}

func (s *scenario) fieldOneOf(path, set string) error {
	ex, v, _, err := s.field(path)
	if err != nil {
		return err
	}
	got, _ := v.(string)
	for _, want := range strings.Split(set, ",") {
		if strings.TrimSpace(want) == got {
			return nil
		}
	}
	return s.judge(s.failf(ex, "field %s = %s, want one of %s", path, render(v), set))
}
