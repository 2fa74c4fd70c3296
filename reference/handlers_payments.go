package reference

// Handlers of payment instruments, authorizations and transfers (sales):
// each request is one unit of work, whose events are emitted in it.

func (s *Server) createPaymentInstrument(rq *request) (any, error) {
	var in cardCreate
	if err := rq.decode(&in); err != nil {
		return nil, err
	}
	var p paymentInstrument
	err := s.update(rq.r.Context(), rq.user.app, func(t tx) error {
		var err error
		if p, err = createCard(t, in); err != nil {
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
	p, err := getOne(s, rq, tx.Cards, rq.r.PathValue("id"))
	if err != nil {
		return nil, err
	}
	return viewPaymentInstrument(rq.base, p), nil
}

func (s *Server) createAuthorization(rq *request) (any, error) {
	var in authorizationCreate
	if err := rq.decode(&in); err != nil {
		return nil, err
	}
	return s.idempotent(rq, in.IdempotencyID, &in, func(rq *request) (any, error) {
		var a authorization
		var declined bool
		err := s.updateClaimed(rq, func(t tx) error {
			if id := rq.resumed(); id != "" {
				var err error
				a, err = t.Authorizations().Get(id)
				declined = a.State == "FAILED"
				return err
			}
			var err error
			if a, declined, err = authorize(t, in); err != nil {
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
			return nil, errDeclined(a.ID)
		}
		return viewAuthorization(rq.base, a), nil
	})
}

func (s *Server) getAuthorization(rq *request) (any, error) {
	a, err := getOne(s, rq, tx.Authorizations, rq.r.PathValue("id"))
	if err != nil {
		return nil, err
	}
	return viewAuthorization(rq.base, a), nil
}

func (s *Server) captureAuthorization(rq *request) (any, error) {
	var in captureRequest
	if err := rq.decode(&in); err != nil {
		return nil, err
	}
	var a authorization
	err := s.update(rq.r.Context(), rq.user.app, func(t tx) error {
		var tr transfer
		var err error
		if a, tr, err = capture(t, rq.r.PathValue("id"), in); err != nil {
			return err
		}
		if ob := t.Outbox(); ob.Listening() {
			info, _ := t.AppInfo()
			ob.Emit("transfer", "created", viewTransfer(rq.base, info.feeProfile, tr))
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
	var in transferCreate
	if err := rq.decode(&in); err != nil {
		return nil, err
	}
	return s.idempotent(rq, in.IdempotencyID, &in, func(rq *request) (any, error) {
		var res saleResult
		var fp string
		err := s.updateClaimed(rq, func(t tx) error {
			info, _ := t.AppInfo()
			fp = info.feeProfile
			if id := rq.resumed(); id != "" {
				tr, err := t.Transfers().Get(id)
				res = saleResult{transfer: tr, declined: tr.State == "FAILED"}
				return err
			}
			var err error
			if res, err = sale(t, in); err != nil {
				return err
			}
			if ob := t.Outbox(); ob.Listening() {
				ob.Emit("transfer", "created", viewTransfer(rq.base, fp, res.transfer))
				if res.dispute != nil {
					ob.Emit("dispute", "created", viewDispute(rq.base, *res.dispute))
					ob.Emit("transfer", "created", viewTransfer(rq.base, fp, *res.adjustment))
				}
			}
			if res.dispute != nil {
				t.Outbox().After(s.cfg.ReviewDelay, timerDisputeStep, res.dispute.ID, rq.base)
			}
			return nil
		})
		switch {
		case err != nil:
			return nil, err
		case res.declined:
			return nil, errDeclined(res.transfer.ID)
		}
		return viewTransfer(rq.base, fp, res.transfer), nil
	})
}

func (s *Server) getTransfer(rq *request) (any, error) {
	var v transferView
	err := s.view(rq.r.Context(), rq.user.app, func(t tx) error {
		tr, err := t.Transfers().Get(rq.r.PathValue("id"))
		if err != nil {
			return err
		}
		info, _ := t.AppInfo()
		v = viewTransfer(rq.base, info.feeProfile, tr)
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
	err := s.update(s.ctx, app, func(t tx) error {
		d, adj, ok, err := advanceDispute(t, id)
		if err != nil || !ok {
			return err
		}
		info, _ := t.AppInfo()
		t.Outbox().Emit("dispute", "updated", viewDispute(base, d))
		t.Outbox().Emit("transfer", "created", viewTransfer(base, info.feeProfile, adj))
		return nil
	})
	if err != nil {
		s.log.Error("advance a dispute", "dispute", id, "error", err)
	}
}

// feeProfile is the application's fee profile id (for transfer links).
func (s *Server) feeProfile(app string) string {
	var fp string
	_ = s.view(s.ctx, app, func(t tx) error {
		info, _ := t.AppInfo()
		fp = info.feeProfile
		return nil
	})
	return fp
}
