package reference

// Handlers of payment instruments, authorizations and transfers (sales).

func (s *Server) createPaymentInstrument(rq *request) (any, error) {
	var in cardCreate
	if err := rq.decode(&in); err != nil {
		return nil, err
	}
	p, err := s.st.createCard(rq.user.app, in, rq.now)
	if err != nil {
		return nil, err
	}
	v := viewPaymentInstrument(rq.base, p)
	s.publish(rq.base, rq.user.app, "payment_instrument", "created", v)
	return v, nil
}

func (s *Server) getPaymentInstrument(rq *request) (any, error) {
	p, err := getCopy(s.st, s.st.cards, rq.user.app, rq.r.PathValue("id"))
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
		a, err := s.st.createAuthorization(rq.user.app, in, rq.now)
		if a.ID != "" {
			s.publish(rq.base, rq.user.app, "authorization", "created", viewAuthorization(rq.base, a))
		}
		if err != nil {
			return nil, err
		}
		return viewAuthorization(rq.base, a), nil
	})
}

func (s *Server) getAuthorization(rq *request) (any, error) {
	a, err := getCopy(s.st, s.st.auths, rq.user.app, rq.r.PathValue("id"))
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
	a, t, err := s.st.capture(rq.user.app, rq.r.PathValue("id"), in, rq.now)
	if err != nil {
		return nil, err
	}
	fp := s.feeProfile(rq.user.app)
	s.publish(rq.base, rq.user.app, "transfer", "created", viewTransfer(rq.base, fp, t))
	v := viewAuthorization(rq.base, a)
	s.publish(rq.base, rq.user.app, "authorization", "updated", v)
	return v, nil
}

func (s *Server) createTransfer(rq *request) (any, error) {
	var in transferCreate
	if err := rq.decode(&in); err != nil {
		return nil, err
	}
	return s.idempotent(rq, in.IdempotencyID, &in, func(rq *request) (any, error) {
		app := rq.user.app
		res, err := s.st.createSale(app, in, rq.now)
		fp := s.feeProfile(app)
		v := viewTransfer(rq.base, fp, res.transfer)
		if res.transfer.ID != "" {
			s.publish(rq.base, app, "transfer", "created", v)
		}
		if err != nil {
			return nil, err
		}
		if res.dispute != nil {
			s.publish(rq.base, app, "dispute", "created", viewDispute(rq.base, *res.dispute))
			s.publish(rq.base, app, "transfer", "created", viewTransfer(rq.base, fp, *res.adjustment))
			s.scheduleDisputeStep(rq.base, app, res.dispute.ID)
		}
		return v, nil
	})
}

func (s *Server) getTransfer(rq *request) (any, error) {
	t, err := getCopy(s.st, s.st.transfers, rq.user.app, rq.r.PathValue("id"))
	if err != nil {
		return nil, err
	}
	return viewTransfer(rq.base, s.feeProfile(rq.user.app), t), nil
}

// scheduleDisputeStep moves a dispute opened by the sandbox trigger from
// INQUIRY to PENDING once the review delay has passed.
func (s *Server) scheduleDisputeStep(base, app, id string) {
	s.after(s.cfg.ReviewDelay, func() {
		d, adj, ok := s.st.advanceDispute(id, s.now())
		if !ok {
			return
		}
		s.publish(base, app, "dispute", "updated", viewDispute(base, d))
		s.publish(base, app, "transfer", "created", viewTransfer(base, s.feeProfile(app), adj))
	})
}

// feeProfile is the application's fee profile id (for transfer links).
func (s *Server) feeProfile(app string) string {
	s.st.mu.Lock()
	defer s.st.mu.Unlock()
	if a := s.st.apps[app]; a != nil {
		return a.feeProfile
	}
	return ""
}
