package reference

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"time"

	"github.com/conform-kit/conform/reference/ledger"
	"github.com/conform-kit/conform/validate"
)

// Body limits (features/README.md, "Status codes and error codes": 413
// REQUEST_TOO_LARGE). A JSON body has the
// library's limit, validate.MaxBodyBytes (1 MiB), so the reference and a
// service behind validate.Middleware refuse the same bodies.
const (
	maxJSONBytes   = validate.MaxBodyBytes
	maxUploadBytes = 10 << 20
	// multipartSlack allows for the multipart framing around a maximal file.
	multipartSlack = 64 << 10
)

// request is what a handler receives: the operation, the authenticated user,
// the base URL for links, the validated body (jsonBody says it is a JSON
// body that passed validation) and the operation's time.
type request struct {
	r        *http.Request
	op       validate.Operation
	user     ledger.User
	base     string
	body     []byte
	jsonBody bool
	v        *validate.Validator // decodes the body
	now      time.Time
	// maxTags is Limits.Tags (0: no cap).
	maxTags int
	// held is what the request took of the body budget, released once it
	// is answered.
	held int64
	// claim is the idempotency claim the request runs under (idempotent),
	// nil for none; its unit of work runs with it (Server.updateClaimed).
	claim *ledger.IdemRun
}

// resumed is the resource an idempotent create committed before its
// replica died (its claim was taken over): the create answers it instead of
// creating another, and emits nothing (its events committed with it). ""
// when the request runs afresh.
func (rq *request) resumed() string {
	if rq.claim == nil {
		return ""
	}
	return rq.claim.Resumed
}

// handler is one operation: it returns a value to encode with the
// operation's success status, or an error for the envelope.
type handler func(rq *request) (any, error)

// rawBody is a non-JSON response (file download).
type rawBody struct {
	contentType string
	data        []byte
}

// replay is a stored response sent again (idempotency); requestID, when
// set, is the X-Request-Id of the error envelope in body.
type replay struct {
	status      int
	contentType string
	requestID   string
	body        []byte
}

// gate is a check an operation runs after authentication and before its
// body is read, so a request bound to fail does not cost a body upload.
type gate func(rq *request) error

// endpoint wraps h with the pipeline every operation shares.
func (s *Server) endpoint(op validate.Operation, h handler, g gate) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rq := &request{r: r, op: op, base: s.baseURL(r), now: s.now(), maxTags: s.limits.Tags}
		defer func() { s.bodies.release(rq.held) }()
		if err := s.admit(rq, g); err != nil {
			s.writeError(w, r, err)
			return
		}
		out, err := h(rq)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		s.respond(w, r, op, out)
	})
}

// admit runs authentication, content negotiation, the operation's gate,
// body limits and request validation, in that order.
func (s *Server) admit(rq *request, g gate) error {
	r, op := rq.r, rq.op
	if len(op.Roles) > 0 {
		u, err := s.authenticate(r, op.Roles)
		if err != nil {
			return err
		}
		rq.user = u
	}
	if op.Response != "" && !validate.AcceptsJSON(r.Header.Get("Accept")) {
		return &ledger.DomainError{Kind: ledger.KindNotAcceptable, Message: "Accept must admit application/hal+json"}
	}
	if g != nil {
		if err := g(rq); err != nil {
			return err
		}
	}
	if op.Request == "" {
		return nil
	}
	if err := s.holdBody(rq); err != nil {
		return err
	}
	switch op.Request {
	case "multipart":
		mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
		if err != nil || mt != "multipart/form-data" {
			return &ledger.DomainError{Kind: ledger.KindNotAcceptable, Message: "Content-Type must be multipart/form-data"}
		}
		r.Body = http.MaxBytesReader(nil, r.Body, maxUploadBytes+multipartSlack)
		return nil
	case "binary":
		body, err := readBody(r, maxUploadBytes)
		rq.body = body
		return err
	}
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || !validate.JSONMediaType(mt) {
		return &ledger.DomainError{Kind: ledger.KindNotAcceptable, Message: "Content-Type must be a JSON media type such as application/vnd.json+api"}
	}
	body, err := readBody(r, maxJSONBytes)
	if err != nil {
		return err
	}
	rq.body = body
	// Validation reads the body without decoding it; a handler decodes it
	// once, into its own types (rq.decode).
	if err = s.v.Request(op.ID, body); err != nil {
		return fmt.Errorf("%s: %w", op.ID, err)
	}
	rq.jsonBody, rq.v = true, s.v
	return nil
}

// holdBody takes the request's share of the body budget before its body is
// read: its declared length, or its limit when it declares none (a JSON body
// counts four times, for the tree it decodes into).
func (s *Server) holdBody(rq *request) error {
	limit, factor := int64(maxJSONBytes), int64(4)
	switch rq.op.Request {
	case "multipart":
		limit, factor = maxUploadBytes+multipartSlack, 1
	case "binary":
		limit, factor = maxUploadBytes, 1
	}
	n := rq.r.ContentLength
	if n < 0 || n > limit {
		n = limit
	}
	held, err := s.bodies.acquire(rq.r.Context(), n*factor)
	rq.held = held
	return err
}

// readBody reads at most limit bytes; more is 413. A declared length within
// the limit sizes the buffer (the body is read to its end either way; the
// body budget holds the declared length), and a body much shorter than it
// declared is kept as an exact copy.
func readBody(r *http.Request, limit int64) ([]byte, error) {
	size := int64(0)
	if n := r.ContentLength; n > 0 && n <= limit {
		size = n + 1 // room for the read that finds the end
	}
	body, err := readSized(http.MaxBytesReader(nil, r.Body, limit), size)
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		return nil, &ledger.DomainError{Kind: ledger.KindTooLarge, Message: fmt.Sprintf("request body exceeds %d bytes", limit)}
	case err != nil:
		return nil, &ledger.DomainError{Kind: ledger.KindBadRequest, Message: "request body could not be read"}
	}
	return body, nil
}

// readSized reads r to its end into one buffer of capacity size (size ≤ 0:
// io.ReadAll's growing one) rather than growing and copying one, and keeps
// an exact copy when what was read is much smaller than size, so a short
// read does not pin the whole buffer.
func readSized(r io.Reader, size int64) ([]byte, error) {
	if size <= 0 {
		return io.ReadAll(r)
	}
	b, err := readAllInto(make([]byte, 0, size), r)
	if err == nil && cap(b)-len(b) > len(b)/8+4096 {
		b = bytes.Clone(b)
	}
	return b, err
}

// readAllInto is io.ReadAll appending to b.
func readAllInto(b []byte, r io.Reader) ([]byte, error) {
	for {
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if errors.Is(err, io.EOF) {
			return b, nil
		}
		if err != nil {
			return b, fmt.Errorf("read body: %w", err)
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
	}
}

// respond writes a handler's result with the operation's success status.
func (s *Server) respond(w http.ResponseWriter, r *http.Request, op validate.Operation, out any) {
	switch v := out.(type) {
	case replay:
		if v.requestID != "" {
			w.Header().Set("X-Request-Id", v.requestID)
		}
		writeRaw(w, v.status, v.contentType, v.body)
	case rawBody:
		writeRaw(w, op.Status, v.contentType, v.data)
	case streamBody:
		v.writeTo(s, w, op.Status)
	case nil:
		w.WriteHeader(op.Status)
	default:
		if err := s.writeJSON(w, op.Status, v); err != nil {
			s.writeError(w, r, err)
		}
	}
}

// decode builds dst from the validated body, decoded once into dst's
// types; tags beyond the cap are 429.
func (rq *request) decode(dst any) error {
	var body []byte
	if rq.jsonBody {
		body = rq.body
	}
	if _, ok := dst.(ledger.Tagged); ok && rq.maxTags > 0 && len(body) > tagProbeBytes {
		// A large body counts its tags first: 25,000 of them are refused
		// without building them.
		if n := countTags(body); n > rq.maxTags {
			return ledger.ErrQuota("a resource may carry at most %d tags, got %d", rq.maxTags, n)
		}
	}
	if err := decodeBody(rq.v, body, dst); err != nil {
		return fmt.Errorf("%s: %w", rq.op.ID, err)
	}
	if sz, ok := dst.(ledger.Sized); ok {
		sz.SetSize(len(rq.body))
	}
	if t, ok := dst.(ledger.Tagged); ok && rq.maxTags > 0 && len(t.TagList()) > rq.maxTags {
		return ledger.ErrQuota("a resource may carry at most %d tags, got %d", rq.maxTags, len(t.TagList()))
	}
	return nil
}
