package reference

import "github.com/conform-kit/conform/reference/ledger"

// Handlers of disputes, their evidence and adjustment transfers.

func (s *Server) listDisputes(rq *request) (any, error) {
	q, err := ledger.ParseListQuery(rq.r.URL.Query())
	if err != nil {
		return nil, err
	}
	items, total, err := listPage(s, rq, ledger.Tx.Disputes, "", nil, q)
	if err != nil {
		return nil, err
	}
	return newList(rq, "disputes", q, mapViews(rq.base, items, viewDispute), total), nil
}

func (s *Server) getDispute(rq *request) (any, error) {
	d, err := getOne(s, rq, ledger.Tx.Disputes, rq.r.PathValue("id"))
	if err != nil {
		return nil, err
	}
	return viewDispute(rq.base, d), nil
}

func (s *Server) createEvidence(rq *request) (any, error) {
	id := rq.r.PathValue("id")
	if _, err := getOne(s, rq, ledger.Tx.Disputes, id); err != nil {
		return nil, err // another application's dispute: refused before the body is read
	}
	up, err := readMultipartFile(rq.r, evidenceTypes)
	if err != nil {
		return nil, err
	}
	return s.change(rq, "evidence", "created", func(t ledger.Tx) (any, error) {
		e, err := ledger.CreateEvidence(t, id, up)
		if err != nil {
			return nil, err
		}
		return viewEvidence(rq.base, e), nil
	})
}

func (s *Server) listEvidence(rq *request) (any, error) {
	q, err := ledger.ParseListQuery(rq.r.URL.Query())
	if err != nil {
		return nil, err
	}
	id := rq.r.PathValue("id")
	items, total, err := listPage(s, rq, ledger.Tx.Evidence, id, func(t ledger.Tx) error {
		_, err := t.Disputes().Get(id)
		return err
	}, q)
	if err != nil {
		return nil, err
	}
	return newList(rq, "evidences", q, mapViews(rq.base, items, viewEvidence), total), nil
}

func (s *Server) getEvidence(rq *request) (any, error) {
	return s.read(rq, func(t ledger.Tx) (any, error) {
		e, err := ledger.GetEvidence(t, rq.r.PathValue("dispute_id"), rq.r.PathValue("id"))
		if err != nil {
			return nil, err
		}
		return viewEvidence(rq.base, e), nil
	})
}

func (s *Server) listAdjustmentTransfers(rq *request) (any, error) {
	q, err := ledger.ParseListQuery(rq.r.URL.Query())
	if err != nil {
		return nil, err
	}
	return s.read(rq, func(t ledger.Tx) (any, error) {
		id := rq.r.PathValue("dispute_id")
		if _, err := t.Disputes().Get(id); err != nil {
			return nil, err
		}
		items, total := t.Transfers().Page(id, q)
		info, _ := t.AppInfo()
		views := make([]transferView, len(items))
		for i, tr := range items {
			views[i] = viewTransfer(rq.base, info.FeeProfile, tr)
		}
		return newList(rq, "transfers", q, views, total), nil
	})
}
