package validate

import (
	"bytes"
	"errors"
	"io"
	"mime"
	"net/http"
)

// MaxBodyBytes is the largest JSON request body the middleware accepts (1 MiB).
const MaxBodyBytes = 1 << 20

// jsonMediaType reports whether mt is a request content type accepted for
// JSON bodies.
func jsonMediaType(mt string) bool {
	switch mt {
	case "application/json", "application/vnd.api+json", "application/vnd.json+api", "application/hal+json":
		return true
	}
	return false
}

// Middleware validates request bodies against the operations table before
// they reach next. Routes the table does not know (and known paths with an
// unknown method) pass through untouched, as do operations without a JSON
// body. For the others: a Content-Type that is not a JSON type is refused
// with 406 NOT_ACCEPTABLE, a body over MaxBodyBytes with 413
// REQUEST_TOO_LARGE, a body that is not a JSON object with 400 BAD_REQUEST and
// violations with 422 listing every violation. Valid requests reach next with
// the body still readable.
func Middleware(v *Validator) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			op, _, err := v.Lookup(r.Method, r.URL.Path)
			if err != nil || !op.HasJSONBody() {
				next.ServeHTTP(w, r)
				return
			}
			mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
			if err != nil || !jsonMediaType(mt) {
				WriteEnvelope(w, r, http.StatusNotAcceptable, ErrorItem{Code: "NOT_ACCEPTABLE",
					Message: "Content-Type must be application/json, application/vnd.api+json, application/vnd.json+api or application/hal+json"})
				return
			}
			body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBodyBytes))
			if err != nil {
				var tooLarge *http.MaxBytesError
				if errors.As(err, &tooLarge) {
					WriteEnvelope(w, r, http.StatusRequestEntityTooLarge, ErrorItem{Code: "REQUEST_TOO_LARGE",
						Message: "request body exceeds 1 MiB"})
					return
				}
				WriteEnvelope(w, r, http.StatusBadRequest, ErrorItem{Code: "BAD_REQUEST", Message: "request body could not be read"})
				return
			}
			if err := v.Request(op.ID, body); err != nil {
				WriteError(w, r, err)
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
			r.ContentLength = int64(len(body))
			next.ServeHTTP(w, r)
		})
	}
}
