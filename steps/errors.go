package steps

import (
	"context"
	"mime"
	"strings"

	"github.com/cucumber/godog"
	"github.com/go-resty/resty/v2"

	"github.com/conform-kit/conform/validate"
)

// errorSteps is the vocabulary of errors.feature: raw requests by method and path,
// with chosen bodies, media types and sizes.
func errorSteps() []stepDef {
	return []stepDef{
		step(`I (GET|POST|PUT|PATCH|DELETE) "([^"]*)"`, func(s *scenario) any { return s.request }),
		step(`I (POST|PUT|PATCH) "([^"]*)" with the body:`, func(s *scenario) any { return s.requestWithBody }),
		step(`I (POST|PUT|PATCH) "([^"]*)" with content type "([^"]*)" and the body:`, func(s *scenario) any { return s.requestWithType }),
		step(`I GET "([^"]*)" accepting "([^"]*)"`, func(s *scenario) any { return s.getAccepting }),
		step(`I POST "([^"]*)" with a body of (\d+) bytes`, func(s *scenario) any { return s.postLarge }),
	}
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
	return s.requestWithType(ctx, method, path, "", doc)
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
	ex, err := s.send(ctx, method, p, rawBody{ctype: ctype, data: []byte(content)}, s.user)
	if err != nil {
		return err
	}
	return s.skipUndeclaredType(ex, ctype)
}

// skipUndeclaredType skips a scenario whose request, sent with a JSON media
// type other than the one the target's profile declares, was refused for
// its media type: a target that declares its own request_content_type
// (not the reference's default, under which the reference's four types are
// expected) takes that one, and whether it takes others is its choice.
func (s *scenario) skipUndeclaredType(ex *exchange, ctype string) error {
	declared := s.suite.profile.RequestContentType
	mt, _, err := mime.ParseMediaType(ctype)
	if err != nil || !validate.JSONMediaType(mt) || sameMediaType(mt, declared) || declared == s.suite.v.DefaultProfile().RequestContentType {
		return nil
	}
	if ex.status < 400 || ex.status > 499 || !refusedForMediaType(s, ex, declared) {
		return nil
	}
	return &skipDeclared{key: keyRequestContentType, value: declared + " (whether it takes " + mt + " too is its choice)"}
}

// sameMediaType compares a media type with a header value, parameters ignored.
func sameMediaType(mt, header string) bool {
	got, _, err := mime.ParseMediaType(header)
	return err == nil && got == mt
}

func (s *scenario) getAccepting(ctx context.Context, path, accept string) error {
	p, err := s.expandChecked(path)
	if err != nil {
		return err
	}
	_, err = s.send(ctx, "GET", p, nil, s.user, func(r *resty.Request) { r.SetHeader("Accept", accept) })
	return err
}

// postLarge sends a JSON object of exactly n bytes.
func (s *scenario) postLarge(ctx context.Context, path string, n int) error {
	const head, tail = `{"tags":{"pad":"`, `"}}`
	pad := max(n-len(head)-len(tail), 0)
	body := head + strings.Repeat("x", pad) + tail
	_, err := s.send(ctx, "POST", path, rawBody{data: []byte(body)}, s.user)
	return err
}
