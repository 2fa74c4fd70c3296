package reference

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
)

// idempotent runs h at most once per idempotency id, application and
// operation (DESIGN.md "Idempotency"): a retry with the same body replays the
// original status and body, another body is 422 UNPROCESSABLE_ENTITY, and
// concurrent duplicates wait for the first to finish.
func (s *Server) idempotent(rq *request, id *string, h handler) (any, error) {
	if id == nil || *id == "" {
		return h(rq)
	}
	key := idemKey{app: rq.user.app, op: rq.op.ID, id: *id}
	hash := canonicalHash(rq.body)
	for {
		e, owner := s.st.idempotencyBegin(key, hash, rq.now)
		if owner {
			return s.runIdempotent(rq, key, e, h), nil
		}
		select {
		case <-e.done:
		case <-rq.r.Context().Done():
			return nil, fmt.Errorf("wait for idempotent request %s: %w", *id, rq.r.Context().Err())
		}
		if !e.ok {
			continue // the first request was abandoned; run afresh
		}
		if e.hash != hash {
			return nil, errUnprocessable("idempotency_id %s was already used with a different request body", *id)
		}
		return replay(e.out), nil
	}
}

// runIdempotent runs h, records its complete response and returns it as a
// replay. Server errors (and panics) are not recorded, so a retry runs again.
func (s *Server) runIdempotent(rq *request, key idemKey, e *idemEntry, h handler) replay {
	done := false
	defer func() {
		if !done {
			s.st.idempotencyEnd(key, e, false, idemOutcome{})
		}
	}()
	rec := newRecorder()
	if out, err := h(rq); err != nil {
		s.writeError(rec, rq.r, err)
	} else {
		s.respond(rec, rq.r, rq.op, out)
	}
	r := replay{
		status: rec.status, contentType: rec.header.Get("Content-Type"),
		requestID: rec.header.Get("X-Request-Id"), body: rec.body.Bytes(),
	}
	done = true
	s.st.idempotencyEnd(key, e, r.status < 500, idemOutcome(r))
	return r
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
