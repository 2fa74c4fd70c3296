package reference

// Handlers of disputes, their evidence and adjustment transfers.

func (s *Server) listDisputes(rq *request) (any, error) {
	q, err := parseListQuery(rq.r.URL.Query())
	if err != nil {
		return nil, err
	}
	items, total, err := listPage(s, rq, tx.Disputes, "", nil, q)
	if err != nil {
		return nil, err
	}
	return newList(rq, "disputes", q, mapViews(rq.base, items, viewDispute), total), nil
}

func (s *Server) getDispute(rq *request) (any, error) {
	d, err := getOne(s, rq, tx.Disputes, rq.r.PathValue("id"))
	if err != nil {
		return nil, err
	}
	return viewDispute(rq.base, d), nil
}

func (s *Server) createEvidence(rq *request) (any, error) {
	id := rq.r.PathValue("id")
	if _, err := getOne(s, rq, tx.Disputes, id); err != nil {
		return nil, err // another application's dispute: refused before the body is read
	}
	up, err := readMultipartFile(rq.r, evidenceTypes)
	if err != nil {
		return nil, err
	}
	return s.change(rq, "evidence", "created", func(t tx) (any, error) {
		e, err := createEvidence(t, id, up)
		if err != nil {
			return nil, err
		}
		return viewEvidence(rq.base, e), nil
	})
}

func (s *Server) listEvidence(rq *request) (any, error) {
	q, err := parseListQuery(rq.r.URL.Query())
	if err != nil {
		return nil, err
	}
	id := rq.r.PathValue("id")
	items, total, err := listPage(s, rq, tx.Evidence, id, func(t tx) error {
		_, err := t.Disputes().Get(id)
		return err
	}, q)
	if err != nil {
		return nil, err
	}
	return newList(rq, "evidences", q, mapViews(rq.base, items, viewEvidence), total), nil
}

func (s *Server) getEvidence(rq *request) (any, error) {
	return s.read(rq, func(t tx) (any, error) {
		e, err := getEvidence(t, rq.r.PathValue("dispute_id"), rq.r.PathValue("id"))
		if err != nil {
			return nil, err
		}
		return viewEvidence(rq.base, e), nil
	})
}

func (s *Server) listAdjustmentTransfers(rq *request) (any, error) {
	q, err := parseListQuery(rq.r.URL.Query())
	if err != nil {
		return nil, err
	}
	return s.read(rq, func(t tx) (any, error) {
		id := rq.r.PathValue("dispute_id")
		if _, err := t.Disputes().Get(id); err != nil {
			return nil, err
		}
		items, total := t.Transfers().Page(id, q)
		info, _ := t.AppInfo()
		views := make([]transferView, len(items))
		for i, tr := range items {
			views[i] = viewTransfer(rq.base, info.feeProfile, tr)
		}
		return newList(rq, "transfers", q, views, total), nil
	})
}
