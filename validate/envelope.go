package validate

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
)

// ErrorItem is one entry of the error envelope (spec §7).
type ErrorItem struct {
	Code     string // e.g. "NOT_FOUND"
	Message  string
	Field    string // optional (422 INVALID_FIELD): the JSON pointer of the field
	Resource string // optional (402): id of the failed resource
}

// Content type of every response body this package writes.
const halJSON = "application/hal+json"

type envelope struct {
	Total    int `json:"total"`
	Embedded struct {
		Errors []envelopeItem `json:"errors"`
	} `json:"_embedded"`
}

type envelopeItem struct {
	Code     string          `json:"code"`
	Logref   logref          `json:"logref"`
	Message  string          `json:"message"`
	Field    string          `json:"field,omitempty"`
	Resource string          `json:"failure_resource,omitempty"`
	Links    map[string]href `json:"_links"`
}

type logref struct {
	Logref string `json:"logref"`
}

type href struct {
	Href string `json:"href"`
}

// WriteEnvelope writes status and the spec's error envelope with one entry
// per item, as application/hal+json. Each entry carries the request id (the
// X-Request-Id header, or a generated one) as logref and the absolute request
// URL as its self and source links.
func WriteEnvelope(w http.ResponseWriter, r *http.Request, status int, items ...ErrorItem) {
	id := r.Header.Get("X-Request-Id")
	if id == "" {
		id = newRequestID()
	}
	self := requestURL(r)
	var env envelope
	env.Total = len(items)
	env.Embedded.Errors = make([]envelopeItem, 0, len(items))
	for _, it := range items {
		env.Embedded.Errors = append(env.Embedded.Errors, envelopeItem{
			Code: it.Code, Logref: logref{id}, Message: it.Message, Field: it.Field, Resource: it.Resource,
			Links: map[string]href{"self": {self}, "source": {self}},
		})
	}
	body, err := json.Marshal(env)
	if err != nil { // cannot happen: the envelope holds only strings and ints
		body = []byte(`{"total":0,"_embedded":{"errors":[]}}`)
	}
	h := w.Header()
	h.Set("Content-Type", halJSON)
	h.Set("X-Request-Id", id)
	h.Del("Content-Length")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// WriteError renders err in the error envelope: an *Error becomes 422 with
// one item per violation (code and field set); ErrMalformed becomes 400
// BAD_REQUEST; anything else 500 with a generic message that does not leak
// the error's detail.
func WriteError(w http.ResponseWriter, r *http.Request, err error) {
	var verr *Error
	switch {
	case errors.As(err, &verr):
		items := make([]ErrorItem, 0, len(verr.Violations))
		for _, v := range verr.Violations {
			items = append(items, ErrorItem{Code: verr.Code, Message: v.Message, Field: v.Pointer})
		}
		kind := RefusalInvalidField
		if verr.Code == CodeUnprocessable {
			kind = RefusalUnprocessable
		}
		status, _ := defaultRefusal(kind)
		WriteEnvelope(w, r, status, items...)
	case errors.Is(err, ErrMalformed):
		status, code := defaultRefusal(RefusalMalformed)
		WriteEnvelope(w, r, status, ErrorItem{Code: code, Message: err.Error()})
	default:
		WriteEnvelope(w, r, http.StatusInternalServerError, ErrorItem{Code: "INTERNAL_SERVER_ERROR", Message: "internal server error"})
	}
}

func newRequestID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// requestURL rebuilds the absolute URL of the request.
func requestURL(r *http.Request) string {
	if r.URL.IsAbs() {
		return r.URL.String()
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	host := r.Host
	if host == "" {
		host = "localhost"
	}
	return scheme + "://" + host + r.URL.RequestURI()
}
