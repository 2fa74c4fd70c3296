package reference

import (
	"crypto/sha256"
	"errors"
	"fmt"

	"github.com/conform-kit/conform/reference/ledger"
)

// idempotent runs h at most once per idempotency id, application and
// operation (features/README.md, "Behaviour"): a retry with the same body replays the
// original status and body, another body is 422 UNPROCESSABLE_ENTITY, and
// concurrent duplicates wait for the first to finish. in is the decoded
// body, whose encoding is the canonical form the retry is compared by.
func (s *Server) idempotent(rq *request, id *string, in canonical, h handler) (any, error) {
	if id == nil || *id == "" {
		return h(rq)
	}
	key := ledger.IdemKey{App: rq.user.App, Op: rq.op.ID, ID: *id}
	hash, err := canonicalHash(in)
	if err != nil {
		return nil, err
	}
	for {
		e, owner, err := s.units.Claim(rq.r.Context(), key, hash, rq.now)
		if err != nil {
			return nil, err
		}
		if owner {
			rq.claim = &ledger.IdemRun{Key: key, Resumed: e.Resumed, Holder: e.Holder}
			if r, lost := s.runIdempotent(rq, key, e, h); !lost {
				return r, nil
			}
			continue // taken over while it ran: its unit committed nothing; wait for the new holder's answer
		}
		select {
		case <-e.Done:
		case <-rq.r.Context().Done():
			return nil, fmt.Errorf("wait for idempotent request %s: %w", *id, rq.r.Context().Err())
		}
		if !e.OK {
			continue // the first request was abandoned; run afresh
		}
		if e.Hash != hash {
			return nil, ledger.ErrUnprocessable("idempotency_id %s was already used with a different request body", *id)
		}
		return replay{status: e.Out.Status, contentType: e.Out.ContentType, requestID: e.Out.RequestID, body: e.Out.Body}, nil
	}
}

// runIdempotent runs h, records its complete response and returns it as a
// replay. Server errors (and panics) are not recorded, so a retry runs again.
// lost: the claim was taken over while h ran (ledger.ErrClaimLost), nothing is
// answered.
func (s *Server) runIdempotent(rq *request, key ledger.IdemKey, e *ledger.IdemEntry, h handler) (_ replay, lost bool) {
	done := false
	defer func() {
		if !done {
			_ = s.units.Settle(rq.r.Context(), key, e, false, ledger.IdemOutcome{})
		}
	}()
	rec := newRecorder()
	if out, err := h(rq); errors.Is(err, ledger.ErrClaimLost) {
		return replay{}, true // the deferred settle gives up nothing: the key is the new holder's
	} else if err != nil {
		s.writeError(rec, rq.r, err)
	} else {
		s.respond(rec, rq.r, rq.op, out)
	}
	r := replay{
		status: rec.status, contentType: rec.header.Get("Content-Type"),
		requestID: rec.header.Get("X-Request-Id"), body: rec.body.Bytes(),
	}
	done = true
	if err := s.units.Settle(rq.r.Context(), key, e, r.status < 500, ledger.IdemOutcome{Status: r.status, ContentType: r.contentType, RequestID: r.requestID, Body: r.body}); err != nil {
		s.log.Error("record an idempotent outcome", "error", err)
	}
	return r, false
}

// canonical is a decoded request body that writes its canonical encoding:
// the bytes json.Marshal writes for it (struct fields in declaration order,
// map keys sorted), which do not depend on the key order or spacing the
// client sent (TestCanonicalIsMarshal).
type canonical interface {
	appendCanonical(b []byte) ([]byte, error)
}

// saleBody and authorizationBody are the decoded bodies of the idempotent
// creates, as canonical.
type (
	saleBody          ledger.TransferCreate
	authorizationBody ledger.AuthorizationCreate
)

// canonicalHash hashes a decoded request body by its canonical encoding, so
// an idempotent retry matches even when a client re-serialises it, and the
// body is not decoded a second time for it.
func canonicalHash(in canonical) ([sha256.Size]byte, error) {
	b, err := in.appendCanonical(make([]byte, 0, 1024))
	if err != nil {
		return [sha256.Size]byte{}, fmt.Errorf("idempotency hash: %w", err)
	}
	return sha256.Sum256(b), nil
}

func (in *saleBody) appendCanonical(b []byte) ([]byte, error) {
	w := openObject(b)
	w.str("source", in.Source)
	w.str("merchant", in.Merchant)
	w.int("amount", in.Amount)
	w.int64Ptr("fee", in.Fee)
	w.str("currency", in.Currency)
	w.strPtr("idempotency_id", in.IdempotencyID)
	w.tags("tags", in.Tags)
	w.purchaseData("additional_purchase_data", in.AdditionalPurchaseData)
	return w.close(), nil
}

func (in *authorizationBody) appendCanonical(b []byte) ([]byte, error) {
	w := openObject(b)
	w.str("source", in.Source)
	w.str("merchant_identity", in.MerchantIdentity)
	w.str("merchant", in.Merchant)
	w.int("amount", in.Amount)
	w.str("currency", in.Currency)
	w.strPtr("processor", in.Processor)
	w.tags("tags", in.Tags)
	w.strPtr("idempotency_id", in.IdempotencyID)
	w.purchaseData("additional_purchase_data", in.AdditionalPurchaseData)
	return w.close(), nil
}
