package reference

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// Encoding responses: timestamps in the API's layout and JSON bodies.

// timeLayout renders timestamps as RFC 3339 UTC with fractional seconds and Z.
const timeLayout = "2006-01-02T15:04:05.000000Z"

// jsonTime is a timestamp that always renders with fractional seconds in UTC.
type jsonTime time.Time

// MarshalJSON renders the timestamp in timeLayout.
func (t jsonTime) MarshalJSON() ([]byte, error) {
	return t.appendJSON(make([]byte, 0, len(timeLayout)+2)), nil
}

func (t jsonTime) appendJSON(b []byte) []byte {
	b = append(b, '"')
	b = appendTime(b, time.Time(t))
	return append(b, '"')
}

// appendTime appends t in timeLayout: the bytes AppendFormat writes, digit
// by digit rather than by reading the layout (every record answered has two
// or more timestamps, a page of twenty forty). A year outside 0–9999 goes
// through AppendFormat.
func appendTime(b []byte, t time.Time) []byte {
	t = t.UTC()
	year, month, day := t.Date()
	if year < 0 || year > 9999 {
		return t.AppendFormat(b, timeLayout)
	}
	hour, minute, sec := t.Clock()
	us := t.Nanosecond() / 1000
	b = append(b,
		byte('0'+year/1000), byte('0'+year/100%10), byte('0'+year/10%10), byte('0'+year%10), '-',
		byte('0'+int(month)/10), byte('0'+int(month)%10), '-',
		byte('0'+day/10), byte('0'+day%10), 'T',
		byte('0'+hour/10), byte('0'+hour%10), ':',
		byte('0'+minute/10), byte('0'+minute%10), ':',
		byte('0'+sec/10), byte('0'+sec%10), '.',
		byte('0'+us/100000), byte('0'+us/10000%10), byte('0'+us/1000%10),
		byte('0'+us/100%10), byte('0'+us/10%10), byte('0'+us%10), 'Z')
	return b
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

func (t jsonTime) time() time.Time { return time.Time(t) }

// writeJSON encodes v as the response body with the given status. The
// hand-written encodings write into a buffer of s.answers, given back once
// the body is written (a ResponseWriter keeps none of what it is given);
// other values go through json.Marshal.
func (s *Server) writeJSON(w http.ResponseWriter, status int, v any) error {
	switch x := v.(type) {
	case jsonAppender:
		b := s.answerBuffer()
		*b = x.appendJSON((*b)[:0])
		writeRaw(w, status, halJSON, *b)
		s.releaseAnswer(b)
		return nil
	case listEnvelope:
		b := s.answerBuffer()
		if out, ok := x.appendJSON((*b)[:0]); ok {
			*b = out
			writeRaw(w, status, halJSON, out)
			s.releaseAnswer(b)
			return nil
		}
		s.releaseAnswer(b)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode response: %w", err)
	}
	writeRaw(w, status, halJSON, b)
	return nil
}

// maxPooledAnswer is the largest buffer kept for the next answer: a page of
// a hundred records with their tags, not an outlier's.
const maxPooledAnswer = 256 << 10

// answerBuffer is a buffer to encode an answer into (of s.answers).
func (s *Server) answerBuffer() *[]byte {
	if b, ok := s.answers.Get().(*[]byte); ok {
		return b
	}
	b := make([]byte, 0, 4<<10)
	return &b
}

// releaseAnswer gives b back once what it holds was written.
func (s *Server) releaseAnswer(b *[]byte) {
	if cap(*b) <= maxPooledAnswer {
		s.answers.Put(b)
	}
}

func writeRaw(w http.ResponseWriter, status int, contentType string, b []byte) {
	h := w.Header()
	h.Set("Content-Type", contentType)
	h.Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(status)
	_, _ = w.Write(b)
}
