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
	"net/http"
	"net/http/httputil"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/conform-kit/conform/validate"
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
	DefaultMaxBody = 1 << 20
)

// Severities: normative breaks what the spec says; assumed breaks a choice
// DESIGN.md made where the spec is silent.
const (
	Normative = "normative"
	Assumed   = "assumed"
)

// Violation is one entry of the Conform-Violations header and of the log.
type Violation struct {
	Severity string `json:"severity"` // Normative or Assumed
	Where    string `json:"where"`    // "request" or "response"
	Pointer  string `json:"pointer"`  // JSON pointer, parameter or header name
	Message  string `json:"message"`
}

// Config configures a Proxy.
type Config struct {
	Target    *url.URL            // where requests go
	Validator *validate.Validator // the contract
	Log       io.Writer           // NDJSON lines, one per exchange with violations; nil for none
	MaxBody   int64               // 0: DefaultMaxBody
	Transport http.RoundTripper   // nil: http.DefaultTransport
}

// Proxy is an http.Handler. It is safe for concurrent use.
type Proxy struct {
	cfg   Config
	rp    *httputil.ReverseProxy
	mu    sync.Mutex // guards stats and the log
	stats map[string]*OperationSummary
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
	violations []Violation
}

// New builds a Proxy.
func New(cfg Config) *Proxy {
	if cfg.MaxBody <= 0 {
		cfg.MaxBody = DefaultMaxBody
	}
	p := &Proxy{cfg: cfg, stats: make(map[string]*OperationSummary)}
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
	m, err := p.cfg.Validator.HTTPRequest(r, r.URL.Path, body)
	if m.Operation.ID != "" {
		ex.operation = m.Operation.ID
	}
	var verr *validate.Error
	switch {
	case errors.As(err, &verr):
		for _, v := range verr.Violations {
			if !complete && v.In == validate.InBody {
				continue
			}
			ex.violations = append(ex.violations, Violation{Severity: severity(verr, v), Where: "request", Pointer: pointer(v), Message: v.Message})
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
			err := p.cfg.Validator.Response(ex.operation, resp.StatusCode, resp.Header, body)
			var verr *validate.Error
			if errors.As(err, &verr) {
				for _, v := range verr.Violations {
					ex.violations = append(ex.violations, Violation{Severity: severity(verr, v), Where: "response", Pointer: pointer(v), Message: v.Message})
				}
			}
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
		resp.Header.Set(HeaderCount, strconv.Itoa(len(ex.violations)))
	}
	p.record(resp, ex)
	return nil
}

// severity classifies a violation: the body against the schemas, the
// route, the content types and the status family are normative; the exact
// success status, path id forms, Accept and list bounds are DESIGN.md's
// choices (assumed).
func severity(e *validate.Error, v validate.Violation) string {
	switch v.In {
	case validate.InBody:
		if v.Rule == validate.RuleNumberSize {
			return Assumed
		}
		return Normative
	case validate.InHeader:
		if v.Rule == "content_type" {
			return Normative
		}
		return Assumed
	case validate.InStatus, validate.InQuery:
		return Assumed
	case validate.InPath:
		if v.Rule == "route" {
			return Normative
		}
		return Assumed
	}
	return Normative
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
