package reference

import "github.com/conform-kit/conform/reference/ledger"

// Handlers of payment instruments, authorizations and transfers (sales):
// each request is one unit of work, whose events are emitted in it.

func (s *Server) createPaymentInstrument(rq *request) (any, error) {
	var in ledger.CardCreate
	if err := rq.decode(&in); err != nil {
		return nil, err
	}
	var p ledger.PaymentInstrument
	err := s.update(rq.r.Context(), rq.user.App, func(t ledger.Tx) error {
		var err error
		if p, err = ledger.CreateCard(t, in); err != nil {
			return err
		}
		if ob := t.Outbox(); ob.Listening() {
			ob.Emit("payment_instrument", "created", viewPaymentInstrument(rq.base, p))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return viewPaymentInstrument(rq.base, p), nil
}

func (s *Server) getPaymentInstrument(rq *request) (any, error) {
	p, err := getOne(s, rq, ledger.Tx.Cards, rq.r.PathValue("id"))
	if err != nil {
		return nil, err
	}
	return viewPaymentInstrument(rq.base, p), nil
}

func (s *Server) createAuthorization(rq *request) (any, error) {
	var in ledger.AuthorizationCreate
	if err := rq.decode(&in); err != nil {
		return nil, err
	}
	return s.idempotent(rq, in.IdempotencyID, (*authorizationBody)(&in), func(rq *request) (any, error) {
		var a ledger.Authorization
		var declined bool
		err := s.updateClaimed(rq, func(t ledger.Tx) error {
			if id := rq.resumed(); id != "" {
				var err error
				a, err = t.Authorizations().Get(id)
				declined = a.State == "FAILED"
				return err
			}
			var err error
			if a, declined, err = ledger.Authorize(t, in); err != nil {
				return err
			}
			if ob := t.Outbox(); ob.Listening() {
				ob.Emit("authorization", "created", viewAuthorization(rq.base, a))
			}
			return nil
		})
		switch {
		case err != nil:
			return nil, err
		case declined:
			return nil, ledger.ErrDeclined(a.ID)
		}
		return viewAuthorization(rq.base, a), nil
	})
}

func (s *Server) getAuthorization(rq *request) (any, error) {
	a, err := getOne(s, rq, ledger.Tx.Authorizations, rq.r.PathValue("id"))
	if err != nil {
		return nil, err
	}
	return viewAuthorization(rq.base, a), nil
}

func (s *Server) captureAuthorization(rq *request) (any, error) {
	var in ledger.CaptureRequest
	if err := rq.decode(&in); err != nil {
		return nil, err
	}
	var a ledger.Authorization
	err := s.update(rq.r.Context(), rq.user.App, func(t ledger.Tx) error {
		var tr ledger.Transfer
		var err error
		if a, tr, err = ledger.Capture(t, rq.r.PathValue("id"), in); err != nil {
			return err
		}
		if ob := t.Outbox(); ob.Listening() {
			info, _ := t.AppInfo()
			ob.Emit("transfer", "created", viewTransfer(rq.base, info.FeeProfile, tr))
			ob.Emit("authorization", "updated", viewAuthorization(rq.base, a))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return viewAuthorization(rq.base, a), nil
}

func (s *Server) createTransfer(rq *request) (any, error) {
	var in ledger.TransferCreate
	if err := rq.decode(&in); err != nil {
		return nil, err
	}
	return s.idempotent(rq, in.IdempotencyID, (*saleBody)(&in), func(rq *request) (any, error) {
		var res ledger.SaleResult
		var fp string
		err := s.updateClaimed(rq, func(t ledger.Tx) error {
			info, _ := t.AppInfo()
			fp = info.FeeProfile
			if id := rq.resumed(); id != "" {
				tr, err := t.Transfers().Get(id)
				res = ledger.SaleResult{Transfer: tr, Declined: tr.State == "FAILED"}
				return err
			}
			var err error
			if res, err = ledger.Sale(t, in); err != nil {
				return err
			}
			if ob := t.Outbox(); ob.Listening() {
				ob.Emit("transfer", "created", viewTransfer(rq.base, fp, res.Transfer))
				if res.Dispute != nil {
					ob.Emit("dispute", "created", viewDispute(rq.base, *res.Dispute))
					ob.Emit("transfer", "created", viewTransfer(rq.base, fp, *res.Adjustment))
				}
			}
			if res.Dispute != nil {
				t.Outbox().After(s.cfg.ReviewDelay, ledger.TimerDisputeStep, res.Dispute.ID, rq.base)
			}
			return nil
		})
		switch {
		case err != nil:
			return nil, err
		case res.Declined:
			return nil, ledger.ErrDeclined(res.Transfer.ID)
		}
		return viewTransfer(rq.base, fp, res.Transfer), nil
	})
}

func (s *Server) getTransfer(rq *request) (any, error) {
	var v transferView
	err := s.view(rq.r.Context(), rq.user.App, func(t ledger.Tx) error {
		tr, err := t.Transfers().Get(rq.r.PathValue("id"))
		if err != nil {
			return err
		}
		info, _ := t.AppInfo()
		v = viewTransfer(rq.base, info.FeeProfile, tr)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return v, nil
}

// disputeStep is the timer of a dispute opened by the sandbox trigger: it
// moves the dispute from INQUIRY to PENDING, in one unit of work with its
// events.
func (s *Server) disputeStep(base, app, id string) {
	err := s.update(s.ctx, app, func(t ledger.Tx) error {
		d, adj, ok, err := ledger.AdvanceDispute(t, id)
		if err != nil || !ok {
			return err
		}
		info, _ := t.AppInfo()
		t.Outbox().Emit("dispute", "updated", viewDispute(base, d))
		t.Outbox().Emit("transfer", "created", viewTransfer(base, info.FeeProfile, adj))
		return nil
	})
	if err != nil {
		s.log.Error("advance a dispute", "dispute", id, "error", err)
	}
}

// feeProfile is the application's fee profile id (for transfer links).
func (s *Server) feeProfile(app string) string {
	var fp string
	_ = s.view(s.ctx, app, func(t ledger.Tx) error {
		info, _ := t.AppInfo()
		fp = info.FeeProfile
		return nil
	})
	return fp
}
