package steps

import (
	"context"
	"encoding/json"
	"fmt"
	"mime"
	"slices"
	"strconv"
	"strings"

	"github.com/cucumber/godog"
	"github.com/go-resty/resty/v2"

	"github.com/conform-kit/conform/validate"
	"github.com/conform-kit/conform/validate/judging"
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
		step(`the Accept naming no JSON type is handled as the profile declares`, func(s *scenario) any { return s.acceptUnserved }),
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

// skipUndeclaredType judges a request sent on purpose with a JSON media type
// other than the declared request_content_type that the target refused for
// its media type. Which other types a target takes is its choice: a type the
// profile's request_media_types leaves out (or any, when the target declares
// its own request_content_type) is not asked about, and the scenario is
// skipped; a listed one warns under request_media_types, observing the list
// without it, and stops the scenario.
func (s *scenario) skipUndeclaredType(ex *exchange, ctype string) error {
	p := &s.suite.profile
	declared := p.RequestContentType
	mt, _, err := mime.ParseMediaType(ctype)
	if err != nil || !validate.JSONMediaType(mt) || sameMediaType(mt, declared) {
		return nil
	}
	if ex.status < 400 || ex.status > 499 || !refusedForMediaType(s, ex, declared) {
		return nil
	}
	listed := slices.ContainsFunc(p.RequestMediaTypes, func(t string) bool { return sameMediaType(mt, t) })
	if !listed || declared != s.suite.j.DefaultProfile().RequestContentType {
		return &skipDeclared{key: keyRequestMediaTypes, value: strings.Join(p.RequestMediaTypes, ", ") + " and " + declared + " (whether it takes " + mt + " too is its choice)"}
	}
	taken := without(p.RequestMediaTypes, func(t string) bool { return sameMediaType(mt, t) })
	c := Check{Basis: judging.Basis{Assumed: keyRequestMediaTypes, Clauses: slices.Clone(s.clauses)}, Key: keyRequestMediaTypes,
		Expected: mt + " taken", Observed: strconv.Itoa(ex.status),
		Err: s.failf(ex, "a JSON body sent as %s was refused for its media type (%d)", mt, ex.status)}
	c.Patch, _ = json.Marshal(map[string][]string{keyRequestMediaTypes: taken})
	if err := s.judgeCheck(c); err != nil {
		return err
	}
	return fmt.Errorf("%w: the rest of the scenario needs a body the target took", godog.ErrSkip)
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

// acceptUnserved judges the answer to an Accept naming no JSON type. §7
// names the condition (Not Acceptable) but not that a server must refuse
// it, and HTTP lets a server disregard Accept: whether it refuses or
// ignores is assumed (accept_unserved). What both readings share is
// normative: a refusal is a 4xx in the §7 envelope (its status and codes
// are refusals.not_acceptable), an answer ignoring Accept is the
// operation's success; anything else FAILs.
func (s *scenario) acceptUnserved() error {
	ex, err := s.lastExchange()
	if err != nil {
		return err
	}
	declared := s.suite.profile.AcceptUnserved
	refused := ex.status >= 400 && ex.status <= 499
	if ex.status >= 200 && ex.status <= 299 {
		if declared != judging.AcceptIgnore {
			if err := s.assume(keyAcceptUnserved, declared, judging.AcceptIgnore+" ("+strconv.Itoa(ex.status)+")",
				map[string]string{keyAcceptUnserved: judging.AcceptIgnore},
				s.failf(ex, "an Accept naming no JSON type was answered %d; the profile declares it refused", ex.status)); err != nil {
				return err
			}
		}
		return s.checkSuccess(ex)
	}
	if refused && declared != judging.AcceptRefuse {
		if err := s.assume(keyAcceptUnserved, declared, judging.AcceptRefuse+" ("+strconv.Itoa(ex.status)+")",
			map[string]string{keyAcceptUnserved: judging.AcceptRefuse},
			s.failf(ex, "an Accept naming no JSON type was refused with %d; the profile declares it ignored", ex.status)); err != nil {
			return err
		}
	}
	return s.checkRefused(ex, judging.RefusalNotAcceptable)
}

// keyAcceptUnserved is the profile key of the Accept choice (schemas/judging.json).
const keyAcceptUnserved = "accept_unserved"
