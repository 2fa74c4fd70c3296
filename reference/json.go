package reference

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/conform-kit/conform/validate"
)

// halJSON is the content type of every JSON response.
const halJSON = "application/hal+json"

// timeLayout renders timestamps as RFC 3339 UTC with fractional seconds and Z.
const timeLayout = "2006-01-02T15:04:05.000000Z"

// jsonTime is a timestamp that always renders with fractional seconds in UTC.
type jsonTime time.Time

// MarshalJSON renders the timestamp in timeLayout.
func (t jsonTime) MarshalJSON() ([]byte, error) {
	b := make([]byte, 0, len(timeLayout)+2)
	b = append(b, '"')
	b = time.Time(t).UTC().AppendFormat(b, timeLayout)
	return append(b, '"'), nil
}

// UnmarshalJSON reads an RFC 3339 timestamp.
func (t *jsonTime) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("timestamp: %w", err)
	}
	v, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return fmt.Errorf("timestamp: %w", err)
	}
	*t = jsonTime(v)
	return nil
}

func timePtr(t time.Time) *jsonTime {
	j := jsonTime(t)
	return &j
}

// requestMediaTypes are the JSON content types a request body may declare.
var requestMediaTypes = [...]string{
	"application/json", "application/vnd.api+json", "application/vnd.json+api", "application/hal+json",
}

func isJSONMediaType(mt string) bool {
	for _, t := range requestMediaTypes {
		if mt == t {
			return true
		}
	}
	return false
}

// acceptsJSON reports whether an Accept header admits a JSON type we produce.
// A media range with q=0 (RFC 9110 12.5.1: "not acceptable") admits nothing.
func acceptsJSON(accept string) bool {
	if strings.TrimSpace(accept) == "" {
		return true
	}
	for _, part := range strings.Split(accept, ",") {
		mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil || refused(params["q"]) {
			continue
		}
		if mt == "*/*" || mt == "application/*" || isJSONMediaType(mt) {
			return true
		}
	}
	return false
}

// refused reports whether a q parameter is zero ("0", "0.0", "0.000").
func refused(q string) bool {
	if q == "" {
		return false
	}
	v, err := strconv.ParseFloat(q, 64)
	return err == nil && v == 0
}

// decodeBody decodes a validated JSON body into dst, numbers as json.Number
// inside untyped values (additional_purchase_data needs them for the rules).
// JSON Schema counts 1.0 and 1e3 as integers, so a typed field that refuses
// such a number gets it again in integer form. A number no int64 can hold
// (99999999999999999999, 1e30) is 422 INVALID_FIELD at its pointer, not a
// 400: the body is JSON of the right shape with a value out of range.
func decodeBody(body []byte, dst any) error {
	err := decodeNumbers(body, dst)
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) && strings.HasPrefix(typeErr.Value, "number") {
		if normalized, ok := integralNumbers(body); ok {
			err = decodeNumbers(normalized, dst)
		}
	}
	if err == nil {
		return nil
	}
	if errors.As(err, &typeErr) && strings.HasPrefix(typeErr.Value, "number") {
		return errInvalidField(fieldPointer(typeErr.Field), "must be an integer from %d to %d", int64(math.MinInt64), int64(math.MaxInt64))
	}
	return fmt.Errorf("%w: the body does not match the operation's fields", validate.ErrMalformed)
}

func decodeNumbers(body []byte, dst any) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(dst); err != nil {
		return fmt.Errorf("decode body: %w", err)
	}
	return nil
}

// integralNumbers re-encodes body with every number that is an integer in
// int64 range written in integer form (1.0 becomes 1, 1e3 becomes 1000).
func integralNumbers(body []byte) ([]byte, bool) {
	var v any
	if decodeNumbers(body, &v) != nil {
		return nil, false
	}
	b, err := json.Marshal(integralize(v))
	if err != nil {
		return nil, false
	}
	return b, true
}

func integralize(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, c := range x {
			x[k] = integralize(c)
		}
	case []any:
		for i, c := range x {
			x[i] = integralize(c)
		}
	case json.Number:
		if _, err := x.Int64(); err == nil {
			return x
		}
		f, _, err := big.ParseFloat(string(x), 10, 256, big.ToNearestEven)
		if err != nil || !f.IsInt() {
			return x
		}
		if i, acc := f.Int64(); acc == big.Exact {
			return json.Number(strconv.FormatInt(i, 10))
		}
	}
	return v
}

// fieldPointer turns encoding/json's dotted field path into a JSON pointer.
func fieldPointer(field string) string {
	if field == "" {
		return ""
	}
	return "/" + strings.ReplaceAll(field, ".", "/")
}

// canonicalHash hashes a JSON body independently of key order and spacing, so
// an idempotent retry matches even when a client re-serialises it.
func canonicalHash(body []byte) [sha256.Size]byte {
	var v any
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return sha256.Sum256(body)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return sha256.Sum256(body)
	}
	return sha256.Sum256(b)
}

// writeJSON encodes v as the response body with the given status.
func writeJSON(w http.ResponseWriter, status int, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode response: %w", err)
	}
	writeRaw(w, status, halJSON, b)
	return nil
}

func writeRaw(w http.ResponseWriter, status int, contentType string, b []byte) {
	h := w.Header()
	h.Set("Content-Type", contentType)
	h.Set("Content-Length", fmt.Sprint(len(b)))
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// recorder is a minimal in-memory ResponseWriter used to keep the exact
// response of an idempotent request for replay.
type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func newRecorder() *recorder { return &recorder{header: http.Header{}} }

func (r *recorder) Header() http.Header { return r.header }

func (r *recorder) WriteHeader(status int) {
	if r.status == 0 {
		r.status = status
	}
}

func (r *recorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return r.body.Write(b)
}

func (t jsonTime) time() time.Time { return time.Time(t) }

// mimeParams parses a header such as Content-Disposition.
func mimeParams(v string) (string, map[string]string, error) {
	d, params, err := mime.ParseMediaType(v)
	if err != nil {
		return "", nil, fmt.Errorf("parse %q: %w", v, err)
	}
	return d, params, nil
}
