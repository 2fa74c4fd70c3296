package faults

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/conform-kit/conform/reference"
	"github.com/conform-kit/conform/validate"
)

// The shapes of the reference's timestamps and ids, which faults forge.
const (
	timeLayout = "2006-01-02T15:04:05.000000Z" // as the reference writes created_at
	idLength   = 22                            // base62 characters after an id's prefix
)

// The building blocks of the faults: route matching, a response recorder,
// request and response rewriters, calls to the wrapped handler, JSON
// document helpers and the webhook transport wrapper.

// ---- matching ----

// faultRoute reports whether r is a request of the operation with id opID
// ("authorizations.capture"), as the operations table routes it, and returns
// its path parameters.
func faultRoute(r *http.Request, opID string) (map[string]string, bool) {
	v, err := validate.Default()
	if err != nil {
		return nil, false
	}
	op, params, err := v.Lookup(r.Method, r.URL.Path)
	if err != nil || op.ID != opID {
		return nil, false
	}
	return params, true
}

// matchAny reports whether r is a request of one of the operations.
func matchAny(r *http.Request, opIDs ...string) bool {
	for _, id := range opIDs {
		if _, ok := faultRoute(r, id); ok {
			return true
		}
	}
	return false
}

// ---- recording the inner handler ----

// faultRecorder buffers a response so a fault can inspect and rewrite it.
type faultRecorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func newFaultRecorder() *faultRecorder { return &faultRecorder{header: http.Header{}} }

// Header returns the buffered header.
func (rec *faultRecorder) Header() http.Header { return rec.header }

// WriteHeader records the first status.
func (rec *faultRecorder) WriteHeader(code int) {
	if rec.status == 0 {
		rec.status = code
	}
}

// Write buffers body bytes.
func (rec *faultRecorder) Write(b []byte) (int, error) {
	if rec.status == 0 {
		rec.status = http.StatusOK
	}
	return rec.body.Write(b)
}

// flush writes the buffered response to w with body instead of the recorded one.
func (rec *faultRecorder) flush(w http.ResponseWriter, body []byte) {
	for k, v := range rec.header {
		w.Header()[k] = v
	}
	w.Header().Del("Content-Length")
	if rec.status == 0 {
		rec.status = http.StatusOK
	}
	w.WriteHeader(rec.status)
	_, _ = w.Write(body)
}

// decodeFaultJSON decodes a JSON object keeping numbers exact; nil if b is not one.
func decodeFaultJSON(b []byte) map[string]any {
	var doc map[string]any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if dec.Decode(&doc) != nil {
		return nil
	}
	return doc
}

// ---- wrappers ----

// faultExchange is what a fault's edit sees of one request: the request and
// its path parameters, the decoded JSON request body (in, editable before the
// handler), the response status and decoded JSON body (out, editable after),
// the wrapped handler and the fault's dependencies.
type faultExchange struct {
	r      *http.Request
	params map[string]string
	next   http.Handler
	d      faultDeps
	in     map[string]any
	status int
	out    map[string]any
}

// call sends one request to the wrapped handler with the request's
// credentials (or cred when given) and returns the status and decoded body.
func (x *faultExchange) call(method, path string, body any, cred *reference.Credential) (int, map[string]any) {
	return innerCall(x.next, x.r, method, path, body, cred)
}

// copyInput copies a request field into the response; false if it is absent.
func (x *faultExchange) copyInput(key string) bool {
	v, ok := x.in[key]
	if !ok || x.out == nil {
		return false
	}
	x.out[key] = v
	return true
}

// match returns the path parameters of r if it is a request of one of the
// operations; every request matches an empty list.
func match(r *http.Request, opIDs []string) (map[string]string, bool) {
	if len(opIDs) == 0 {
		return map[string]string{}, true
	}
	for _, id := range opIDs {
		if params, ok := faultRoute(r, id); ok {
			return params, true
		}
	}
	return nil, false
}

// peekJSON decodes r's JSON body (nil if it is not a JSON object) and leaves
// the body readable for the handler.
func peekJSON(r *http.Request) map[string]any {
	if r.Body == nil || r.Body == http.NoBody {
		return nil
	}
	raw, err := io.ReadAll(r.Body)
	_ = r.Body.Close()
	r.Body = io.NopCloser(bytes.NewReader(raw))
	if err != nil {
		return nil
	}
	return decodeFaultJSON(raw)
}

// replaceBody makes doc r's body.
func replaceBody(r *http.Request, doc map[string]any) {
	raw, err := json.Marshal(doc)
	if err != nil {
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(raw))
	r.ContentLength = int64(len(raw))
	r.Header.Set("Content-Length", strconv.Itoa(len(raw)))
}

// rewriteRequest returns a fault that, for requests of one of the operations opIDs,
// lets edit change the decoded JSON body x.in (edit reports whether it
// changed it) before the handler sees it.
func rewriteRequest(edit func(x *faultExchange) bool, opIDs ...string) func(http.Handler, faultDeps) http.Handler {
	return func(next http.Handler, d faultDeps) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if params, ok := match(r, opIDs); ok {
				x := &faultExchange{r: r, params: params, next: next, d: d, in: peekJSON(r)}
				if x.in != nil && edit(x) {
					replaceBody(r, x.in)
				}
			}
			next.ServeHTTP(w, r)
		})
	}
}

// rewriteHeaders returns a fault that edits the request (headers, query,
// credentials) before the handler sees it, for requests of one of the operations
// opIDs (every request when opIDs is empty).
func rewriteHeaders(edit func(r *http.Request, d faultDeps), opIDs ...string) func(http.Handler, faultDeps) http.Handler {
	return func(next http.Handler, d faultDeps) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if _, ok := match(r, opIDs); ok {
				edit(r, d)
			}
			next.ServeHTTP(w, r)
		})
	}
}

// rewriteResponse returns a fault that, for requests of one of the operations opIDs
// (every request when opIDs is empty), lets edit change the status and the
// decoded JSON response x.out (edit reports whether it changed anything).
// Non-JSON responses pass unchanged.
func rewriteResponse(edit func(x *faultExchange) bool, opIDs ...string) func(http.Handler, faultDeps) http.Handler {
	return func(next http.Handler, d faultDeps) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			params, ok := match(r, opIDs)
			if !ok {
				next.ServeHTTP(w, r)
				return
			}
			x := &faultExchange{r: r, params: params, next: next, d: d, in: peekJSON(r)}
			rec := newFaultRecorder()
			next.ServeHTTP(rec, r)
			x.status, x.out = rec.status, decodeFaultJSON(rec.body.Bytes())
			if x.out != nil && edit(x) {
				rec.status = x.status
				writeFaultJSONHeader(w, rec, x.out)
				return
			}
			rec.flush(w, rec.body.Bytes())
		})
	}
}

// writeFaultJSON writes doc as a hal+json response.
func writeFaultJSON(w http.ResponseWriter, status int, doc map[string]any) {
	rec := newFaultRecorder()
	rec.status = status
	rec.header.Set("Content-Type", "application/hal+json")
	writeFaultJSONHeader(w, rec, doc)
}

// writeFaultJSONHeader writes doc with rec's status and headers.
func writeFaultJSONHeader(w http.ResponseWriter, rec *faultRecorder, doc map[string]any) {
	b, err := json.Marshal(doc)
	if err != nil {
		rec.flush(w, rec.body.Bytes())
		return
	}
	rec.flush(w, b)
}

// innerCall sends one request to next with r's credentials (or cred when
// given) and returns the status and decoded body.
func innerCall(next http.Handler, r *http.Request, method, path string, body any, cred *reference.Credential) (int, map[string]any) {
	var rd io.Reader = http.NoBody
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return 0, nil
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(r.Context(), method, path, rd)
	if err != nil {
		return 0, nil
	}
	req.Host, req.TLS, req.RemoteAddr = r.Host, r.TLS, r.RemoteAddr
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if cred != nil {
		req.SetBasicAuth(cred.Username, cred.Password)
	} else if a := r.Header.Get("Authorization"); a != "" {
		req.Header.Set("Authorization", a)
	}
	rec := newFaultRecorder()
	next.ServeHTTP(rec, req)
	return rec.status, decodeFaultJSON(rec.body.Bytes())
}

// ---- document helpers ----

// objectAt returns the object at path in doc, or nil.
func objectAt(doc any, path string) map[string]any {
	v, _ := validate.FieldAt(doc, path)
	m, _ := v.(map[string]any)
	return m
}

// eachResource calls visit on a response document and on each object item
// of its list envelope, if it is one.
func eachResource(doc map[string]any, visit func(map[string]any)) {
	visit(doc)
	for _, it := range listItems(doc) {
		if m, ok := it.(map[string]any); ok {
			visit(m)
		}
	}
}

// listItems returns the items of a list envelope (the single array under _embedded).
func listItems(doc map[string]any) []any {
	emb, _ := doc["_embedded"].(map[string]any)
	for _, v := range emb {
		if items, ok := v.([]any); ok {
			return items
		}
	}
	return nil
}

// stringAt returns the string field key of doc, or "".
func stringAt(doc map[string]any, key string) string {
	s, _ := doc[key].(string)
	return s
}

// numberOf reads a JSON number as int64.
func numberOf(v any) (int64, bool) {
	switch n := v.(type) {
	case json.Number:
		i, err := n.Int64()
		return i, err == nil
	case float64:
		return int64(n), n == float64(int64(n))
	}
	return 0, false
}

// shortenString cuts the string at path in doc to max characters when it is
// exactly one character over, so a value one over a limit is accepted.
func shortenString(doc map[string]any, path string, max int) bool {
	parent, key := doc, path
	if i := strings.LastIndex(path, "."); i >= 0 {
		parent, key = objectAt(doc, path[:i]), path[i+1:]
	}
	if parent == nil {
		return false
	}
	s, ok := parent[key].(string)
	if !ok || len(s) != max+1 {
		return false
	}
	parent[key] = s[:max]
	return true
}

// isSuccess reports a 2xx status.
func isSuccess(status int) bool { return status >= 200 && status <= 299 }

// ---- webhook transport ----

// faultTransport rewrites each webhook delivery with fn.
type faultTransport struct {
	base http.RoundTripper
	fn   func(base http.RoundTripper, req *http.Request) (*http.Response, error)
}

// RoundTrip delivers req through fn.
func (t *faultTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	return t.fn(t.base, req)
}

// rewriteDelivery sends each delivery with the body edit returns for the
// body it carried; edit may also change req's headers (a new signature).
func rewriteDelivery(base http.RoundTripper, edit func(req *http.Request, body []byte) ([]byte, error)) http.RoundTripper {
	return &faultTransport{base: base, fn: func(base http.RoundTripper, req *http.Request) (*http.Response, error) {
		body, err := deliveryBody(req)
		if err != nil {
			return nil, err
		}
		out, err := edit(req, body)
		if err != nil {
			return nil, err
		}
		req.Body = io.NopCloser(bytes.NewReader(out))
		req.ContentLength = int64(len(out))
		return base.RoundTrip(req)
	}}
}

// answeredDelivery is the response a transport gives for a delivery it
// answers itself, with status and no body, instead of sending it.
func answeredDelivery(req *http.Request, status int) *http.Response {
	return &http.Response{
		StatusCode: status, Status: fmt.Sprintf("%d %s", status, http.StatusText(status)),
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: http.Header{}, Body: http.NoBody, Request: req,
	}
}

// deliveryBody reads a delivery's body and puts it back.
func deliveryBody(req *http.Request) ([]byte, error) {
	if req.Body == nil {
		return nil, nil
	}
	b, err := io.ReadAll(req.Body)
	_ = req.Body.Close()
	if err != nil {
		return nil, fmt.Errorf("read delivery body: %w", err)
	}
	req.Body = io.NopCloser(bytes.NewReader(b))
	return b, nil
}
