package ledger

import (
	"fmt"

	"github.com/conform-kit/conform/validate/judging"
)

// ErrorKind is a kind of refusal of the refusals table (schemas/judging.json,
// read through validate.Validator.Refusal): the one place where the status
// and envelope code of every refusal live (features/README.md, "Status codes
// and error codes").
type ErrorKind string

// The kinds of refusal, each a row of the refusals table.
const (
	KindBadRequest       ErrorKind = judging.RefusalMalformed
	KindUnauthorized     ErrorKind = judging.RefusalUnauthenticated
	KindDeclined         ErrorKind = judging.RefusalDeclined
	KindForbidden        ErrorKind = judging.RefusalForbidden
	KindNotFound         ErrorKind = judging.RefusalNotFound
	KindMethodNotAllowed ErrorKind = judging.RefusalMethodNotAllowed
	KindNotAcceptable    ErrorKind = judging.RefusalNotAcceptable
	KindTooLarge         ErrorKind = judging.RefusalTooLarge
	KindInvalidField     ErrorKind = judging.RefusalInvalidField
	KindUnprocessable    ErrorKind = judging.RefusalUnprocessable
	KindURITooLong       ErrorKind = judging.RefusalURITooLong
	KindQuotaExceeded    ErrorKind = judging.RefusalQuotaExceeded
)

// DomainError is what the store and the handlers return for a refused request.
type DomainError struct {
	Kind     ErrorKind
	Message  string
	Field    string // JSON pointer of the offending field (422 INVALID_FIELD)
	Resource string // id of the failed resource (402)
}

// Error is the refusal's message, with its field when it names one.
func (e *DomainError) Error() string {
	if e.Field != "" {
		return fmt.Sprintf("reference: %s: %s", e.Field, e.Message)
	}
	return "reference: " + e.Message
}

// ErrNotFound is 404: id is unknown, or another application's.
func ErrNotFound(id string) error {
	return &DomainError{Kind: KindNotFound, Message: id + " was not found"}
}

// ErrInvalidField is 422 INVALID_FIELD at the JSON pointer, with the
// formatted message.
func ErrInvalidField(pointer, format string, args ...any) error {
	return &DomainError{Kind: KindInvalidField, Field: pointer, Message: fmt.Sprintf(format, args...)}
}

// ErrUnprocessable is 422 UNPROCESSABLE_ENTITY with the formatted message.
func ErrUnprocessable(format string, args ...any) error {
	return &DomainError{Kind: KindUnprocessable, Message: fmt.Sprintf(format, args...)}
}

// ErrDeclined is 402: the processor declined; resource names the failed
// resource.
func ErrDeclined(resource string) error {
	return &DomainError{Kind: KindDeclined, Resource: resource, Message: "The transaction was declined by the processor"}
}
