package reference

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/conform-kit/conform/validate"
)

// errorKind is a kind of refusal of the refusals table (schemas/judging.json,
// read through validate.Validator.Refusal): the one place where the status
// and envelope code of every refusal live (DESIGN.md "Decisions where the
// spec is silent").
type errorKind string

const (
	kindBadRequest       errorKind = validate.RefusalMalformed
	kindUnauthorized     errorKind = validate.RefusalUnauthenticated
	kindDeclined         errorKind = validate.RefusalDeclined
	kindForbidden        errorKind = validate.RefusalForbidden
	kindNotFound         errorKind = validate.RefusalNotFound
	kindMethodNotAllowed errorKind = validate.RefusalMethodNotAllowed
	kindNotAcceptable    errorKind = validate.RefusalNotAcceptable
	kindTooLarge         errorKind = validate.RefusalTooLarge
	kindInvalidField     errorKind = validate.RefusalInvalidField
	kindUnprocessable    errorKind = validate.RefusalUnprocessable
)

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
		ref, ok := s.v.Refusal(string(de.kind))
		if !ok { // every kind above is a row of the table (TestErrorKindsAreRefusals)
			s.log.Error("refusal kind not in the refusals table", "kind", de.kind)
			validate.WriteError(w, r, err)
			return
		}
		if de.kind == kindUnauthorized {
			w.Header().Set("WWW-Authenticate", `Basic realm="payments"`)
		}
		validate.WriteEnvelope(w, r, ref.Status, validate.ErrorItem{
			Code: ref.Codes[0], Message: de.message, Field: de.field, Resource: de.resource,
		})
		return
	}
	var ve *validate.Error
	if !errors.As(err, &ve) && !errors.Is(err, validate.ErrMalformed) {
		s.log.Error("internal error", "method", r.Method, "path", logPath(r.URL.Path), "error", err)
	}
	validate.WriteError(w, r, err)
}
