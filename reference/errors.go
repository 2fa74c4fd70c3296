package reference

import (
	"fmt"

	"github.com/conform-kit/conform/validate/judging"
)

// errorKind is a kind of refusal of the refusals table (schemas/judging.json,
// read through validate.Validator.Refusal): the one place where the status
// and envelope code of every refusal live (features/README.md, "Status codes
// and error codes").
type errorKind string

const (
	kindBadRequest       errorKind = judging.RefusalMalformed
	kindUnauthorized     errorKind = judging.RefusalUnauthenticated
	kindDeclined         errorKind = judging.RefusalDeclined
	kindForbidden        errorKind = judging.RefusalForbidden
	kindNotFound         errorKind = judging.RefusalNotFound
	kindMethodNotAllowed errorKind = judging.RefusalMethodNotAllowed
	kindNotAcceptable    errorKind = judging.RefusalNotAcceptable
	kindTooLarge         errorKind = judging.RefusalTooLarge
	kindInvalidField     errorKind = judging.RefusalInvalidField
	kindUnprocessable    errorKind = judging.RefusalUnprocessable
	kindURITooLong       errorKind = judging.RefusalURITooLong
	kindQuotaExceeded    errorKind = judging.RefusalQuotaExceeded
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
