package reference

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"unicode/utf8"

	"github.com/conform-kit/conform/reference/ledger"
	"github.com/conform-kit/conform/validate"
)

// Writing errors: the API's error envelope of a domain error (errors.go),
// a validation error or any other.

// Bounds of an error answer, so its size never grows with what a client
// sends: at most maxErrorItems entries (the last one counting the rest), each
// message and field at most maxErrorText bytes.
const (
	maxErrorItems = 20
	maxErrorText  = 512
)

// WriteError answers err in the error envelope as the reference does: a
// QUOTA_EXCEEDED from CreateNamespace is 429, an unknown namespace 404.
func (s *Server) WriteError(w http.ResponseWriter, r *http.Request, err error) {
	s.writeError(w, r, err)
}

// writeError renders err in the spec's error envelope. Validation errors keep
// one item per violation (bounded as above); anything unexpected is logged
// and becomes a generic 500 through validate.WriteError, which leaks no
// detail.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	er := s.errorRequest(r)
	var de *ledger.DomainError
	if errors.As(err, &de) {
		ref, ok := s.judged.Refusals[string(de.Kind)]
		if !ok { // every kind above is a row of the table (TestErrorKindsAreRefusals)
			s.log.Error("refusal kind not in the refusals table", "kind", de.Kind)
			validate.WriteError(w, r, err)
			return
		}
		if de.Kind == ledger.KindUnauthorized {
			w.Header().Set("WWW-Authenticate", `Basic realm="payments"`)
		}
		validate.WriteEnvelope(w, er, ref.Status, validate.ErrorItem{
			Code: ref.Codes[0], Message: clip(de.Message), Field: clip(de.Field), Resource: de.Resource,
		})
		return
	}
	var ve *validate.Error
	if errors.As(err, &ve) {
		validate.WriteEnvelope(w, er, http.StatusUnprocessableEntity, violationItems(ve)...)
		return
	}
	if !errors.Is(err, validate.ErrMalformed) {
		s.log.Error("internal error", "method", r.Method, "path", logPath(r.URL.Path), "error", err)
	}
	validate.WriteError(w, er, err)
}

// violationItems is one envelope item per violation, at most maxErrorItems.
func violationItems(ve *validate.Error) []validate.ErrorItem {
	vs := ve.Violations
	n := min(len(vs), maxErrorItems)
	if len(vs) > maxErrorItems {
		n = maxErrorItems - 1
	}
	items := make([]validate.ErrorItem, 0, n+1)
	for _, v := range vs[:n] {
		items = append(items, validate.ErrorItem{Code: ve.Code, Message: clip(v.Message), Field: clip(v.Pointer)})
	}
	if n < len(vs) {
		items = append(items, validate.ErrorItem{Code: ve.Code, Message: fmt.Sprintf("%d more violations not listed", len(vs)-n)})
	}
	return items
}

// clip cuts s to maxErrorText bytes on a rune boundary.
func clip(s string) string {
	if len(s) <= maxErrorText {
		return s
	}
	cut := maxErrorText
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// maxRequestIDBytes bounds an X-Request-Id the envelope takes as its logref.
const maxRequestIDBytes = 128

// errorRequest is the request as the error envelope should see it: its links
// name the configured base (never the client's Host header when a base is
// set) and the path alone (the base alone for a path longer than any
// operation's), and a client's X-Request-Id is kept only when it
// is a short printable token.
func (s *Server) errorRequest(r *http.Request) *http.Request {
	er := *r
	base, err := url.Parse(s.baseURL(r))
	if err != nil || base.Host == "" || len(base.Host) > 255 {
		base = &url.URL{Scheme: "http", Host: "localhost"}
	}
	p := r.URL.Path
	if len(p) > maxErrorText {
		p = "/" // a path no operation has: the links name the base alone
	}
	er.URL = &url.URL{Scheme: base.Scheme, Host: base.Host, Path: base.Path + p}
	if id := r.Header.Get("X-Request-Id"); id != "" && !isToken(id) {
		er.Header = r.Header.Clone()
		er.Header.Del("X-Request-Id")
	}
	return &er
}

// isToken reports whether id is a short run of visible ASCII.
func isToken(id string) bool {
	if len(id) > maxRequestIDBytes {
		return false
	}
	for i := 0; i < len(id); i++ {
		if id[i] <= ' ' || id[i] > '~' {
			return false
		}
	}
	return true
}
