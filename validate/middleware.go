package validate

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"strings"
)

// MaxBodyBytes is the largest JSON request body the middleware accepts (1 MiB).
const MaxBodyBytes = 1 << 20

// ErrorRenderer writes a refused request. err is an *Error (Where request)
// whose Status and Code say what failed.
type ErrorRenderer func(w http.ResponseWriter, r *http.Request, err error)

// Option configures Middleware.
type Option func(*middlewareConfig)

type middlewareConfig struct {
	basePath        string
	render          ErrorRenderer
	skip            func(*http.Request) bool
	rejectUnknown   bool
	reportResponses func(*http.Request, error)
	noBodyRules     bool
}

// WithBasePath mounts the contract under prefix (e.g. "/api/v1"): the prefix
// is cut before the operations table is consulted, and requests outside it
// pass through untouched.
func WithBasePath(prefix string) Option {
	return func(c *middlewareConfig) { c.basePath = strings.TrimSuffix(prefix, "/") }
}

// WithErrorRenderer replaces WriteError as the writer of refused requests.
func WithErrorRenderer(render ErrorRenderer) Option {
	return func(c *middlewareConfig) { c.render = render }
}

// WithSkipper lets requests for which skip returns true pass unchecked
// (health checks, metrics).
func WithSkipper(skip func(*http.Request) bool) Option {
	return func(c *middlewareConfig) { c.skip = skip }
}

// RejectUnknownRoutes answers requests the operations table does not know
// with 404 NOT_FOUND (or 405 METHOD_NOT_ALLOWED for a known path) instead of
// passing them to the handler: a loud miss when the table and the mux drift
// apart, or the base path is wrong.
func RejectUnknownRoutes() Option {
	return func(c *middlewareConfig) { c.rejectUnknown = true }
}

// WithoutBodyRules turns off the business rules Middleware applies by
// default to a body that passed its schema (BodyRules): the handler then
// calls CheckFee and CheckTaxExempt itself, if it wants them.
func WithoutBodyRules() Option {
	return func(c *middlewareConfig) { c.noBodyRules = true }
}

// WithResponseValidation checks every response of a matched operation with
// Validator.Response and calls report with the *Error (Where response) when
// it breaks the contract. The response is buffered, then sent unchanged:
// meant for tests and staging, where report can fail the test or log.
func WithResponseValidation(report func(r *http.Request, err error)) Option {
	return func(c *middlewareConfig) { c.reportResponses = report }
}

// Middleware checks requests against the operations table before they reach
// next (Validator.HTTPRequest): the route, path ids (404), Accept and
// Content-Type (406), the list parameters offset, limit and sort and the
// JSON body (422 listing every violation), a body that is not a JSON object
// (400) or larger than MaxBodyBytes (413); then the business rules that
// need only the body (BodyRules: a sale's fee over its amount, sales_tax
// on a tax-exempt Level 2/3 purchase; 422 INVALID_FIELD), judged in the
// pass that checked the body, without decoding it, unless
// WithoutBodyRules is given. Rules that need stored state (a capture over
// the authorization, Level 2/3 data for a merchant not enabled for it, a
// subscription amount updated twice) remain the handler's: CheckCapture,
// CheckLevel23, CheckSubscriptionAmountUpdate. Refused requests are written by
// the error renderer (WriteError by default). Requests reach next with the
// body still readable and the match in the context (OperationFrom,
// MatchFrom). Routes the table does not know pass through untouched unless
// RejectUnknownRoutes is given.
func Middleware(v *Validator, opts ...Option) func(http.Handler) http.Handler {
	cfg := middlewareConfig{render: WriteError}
	for _, o := range opts {
		o(&cfg)
	}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if cfg.skip != nil && cfg.skip(r) {
				next.ServeHTTP(w, r)
				return
			}
			path, inside := cutBasePath(r.URL.Path, cfg.basePath)
			if !inside {
				next.ServeHTTP(w, r)
				return
			}
			if _, _, err := v.route(r.Method, path); err != nil {
				if cfg.rejectUnknown {
					_, err := v.HTTPRequest(r, path, nil)
					cfg.render(w, r, err)
					return
				}
				next.ServeHTTP(w, r)
				return
			}
			body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBodyBytes))
			if err != nil {
				var tooLarge *http.MaxBytesError
				if errors.As(err, &tooLarge) {
					cfg.render(w, r, &Error{Code: CodeTooLarge, Where: WhereRequest,
						Violations: []Violation{{Rule: "size", Message: "request body exceeds 1 MiB"}}})
					return
				}
				cfg.render(w, r, &Error{Code: CodeBadRequest, Where: WhereRequest,
					Violations: []Violation{{Rule: "read", Message: "request body could not be read"}}})
				return
			}
			m, err := v.httpRequest(r, path, body, !cfg.noBodyRules)
			if err != nil {
				cfg.render(w, r, err)
				return
			}
			r = r.WithContext(WithMatch(r.Context(), m))
			r.Body = io.NopCloser(bytes.NewReader(body))
			r.ContentLength = int64(len(body))
			if cfg.reportResponses == nil {
				next.ServeHTTP(w, r)
				return
			}
			rec := &recorder{header: make(http.Header)}
			next.ServeHTTP(rec, r)
			if err := v.Response(m.Operation.ID, rec.statusCode(), rec.header, rec.body.Bytes()); err != nil {
				cfg.reportResponses(r, err)
			}
			rec.replay(w)
		})
	}
}

// violationsOf returns the violations of an *Error from a rule, or none.
func violationsOf(err error) []Violation {
	var e *Error
	if errors.As(err, &e) {
		return e.Violations
	}
	return nil
}

// cutBasePath returns path without base, and whether path lies under base.
func cutBasePath(path, base string) (string, bool) {
	if base == "" {
		return path, true
	}
	rest, ok := strings.CutPrefix(path, base)
	if !ok || (rest != "" && rest[0] != '/') {
		return path, false
	}
	if rest == "" {
		rest = "/"
	}
	return rest, true
}

// recorder buffers a response so it can be validated before it is sent.
type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (r *recorder) Header() http.Header { return r.header }

func (r *recorder) WriteHeader(status int) {
	if r.status == 0 {
		r.status = status
	}
}

func (r *recorder) Write(b []byte) (int, error) {
	r.WriteHeader(http.StatusOK)
	return r.body.Write(b)
}

func (r *recorder) statusCode() int {
	if r.status == 0 {
		return http.StatusOK
	}
	return r.status
}

// replay sends the buffered response to w.
func (r *recorder) replay(w http.ResponseWriter) {
	h := w.Header()
	for k, vs := range r.header {
		h[k] = vs
	}
	w.WriteHeader(r.statusCode())
	_, _ = w.Write(r.body.Bytes())
}
