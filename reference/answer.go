package reference

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
)

// Writing answers: a view's JSON into a pooled buffer, then the response.

// writeJSON encodes v as the response body with the given status. The
// hand-written encodings write into a buffer of s.answers, given back once
// the body is written (a ResponseWriter keeps none of what it is given);
// other values go through json.Marshal.
func (s *Server) writeJSON(w http.ResponseWriter, status int, v any) error {
	switch x := v.(type) {
	case jsonAppender:
		b := s.answerBuffer()
		*b = x.AppendJSON((*b)[:0])
		writeRaw(w, status, halJSON, *b)
		s.releaseAnswer(b)
		return nil
	case listEnvelope:
		b := s.answerBuffer()
		if out, ok := x.AppendJSON((*b)[:0]); ok {
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

// writeRaw writes an answer's status, Content-Type, Content-Length and
// body. The two header values share one allocation (what Header.Set
// makes for each), each value a slice of its own capacity, so an Add to
// one leaves the other alone.
func writeRaw(w http.ResponseWriter, status int, contentType string, b []byte) {
	h := w.Header()
	values := make([]string, 2)
	values[0], values[1] = contentType, strconv.Itoa(len(b))
	h["Content-Type"] = values[0:1:1]
	h["Content-Length"] = values[1:2:2]
	w.WriteHeader(status)
	_, _ = w.Write(b)
}
