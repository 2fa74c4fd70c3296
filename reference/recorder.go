package reference

import (
	"bytes"
	"fmt"
	"net/http"
)

// recorder is the package's one ResponseWriter wrapper. In front of a
// writer (passThrough) it records the status the handler writes, for the
// request log, and passes everything on; on its own (newRecorder) it keeps
// the whole response, the exact answer of an idempotent request kept for
// replay.
type recorder struct {
	w      http.ResponseWriter // nil: keep the response here
	header http.Header
	status int
	body   bytes.Buffer
}

// passThrough records the status of a response written to w.
func passThrough(w http.ResponseWriter) *recorder { return &recorder{w: w} }

// newRecorder keeps a whole response in memory.
func newRecorder() *recorder { return &recorder{header: http.Header{}} }

// Header is the header of the response.
func (r *recorder) Header() http.Header {
	if r.w != nil {
		return r.w.Header()
	}
	return r.header
}

// WriteHeader records the first status and passes it on.
func (r *recorder) WriteHeader(status int) {
	if r.status == 0 {
		r.status = status
	}
	if r.w != nil {
		r.w.WriteHeader(status)
	}
}

// Write records an implicit 200 and passes b on (or keeps it).
func (r *recorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	if r.w == nil {
		return r.body.Write(b)
	}
	n, err := r.w.Write(b)
	if err != nil {
		return n, fmt.Errorf("write response: %w", err)
	}
	return n, nil
}

// Unwrap gives http.ResponseController the underlying writer.
func (r *recorder) Unwrap() http.ResponseWriter { return r.w }
