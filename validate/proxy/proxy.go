// Package proxy is a validating reverse proxy for live traffic: it forwards
// every request to a target untouched, checks the request and the response
// against the contract (package validate), tells the client what broke in a
// Conform-Violations header, logs each exchange with violations as one
// NDJSON line with secrets masked, and keeps a summary by operation.
package proxy

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"net/http/httputil"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/conform-kit/conform/validate"
	"github.com/conform-kit/conform/validate/judging"
)

// Headers added to responses with violations.
const (
	// HeaderViolations carries a JSON array of Violation, cut to fit MaxHeaderBytes.
	HeaderViolations = "Conform-Violations"
	// HeaderCount carries the number of violations, all of them, listed or not.
	HeaderCount = "Conform-Violations-Count"
	// MaxHeaderBytes bounds the Conform-Violations header.
	MaxHeaderBytes = 8 << 10
	// DefaultMaxBody is the largest body, each way, buffered to be checked;
	// larger bodies are streamed through unchecked (an assumed violation says so).
	// It is the middleware's limit, validate.MaxBodyBytes (1 MiB).
	DefaultMaxBody = validate.MaxBodyBytes
)

// Severities are the kinds of package judging: normative breaks what the
// spec says; assumed breaks a choice the kit made where the spec is silent
// (a profile key of judging.json, named by Violation.Key). Which one a
// violation is comes from the data of the contract (judging.json,
// operations.json), not from the proxy.
const (
	Normative = judging.Normative
	Assumed   = judging.Assumed
)

// Violation is one entry of the Conform-Violations header and of the log.
type Violation struct {
	Severity judging.Kind `json:"severity"` // Normative or Assumed
	Where    string       `json:"where"`    // "request" or "response"
	Pointer  string       `json:"pointer"`  // JSON pointer, parameter or header name
	Message  string       `json:"message"`
	Key      string       `json:"key,omitempty"` // the profile key of an assumed violation
}

// Config configures a Proxy.
type Config struct {
	Target    *url.URL          // where requests go
	Judge     *judging.Judge    // the contract and how it is judged
	Log       io.Writer         // NDJSON lines, one per exchange with violations; nil for none
	MaxBody   int64             // 0: DefaultMaxBody
	Transport http.RoundTripper // nil: http.DefaultTransport
	// Profile is the target's declared choices, checked instead of the
	// reference's; nil: Judge.DefaultProfile.
	Profile *judging.Profile
}

// Proxy is an http.Handler. It is safe for concurrent use.
type Proxy struct {
	cfg      Config
	profile  judging.Profile // what is checked
	defaults judging.Profile // the reference's choices, which the validator checks
	rp       *httputil.ReverseProxy
	mu       sync.Mutex // guards stats and the log
	stats    map[string]*OperationSummary
}

// OperationSummary counts the exchanges of one operation.
type OperationSummary struct {
	Operation      string // operation id, or "(unknown route)"
	Exchanges      int
	WithViolations int
	Normative      int // violations
	Assumed        int
}

type exchangeKey struct{}

// exchange is what the request side learned, handed to the response side.
type exchange struct {
	start      time.Time
	operation  string
	op         validate.Operation // zero for an unknown route
	violations []Violation
	omitted    int // body violations the validator found beyond its cap and did not list
}

// New builds a Proxy.
func New(cfg Config) *Proxy {
	if cfg.MaxBody <= 0 {
		cfg.MaxBody = DefaultMaxBody
	}
	p := &Proxy{cfg: cfg, stats: make(map[string]*OperationSummary)}
	p.defaults = cfg.Judge.DefaultProfile()
	p.profile = p.defaults
	if cfg.Profile != nil {
		p.profile = cfg.Profile.Clone()
	}
	p.rp = &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			// Method, path, query, headers and body go through as they came;
			// only the Host becomes the target's (virtual hosts need it), and
			// no X-Forwarded-* header is added.
			pr.SetURL(cfg.Target)
		},
		Transport:      cfg.Transport,
		ModifyResponse: p.checkResponse,
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			http.Error(w, "conform proxy: target unreachable", http.StatusBadGateway)
		},
	}
	return p
}

// ServeHTTP checks the request, forwards it, and checks the response.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ex := &exchange{start: time.Now(), operation: "(unknown route)"}
	body, complete, err := readBounded(r.Body, p.cfg.MaxBody)
	if err != nil {
		http.Error(w, "conform proxy: request body could not be read", http.StatusBadGateway)
		return
	}
	if complete {
		r.Body = io.NopCloser(bytes.NewReader(body))
	} else {
		r.Body = struct {
			io.Reader
			io.Closer
		}{io.MultiReader(bytes.NewReader(body), r.Body), r.Body}
	}
	m, err := p.cfg.Judge.Validator().HTTPRequest(r, r.URL.Path, body)
	if m.Operation.ID != "" {
		ex.operation = m.Operation.ID
		ex.op = m.Operation
	}
	var verr *validate.Error
	switch {
	case errors.As(err, &verr):
		if complete {
			ex.omitted += verr.Omitted
		}
		limits := badLimits(r.URL.Query()["limit"], p.defaults.ListMaxLimit)
		for _, v := range verr.Violations {
			if !complete && v.In == validate.InBody {
				continue
			}
			limit := ""
			if v.In == validate.InQuery && v.Pointer == "limit" && len(limits) > 0 {
				limit, limits = limits[0], limits[1:]
			}
			if vi, ok := p.judgeRequest(m.Operation, v, limit, r.URL.Path); ok {
				ex.violations = append(ex.violations, vi)
			}
		}
	case err != nil:
		ex.violations = append(ex.violations, Violation{Severity: Normative, Where: "request", Message: err.Error()})
	}
	if !complete {
		ex.violations = append(ex.violations, Violation{Severity: Assumed, Where: "request",
			Message: "body over " + strconv.FormatInt(p.cfg.MaxBody, 10) + " bytes forwarded unchecked"})
	}
	p.rp.ServeHTTP(w, r.WithContext(contextWith(r, ex)))
}

// checkResponse runs on the target's response before anything is written
// to the client.
func (p *Proxy) checkResponse(resp *http.Response) error {
	ex, _ := resp.Request.Context().Value(exchangeKey{}).(*exchange)
	if ex == nil {
		return nil
	}
	if ex.operation != "(unknown route)" {
		body, complete, err := readBounded(resp.Body, p.cfg.MaxBody)
		if err != nil {
			return err
		}
		if complete {
			resp.Body.Close()
			resp.Body = io.NopCloser(bytes.NewReader(body))
			ex.violations = append(ex.violations, p.judgeResponse(ex.op, resp.StatusCode, resp.Header, body)...)
		} else {
			resp.Body = struct {
				io.Reader
				io.Closer
			}{io.MultiReader(bytes.NewReader(body), resp.Body), resp.Body}
			ex.violations = append(ex.violations, Violation{Severity: Assumed, Where: "response",
				Message: "body over " + strconv.FormatInt(p.cfg.MaxBody, 10) + " bytes forwarded unchecked"})
		}
	}
	if len(ex.violations) > 0 {
		header, _ := headerValue(ex.violations)
		resp.Header.Set(HeaderViolations, header)
		resp.Header.Set(HeaderCount, strconv.Itoa(len(ex.violations)+ex.omitted))
	}
	p.record(resp, ex)
	return nil
}

// judgeRequest gives a request violation the severity its basis in the
// contract's data has; ok is false when the target's declared profile
// admits what the reference refuses (a limit up to its list_max_limit, any
// limit when it clamps, a path id when it declares another id_form, a
// payload it declares unchecked). limit is the value of the limit parameter
// a "limit" violation is about.
func (p *Proxy) judgeRequest(op validate.Operation, vi validate.Violation, limit, path string) (Violation, bool) {
	b, ok := p.requestBasis(op, vi, limit, path)
	if !ok {
		return Violation{}, false
	}
	return violation("request", vi, b), true
}

func (p *Proxy) requestBasis(op validate.Operation, vi validate.Violation, limit, path string) (judging.Basis, bool) {
	v := p.cfg.Judge
	if op.ID == "" { // the route: operations.json, the spec's table of operations
		if p.onRouteOfAnAssumedRoute(path) {
			// A method on a webhook path the reference does not route
			// (PATCH /webhooks/{id}): §4.9 does not show the methods.
			b := judging.Basis{Assumed: judging.KeyWebhookRoutes, Clauses: []string{"4.9"}}
			return b, p.checked(b)
		}
		return judging.Basis{}, true
	}
	if b := judging.OperationBasis(op); !b.Normative() && !p.onDeclaredRoute(op, vi.In) {
		if vi.In == validate.InBody && vi.Rule != "json" {
			// An assumed rule of the operation's schema naming another key
			// (an unknown field of an extension's body: request_rules).
			if rb, ok := v.RequestBodyBasis(op.Request, vi); ok && !rb.Normative() && rb.Assumed != b.Assumed && rb.Assumed != op.Assumed {
				return rb, p.checked(rb)
			}
		}
		return b, p.checked(b)
	}
	switch vi.In {
	case validate.InPath: // an id of the wrong form: the reference's id_form
		return judging.Basis{Assumed: "id_form"}, p.profile.IDForm == p.defaults.IDForm
	case validate.InHeader: // Accept, Content-Type
		return refusalBasis(v, judging.RefusalNotAcceptable), true
	case validate.InQuery:
		// §4.10 names offset, limit and sort and §2.12 their form, but no
		// bound beyond the default limit of 20 (§8: the maximum page size is
		// not shown): a limit past the maximum is list_max_limit, any other
		// refused value (a limit below 1, an offset below 0, a sort field
		// the list does not have) the reference's request_rules.
		if vi.Pointer == "limit" {
			if n, err := strconv.Atoi(limit); err == nil && n > 0 {
				admitted := n <= p.profile.ListMaxLimit || p.profile.ListOverMax == judging.ListOverMaxClamp
				return judging.Basis{Assumed: "list_max_limit", Clauses: []string{"4.10", "8"}}, !admitted
			}
		}
		b := judging.Basis{Assumed: keyRequestRules, Clauses: []string{"4.10", "2.12"}}
		return b, p.checked(b)
	case validate.InBody:
		if vi.Rule == "json" {
			return refusalBasis(v, judging.RefusalMalformed), true
		}
		// judging.json's basis of the request schema, or of the assumed
		// rule of it the violation breaks (an enrollment without merchant).
		b, _ := v.RequestBodyBasis(op.Request, vi)
		return b, p.checked(b)
	}
	return judging.Basis{}, true
}

// checked reports whether an assumed basis is judged under the profile
// (false when the target declares its key "unchecked").
func (p *Proxy) checked(b judging.Basis) bool {
	if b.Normative() {
		return true
	}
	val, _ := p.profile.Value(b.Assumed)
	return string(val) != strconv.Quote(judging.Unchecked)
}

// judgeResponse checks a response of a known operation under the profile:
// on 2xx the declared success status (assumed: success_status, or
// create_status for creates), the media type, and the body against the
// response schema with the basis judging.json gives it, the exact media
// type (assumed: response_content_type); on 4xx the §7 error
// envelope, normative on every route. A 2xx of an operation that is itself
// assumed (extensions, webhook routes) is assumed under the operation's
// key. The reference's exact forms (ids, timestamps, ...) and the payloads
// of schemas assumed as a whole come from Validator.Assumed, each under its
// profile key.
func (p *Proxy) judgeResponse(op validate.Operation, status int, header http.Header, body []byte) []Violation {
	v := p.cfg.Judge
	var out []Violation
	base := judging.Basis{}
	schema := ""
	switch {
	case status >= 200 && status < 300:
		if b := judging.OperationBasis(op); !b.Normative() && !p.onDeclaredRoute(op, validate.InBody) {
			if !p.checked(b) {
				return nil
			}
			base = b
		}
		if want := p.profile.SuccessStatus(op); status != want {
			key := "success_status"
			if _, declared := p.profile.SuccessStatusByOp[op.ID]; !declared && op.Status == http.StatusCreated {
				key = "create_status"
			}
			out = append(out, Violation{Severity: Assumed, Key: key, Where: "response",
				Message: "status " + strconv.Itoa(status) + ", want " + strconv.Itoa(want)})
		}
		schema = op.Response
	case status >= 400 && status < 500:
		schema = "error"
	default:
		return nil
	}
	sb, _ := v.SchemaBasis(schema)
	err := v.Validator().Response(op.ID, status, header, body)
	var verr *validate.Error
	if errors.As(err, &verr) {
		for _, vi := range verr.Violations {
			b := base
			switch {
			case vi.In == validate.InStatus: // judged above, under the profile
				continue
			case vi.In == validate.InBody && vi.Rule != "json" && !sb.Normative():
				continue // Assumed reports them under the schema's key
			case vi.In == validate.InBody && b.Normative():
				b = sb
			}
			out = append(out, violation("response", vi, b))
		}
	}
	if schema == "" || status == http.StatusNoContent {
		return out
	}
	ct := header.Get("Content-Type")
	if mt, _, err := mime.ParseMediaType(ct); err == nil && validate.JSONMediaType(mt) && !p.profile.ContentTypeMatches(ct) {
		out = append(out, Violation{Severity: Assumed, Key: "response_content_type", Where: "response", Pointer: "header:Content-Type",
			Message: "Content-Type " + strconv.Quote(ct) + ", want " + p.profile.ResponseContentType})
	}
	devs, err := v.Assumed(schema, body, p.profile)
	if err != nil { // malformed: reported above
		return out
	}
	for _, d := range devs {
		out = append(out, Violation{Severity: Assumed, Key: d.Key, Where: "response", Pointer: d.Pointer,
			Message: "expected " + d.Expected + ", observed " + d.Observed})
	}
	return out
}

// badLimits are the values of the limit parameter the validator refuses
// (an integer from 1 to the reference's maximum passes), in order: one
// violation each.
func badLimits(values []string, referenceListMax int) []string {
	var out []string
	for _, s := range values {
		if n, err := strconv.Atoi(s); err != nil || n < 1 || n > referenceListMax {
			out = append(out, s)
		}
	}
	return out
}

// onRouteOfAnAssumedRoute reports whether path is the path of an operation
// assumed only for its route (the webhook create and update), whatever the
// method: a client sending another method there may follow its target's
// route, which the spec does not show.
func (p *Proxy) onRouteOfAnAssumedRoute(path string) bool {
	v := p.cfg.Judge.Validator()
	for _, op := range v.Operations() {
		if op.Assumed != judging.KeyWebhookRoutes {
			continue
		}
		if got, _, err := v.Lookup(op.Method, path); err == nil && got.ID == op.ID {
			return true
		}
	}
	return false
}

// keyRequestRules is the profile key of the rules of requests the spec
// does not state.
const keyRequestRules = "request_rules"

// onDeclaredRoute reports whether a request to op, an operation assumed
// only for its route (webhook_routes: §4.9 does not show the method and
// path of the webhook create and update), came on the route the target's
// profile declares: then what §4.9 states of its body (the url rules) and
// §2.10 of its answer is normative, as on any operation the spec names;
// only the route was the assumption. Where violations are found (the body,
// the answer) is in; a path or query is judged by the operation's key.
func (p *Proxy) onDeclaredRoute(op validate.Operation, in string) bool {
	if op.Assumed != judging.KeyWebhookRoutes || in != validate.InBody {
		return false
	}
	return p.profile.WebhookRoutes[op.ID] == op.Method+" "+op.Path
}

// refusalBasis is the basis of a row of the refusals table (normative when
// the row is missing, which New refuses).
func refusalBasis(v *judging.Judge, kind string) judging.Basis {
	r, _ := v.Refusal(kind)
	return r.Basis
}

// violation renders a violation of the validator with a basis.
func violation(where string, vi validate.Violation, b judging.Basis) Violation {
	out := Violation{Severity: Normative, Where: where, Pointer: pointer(vi), Message: vi.Message}
	if !b.Normative() {
		out.Severity, out.Key = Assumed, b.Assumed
	}
	return out
}

func pointer(v validate.Violation) string {
	if v.In == validate.InBody || v.Pointer == "" {
		return v.Pointer
	}
	return v.In + ":" + v.Pointer
}

// headerValue encodes as many violations as fit in MaxHeaderBytes and
// reports how many it listed.
func headerValue(vs []Violation) (string, int) {
	var b bytes.Buffer
	b.WriteByte('[')
	n := 0
	for _, v := range vs {
		item, _ := json.Marshal(v)
		if b.Len()+len(item)+2 > MaxHeaderBytes {
			break
		}
		if n > 0 {
			b.WriteByte(',')
		}
		b.Write(item)
		n++
	}
	b.WriteByte(']')
	return b.String(), n
}

// logLine is one NDJSON line.
type logLine struct {
	Time       time.Time         `json:"time"`
	Method     string            `json:"method"`
	Path       string            `json:"path"`
	Query      string            `json:"query,omitempty"`
	Operation  string            `json:"operation"`
	Status     int               `json:"status"`
	DurationMS float64           `json:"duration_ms"`
	Headers    map[string]string `json:"request_headers"`
	Violations []Violation       `json:"violations"`
}

func (p *Proxy) record(resp *http.Response, ex *exchange) {
	normative, assumed := 0, 0
	for _, v := range ex.violations {
		if v.Severity == Normative {
			normative++
		} else {
			assumed++
		}
	}
	var line []byte
	if p.cfg.Log != nil && len(ex.violations) > 0 {
		req := resp.Request
		line, _ = json.Marshal(logLine{
			Time: ex.start.UTC(), Method: req.Method, Path: req.URL.Path, Query: maskQuery(req.URL.Query()),
			Operation: ex.operation, Status: resp.StatusCode, DurationMS: float64(time.Since(ex.start).Microseconds()) / 1000,
			Headers: maskHeaders(req.Header), Violations: ex.violations,
		})
		line = append(line, '\n')
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	s := p.stats[ex.operation]
	if s == nil {
		s = &OperationSummary{Operation: ex.operation}
		p.stats[ex.operation] = s
	}
	s.Exchanges++
	if len(ex.violations) > 0 {
		s.WithViolations++
	}
	s.Normative += normative
	s.Assumed += assumed
	if line != nil {
		_, _ = p.cfg.Log.Write(line)
	}
}

// Summary returns the counts by operation, sorted by operation id.
func (p *Proxy) Summary() []OperationSummary {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]OperationSummary, 0, len(p.stats))
	for _, s := range p.stats {
		out = append(out, *s)
	}
	slices.SortFunc(out, func(a, b OperationSummary) int { return strings.Compare(a.Operation, b.Operation) })
	return out
}

// SawNormative reports whether any normative violation was seen.
func (p *Proxy) SawNormative() bool {
	for _, s := range p.Summary() {
		if s.Normative > 0 {
			return true
		}
	}
	return false
}

// secretHeaders are logged as "***" (the scheme of Authorization is kept).
var secretHeaders = []string{"Authorization", "Proxy-Authorization", "Cookie", "Set-Cookie", "X-Api-Key"}

func maskHeaders(h http.Header) map[string]string {
	out := make(map[string]string, len(h))
	for k, vs := range h {
		v := strings.Join(vs, ", ")
		if slices.Contains(secretHeaders, k) {
			scheme, _, found := strings.Cut(v, " ")
			v = "***"
			if found && (k == "Authorization" || k == "Proxy-Authorization") {
				v = scheme + " ***"
			}
		}
		out[k] = v
	}
	return out
}

func maskQuery(q url.Values) string {
	for k := range q {
		lk := strings.ToLower(k)
		for _, s := range []string{"secret", "token", "password", "key", "signature"} {
			if strings.Contains(lk, s) {
				q[k] = []string{"***"}
			}
		}
	}
	return q.Encode()
}

// readBounded reads up to limit bytes; complete is false when more remain
// (the rest stays in r).
func readBounded(r io.Reader, limit int64) ([]byte, bool, error) {
	if r == nil || r == http.NoBody {
		return nil, true, nil
	}
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, false, err
	}
	if int64(len(b)) > limit {
		return b, false, nil
	}
	return b, true, nil
}
