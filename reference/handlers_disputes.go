package reference

// Handlers of disputes, their evidence and adjustment transfers.

func (s *Server) listDisputes(rq *request) (any, error) {
	q, err := parseListQuery(rq.r.URL.Query())
	if err != nil {
		return nil, err
	}
	items, total := listCopy(s.st, func() *series[*dispute] { return &s.st.appOf(rq.user.app).disputes }, q)
	return newList(rq, "disputes", q, mapViews(rq.base, items, viewDispute), total), nil
}

func (s *Server) getDispute(rq *request) (any, error) {
	d, err := getCopy(s.st, s.st.disputes, rq.user.app, rq.r.PathValue("id"))
	if err != nil {
		return nil, err
	}
	return viewDispute(rq.base, d), nil
}

func (s *Server) createEvidence(rq *request) (any, error) {
	id := rq.r.PathValue("id")
	if err := s.st.disputeExists(rq.user.app, id); err != nil {
		return nil, err
	}
	up, err := readMultipartFile(rq.r, evidenceTypes)
	if err != nil {
		return nil, err
	}
	e, err := s.st.createEvidence(rq.user.app, id, up, rq.now)
	if err != nil {
		return nil, err
	}
	v := viewEvidence(rq.base, e)
	s.publish(rq.base, rq.user.app, "evidence", "created", v)
	return v, nil
}

func (s *Server) listEvidence(rq *request) (any, error) {
	q, err := parseListQuery(rq.r.URL.Query())
	if err != nil {
		return nil, err
	}
	id := rq.r.PathValue("id")
	if err := s.st.disputeExists(rq.user.app, id); err != nil {
		return nil, err
	}
	items, total := listCopy(s.st, func() *series[*evidence] { return s.st.evidenceByDispute[id] }, q)
	return newList(rq, "evidences", q, mapViews(rq.base, items, viewEvidence), total), nil
}

func (s *Server) getEvidence(rq *request) (any, error) {
	e, err := s.st.getEvidence(rq.user.app, rq.r.PathValue("dispute_id"), rq.r.PathValue("id"))
	if err != nil {
		return nil, err
	}
	return viewEvidence(rq.base, e), nil
}

func (s *Server) listAdjustmentTransfers(rq *request) (any, error) {
	q, err := parseListQuery(rq.r.URL.Query())
	if err != nil {
		return nil, err
	}
	id := rq.r.PathValue("dispute_id")
	if err := s.st.disputeExists(rq.user.app, id); err != nil {
		return nil, err
	}
	items, total := listCopy(s.st, func() *series[*transfer] { return s.st.adjustmentsByDispute[id] }, q)
	fp := s.feeProfile(rq.user.app)
	views := make([]transferView, len(items))
	for i, t := range items {
		views[i] = viewTransfer(rq.base, fp, t)
	}
	return newList(rq, "transfers", q, views, total), nil
}
