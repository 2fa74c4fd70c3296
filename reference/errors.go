package reference

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/conform-kit/conform/validate"
)

// errorKind classifies a domain error; kinds map to HTTP statuses and envelope
// codes in one table (kindTable), the place where the team's assumptions about
// statuses live (DESIGN.md "Decisions where the spec is silent").
type errorKind int

const (
	kindBadRequest errorKind = iota + 1
	kindUnauthorized
	kindDeclined
	kindForbidden
	kindNotFound
	kindMethodNotAllowed
	kindNotAcceptable
	kindTooLarge
	kindInvalidField
	kindUnprocessable
)

var kindTable = map[errorKind]struct {
	status int
	code   string
}{
	kindBadRequest:       {http.StatusBadRequest, "BAD_REQUEST"},
	kindUnauthorized:     {http.StatusUnauthorized, "UNKNOWN"},
	kindDeclined:         {http.StatusPaymentRequired, "DECLINED"},
	kindForbidden:        {http.StatusForbidden, "FORBIDDEN"},
	kindNotFound:         {http.StatusNotFound, "NOT_FOUND"},
	kindMethodNotAllowed: {http.StatusMethodNotAllowed, "METHOD_NOT_ALLOWED"},
	kindNotAcceptable:    {http.StatusNotAcceptable, "NOT_ACCEPTABLE"},
	kindTooLarge:         {http.StatusRequestEntityTooLarge, "REQUEST_TOO_LARGE"},
	kindInvalidField:     {http.StatusUnprocessableEntity, validate.CodeInvalidField},
	kindUnprocessable:    {http.StatusUnprocessableEntity, validate.CodeUnprocessable},
}

// domainError is what the store and the handlers return for a refused request.
type domainError struct {
	kind     errorKind
	message  string
	field    string // JSON pointer of the offending field (422 INVALID_FIELD)
	resource string // id of the failed resource (402)
}

func (e *domainError) Error() string {
	if e.field != "" {
		return fmt.Sprintf("reference: %s: %s", e.field, e.message)
	}
	return "reference: " + e.message
}

func errNotFound(id string) error {
	return &domainError{kind: kindNotFound, message: id + " was not found"}
}

func errInvalidField(pointer, format string, args ...any) error {
	return &domainError{kind: kindInvalidField, field: pointer, message: fmt.Sprintf(format, args...)}
}

func errUnprocessable(format string, args ...any) error {
	return &domainError{kind: kindUnprocessable, message: fmt.Sprintf(format, args...)}
}

func errDeclined(resource string) error {
	return &domainError{kind: kindDeclined, resource: resource, message: "The transaction was declined by the processor"}
}

var (
	errUnauthorized = &domainError{kind: kindUnauthorized, message: "Unauthorized"}
	errForbidden    = &domainError{kind: kindForbidden, message: "Access is denied"}
)

// writeError renders err in the spec's error envelope. Validation errors keep
// one item per violation; anything unexpected is logged and becomes a generic
// 500 through validate.WriteError, which leaks no detail.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	var de *domainError
	if errors.As(err, &de) {
		t := kindTable[de.kind]
		if de.kind == kindUnauthorized {
			w.Header().Set("WWW-Authenticate", `Basic realm="payments"`)
		}
		validate.WriteEnvelope(w, r, t.status, validate.ErrorItem{
			Code: t.code, Message: de.message, Field: de.field, Resource: de.resource,
		})
		return
	}
	var ve *validate.Error
	if !errors.As(err, &ve) && !errors.Is(err, validate.ErrMalformed) {
		s.log.Error("internal error", "method", r.Method, "path", logPath(r.URL.Path), "error", err)
	}
	validate.WriteError(w, r, err)
}
