package steps

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"

	"github.com/go-resty/resty/v2"

	"github.com/conform-kit/conform/validate"
	"github.com/conform-kit/conform/validate/judging"
)

// wrongPassword is sent by the "wrong password" steps.
const wrongPassword = "not-the-password-0"

// exchange is one request and its response, kept as evidence.
type exchange struct {
	method, path, url string
	user              string
	auth              authMode
	reqType           string
	reqBody           []byte
	part              *filePart
	op                validate.Operation
	hasOp             bool
	status            int
	header            http.Header
	body              []byte
	doc               any       // decoded with UseNumber; nil when the body is not JSON
	schemaJudged      bool      // the response schema was already judged
	forms             []formUse // the assumed forms the request was written in
}

// filePart is a multipart upload (form part "file").
type filePart struct {
	name string
	data []byte
}

// rawBody is a body sent as is with its own content type; an empty ctype
// sends it as JSON with the scenario's request media type.
type rawBody struct {
	ctype string
	data  []byte
}

// send performs one request as user (a credential key) under the scenario's
// auth mode and records it as the last exchange. Network errors are kit errors.
func (s *scenario) send(ctx context.Context, method, path string, body any, user string, opts ...func(*resty.Request)) (*exchange, error) {
	if c := s.suite.cfg.credential(user); c != nil && s.auth == authUser {
		s.secrets = appendSecret(s.secrets, c.Password)
	}
	sent, err := s.sendForms(func(over map[string]string) (*exchange, error) {
		return s.roundTripForms(ctx, method, path, body, user, over, opts...)
	}, body)
	if err != nil {
		return nil, err
	}
	for _, ex := range sent[:len(sent)-1] {
		if err := s.record(ex); err != nil {
			return nil, err
		}
	}
	ex := sent[len(sent)-1]
	return ex, s.record(ex)
}

// record makes ex the last exchange, tracks what it created and judges the
// schema of a 2xx response.
func (s *scenario) record(ex *exchange) error {
	s.last = ex
	s.rec.exchanges = append(s.rec.exchanges, ex)
	s.noteOperation(ex)
	if ex.status >= 200 && ex.status <= 299 {
		s.track(ex)
		return s.checkSchema(ex)
	}
	return nil
}

// roundTrip performs one request and returns it as an exchange without
// touching the scenario's state, so several may run at once (body is only read).
func (s *scenario) roundTrip(ctx context.Context, method, path string, body any, user string, opts ...func(*resty.Request)) (*exchange, error) {
	return s.roundTripForms(ctx, method, path, body, user, nil, opts...)
}

// roundTripForms is roundTrip with the request written in the scenario's
// forms, over replacing some of them (forms.go).
func (s *scenario) roundTripForms(ctx context.Context, method, path string, body any, user string, over map[string]string, opts ...func(*resty.Request)) (*exchange, error) {
	p, query, _ := strings.Cut(path, "?")
	op, _, lookupErr := s.suite.v.Lookup(method, p)
	if lookupErr == nil {
		if !s.suite.profile.Offers(op) {
			return nil, &skipDeclared{key: "extensions", value: "without " + op.ID}
		}
		method, path = declaredRoute(s.suite.profile, op, method, p, query)
	}
	ex := &exchange{method: method, path: path, url: s.suite.cfg.Target + path, user: user, auth: s.auth}
	req := s.suite.client.R().SetContext(ctx)
	if err := s.setAuth(req, ex); err != nil {
		return nil, err
	}
	body, ctype, forms := s.writeForms(op.ID, body, over)
	ex.forms = forms
	if err := setBody(req, ex, body, ctype); err != nil {
		return nil, err
	}
	for _, o := range opts {
		o(req)
	}
	resp, err := req.Execute(method, ex.url)
	if err != nil {
		return nil, &kitError{fmt.Errorf("%s %s: %w", method, path, err)}
	}
	ex.status, ex.header, ex.body = resp.StatusCode(), resp.Header(), resp.Body()
	ex.doc = decodeJSON(ex.body)
	if lookupErr == nil {
		ex.op, ex.hasOp = op, true
		s.suite.results.cover(op.ID, ex.status)
	}
	return ex, nil
}

// declaredRoute is the method and path the target declares for an
// operation (webhook_routes), with the path parameters of the table's path.
func declaredRoute(p judging.Profile, op validate.Operation, method, path, query string) (string, string) {
	m, pattern := p.Route(op)
	if m == op.Method && pattern == op.Path {
		return method, withRawQuery(path, query)
	}
	var params []string
	want := strings.Split(strings.Trim(op.Path, "/"), "/")
	got := strings.Split(strings.Trim(path, "/"), "/")
	for i, seg := range want {
		if strings.HasPrefix(seg, "{") && i < len(got) {
			params = append(params, got[i])
		}
	}
	segs := strings.Split(strings.Trim(pattern, "/"), "/")
	for i, seg := range segs {
		if strings.HasPrefix(seg, "{") && len(params) > 0 {
			segs[i], params = params[0], params[1:]
		}
	}
	return m, withRawQuery("/"+strings.Join(segs, "/"), query)
}

func (s *scenario) setAuth(req *resty.Request, ex *exchange) error {
	if ex.auth == authNone {
		return nil
	}
	c := s.suite.cfg.credential(ex.user)
	if c == nil {
		return &skipError{key: "credentials." + ex.user}
	}
	pw := c.Password
	if ex.auth == authWrongPassword {
		pw = wrongPassword
	}
	req.SetBasicAuth(c.Username, pw)
	return nil
}

func setBody(req *resty.Request, ex *exchange, body any, jsonType string) error {
	switch b := body.(type) {
	case nil:
		return nil
	case *filePart:
		ex.part = b
		req.SetFileReader("file", b.name, bytes.NewReader(b.data))
		return nil
	case rawBody:
		ex.reqType, ex.reqBody = cmp.Or(b.ctype, jsonType), b.data
	default:
		data, err := json.Marshal(b)
		if err != nil {
			return &kitError{fmt.Errorf("encode request body: %w", err)}
		}
		ex.reqType, ex.reqBody = jsonType, data
	}
	if ex.reqType != "" {
		req.SetHeader("Content-Type", ex.reqType)
	}
	req.SetBody(ex.reqBody)
	return nil
}

func appendSecret(list []string, v string) []string {
	if len(v) < 3 {
		return list
	}
	for _, x := range list {
		if x == v {
			return list
		}
	}
	return append(list, v)
}

// secretKeys reports JSON keys whose values are masked in every message.
func secretKeys(k string) bool {
	switch k {
	case "password", "number", "security_code", "secret_signing_key", "api_key", "third_party_token":
		return true
	}
	return false
}

// mask hides secrets in text: values of secret JSON keys and every known secret.
func (s *scenario) mask(data []byte) string {
	out := string(data)
	var doc any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if len(data) > 0 && dec.Decode(&doc) == nil {
		if b, err := json.Marshal(maskDoc(doc)); err == nil {
			out = string(b)
		}
	}
	for _, sec := range s.secrets {
		out = strings.ReplaceAll(out, sec, "****")
	}
	return out
}

func maskDoc(doc any) any {
	switch d := doc.(type) {
	case map[string]any:
		m := make(map[string]any, len(d))
		for k, v := range d {
			if secretKeys(k) {
				if _, isStr := v.(string); isStr {
					v = "****"
				}
			}
			m[k] = maskDoc(v)
		}
		return m
	case []any:
		l := make([]any, len(d))
		for i, v := range d {
			l[i] = maskDoc(v)
		}
		return l
	}
	return doc
}

// curlRequest writes command, the method and URL, the credentials (as the
// CONFORM_* variables) and the uploaded file of an exchange's request.
func (s *scenario) curlRequest(b *strings.Builder, command string, ex *exchange) {
	fmt.Fprintf(b, "%s -X %s %s", command, ex.method, shellQuote(ex.url))
	if ex.auth != authNone && s.suite.cfg.credential(ex.user) != nil {
		user, pw := credentialEnv(ex.user)
		if ex.auth == authWrongPassword {
			pw = wrongPassword
		}
		fmt.Fprintf(b, ` -u "%s:%s"`, user, pw)
	}
	if ex.part != nil {
		fmt.Fprintf(b, " -F %s", shellQuote("file=@"+ex.part.name))
	}
}

func shellQuote(v string) string { return "'" + strings.ReplaceAll(v, "'", `'\''`) + "'" }

// evidence describes an exchange for a failure message; the excerpt leaves
// out the top-level _links so the fields that matter come first.
func (s *scenario) evidence(ex *exchange) string {
	excerpt := ex.body
	if m, ok := ex.doc.(map[string]any); ok && m["_links"] != nil {
		trimmed := make(map[string]any, len(m))
		for k, v := range m {
			if k != "_links" {
				trimmed[k] = v
			}
		}
		if b, err := json.Marshal(trimmed); err == nil {
			excerpt = b
		}
	}
	body := s.mask(excerpt)
	if len(body) > 512 {
		body = body[:512] + "…"
	}
	curl, _ := s.curl(ex)
	return fmt.Sprintf("\n    response: %d %s\n    reproduce: %s", ex.status, body, curl)
}

// failf builds a check failure naming the request, the evidence and a curl.
func (s *scenario) failf(ex *exchange, format string, args ...any) error {
	if ex == nil {
		return fmt.Errorf(format, args...)
	}
	detail := fmt.Sprintf(format, args...)
	return &failure{text: fmt.Sprintf("%s %s as %s: %s", ex.method, ex.path, s.who(ex), detail), detail: detail, ex: ex, evidence: s.evidence(ex)}
}

// failCause is failf for a check whose failure is an error of its own (a
// *validate.Error listing the violations): the report reads the error, not
// the message.
func (s *scenario) failCause(ex *exchange, cause error, format string, args ...any) error {
	err := s.failf(ex, format, args...)
	if f, ok := err.(*failure); ok {
		f.cause = cause
	}
	return err
}

// failure is a failed check of an exchange: what failed, the exchange that
// shows it and the error behind it, if any. Its message is the text
// followed by the evidence (the response and a curl); the reports take each
// part from its field.
type failure struct {
	text     string // the request and the detail
	detail   string // what failed
	ex       *exchange
	cause    error
	evidence string
}

func (f *failure) Error() string { return f.text + f.evidence }

func (f *failure) Unwrap() error { return f.cause }

func (s *scenario) who(ex *exchange) string {
	switch ex.auth {
	case authNone:
		return "nobody"
	case authWrongPassword:
		return ex.user + " (wrong password)"
	}
	return ex.user
}

// lastExchange returns the last exchange or a kit error if there is none.
func (s *scenario) lastExchange() (*exchange, error) {
	if s.last == nil {
		return nil, &kitError{errors.New("no request was sent before this step")}
	}
	return s.last, nil
}

// violations renders a validation error as "pointer (rule): message" lines.
func violations(err error) string {
	var ve *validate.Error
	if !errors.As(err, &ve) {
		return err.Error()
	}
	lines := make([]string, 0, len(ve.Violations))
	for _, v := range ve.Violations {
		lines = append(lines, fmt.Sprintf("%s (%s): %s", v.Pointer, v.Rule, v.Message))
	}
	sort.Strings(lines)
	return strings.Join(lines, "; ")
}

// withQuery appends query parameters to a path.
func withQuery(path string, q url.Values) string {
	if len(q) == 0 {
		return path
	}
	return path + "?" + q.Encode()
}

// decodeJSON decodes a JSON document with UseNumber; nil if body is not JSON.
func decodeJSON(body []byte) any {
	if len(bytes.TrimSpace(body)) == 0 {
		return nil
	}
	var doc any
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if dec.Decode(&doc) != nil {
		return nil
	}
	return doc
}

// track registers webhooks the scenario created, to disable them at the end.
func (s *scenario) track(ex *exchange) {
	if !ex.hasOp || ex.op.ID != "webhooks.create" {
		return
	}
	if id, ok := lookupString(ex.doc, "id"); ok {
		s.webhooks = append(s.webhooks, owned{id: id, user: ex.user})
	}
}
