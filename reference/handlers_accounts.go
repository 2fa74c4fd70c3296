package reference

import "github.com/conform-kit/conform/reference/ledger"

// Handlers of merchants, subscriptions and balance transfers.

func (s *Server) getMerchant(rq *request) (any, error) {
	m, err := getOne(s, rq, ledger.Tx.Merchants, rq.r.PathValue("id"))
	if err != nil {
		return nil, err
	}
	return viewMerchant(rq.base, m), nil
}

func (s *Server) updateMerchant(rq *request) (any, error) {
	var in ledger.MerchantUpdate
	if err := rq.decode(&in); err != nil {
		return nil, err
	}
	return s.change(rq, "merchant", "updated", func(t ledger.Tx) (any, error) {
		m, err := ledger.UpdateMerchant(t, rq.r.PathValue("id"), in)
		if err != nil {
			return nil, err
		}
		return viewMerchant(rq.base, m), nil
	})
}

func (s *Server) createSchedule(rq *request) (any, error) {
	var in ledger.ScheduleCreate
	if err := rq.decode(&in); err != nil {
		return nil, err
	}
	return s.change(rq, "subscription_schedule", "created", func(t ledger.Tx) (any, error) {
		sched, err := ledger.CreateSchedule(t, rq.user.ID, in)
		if err != nil {
			return nil, err
		}
		return viewSchedule(rq.base, sched), nil
	})
}

func (s *Server) getSchedule(rq *request) (any, error) {
	sc, err := getOne(s, rq, ledger.Tx.Schedules, rq.r.PathValue("id"))
	if err != nil {
		return nil, err
	}
	return viewSchedule(rq.base, sc), nil
}

func (s *Server) createAmount(rq *request) (any, error) {
	var in ledger.AmountBody
	if err := rq.decode(&in); err != nil {
		return nil, err
	}
	return s.change(rq, "subscription_amount", "created", func(t ledger.Tx) (any, error) {
		a, err := ledger.CreateAmount(t, rq.user.ID, rq.r.PathValue("schedule_id"), in)
		if err != nil {
			return nil, err
		}
		return viewAmount(rq.base, a), nil
	})
}

func (s *Server) getAmount(rq *request) (any, error) {
	return s.read(rq, func(t ledger.Tx) (any, error) {
		a, err := ledger.GetAmount(t, rq.r.PathValue("schedule_id"), rq.r.PathValue("id"))
		if err != nil {
			return nil, err
		}
		return viewAmount(rq.base, a), nil
	})
}

func (s *Server) updateAmount(rq *request) (any, error) {
	var in ledger.AmountBody
	if err := rq.decode(&in); err != nil {
		return nil, err
	}
	return s.change(rq, "subscription_amount", "created", func(t ledger.Tx) (any, error) {
		a, err := ledger.UpdateAmount(t, rq.user.ID, rq.r.PathValue("schedule_id"), rq.r.PathValue("id"), in)
		if err != nil {
			return nil, err
		}
		return viewAmount(rq.base, a), nil
	})
}

func (s *Server) createEnrollment(rq *request) (any, error) {
	var in ledger.EnrollmentBody
	if err := rq.decode(&in); err != nil {
		return nil, err
	}
	return s.change(rq, "subscription_enrollment", "created", func(t ledger.Tx) (any, error) {
		e, err := ledger.CreateEnrollment(t, rq.user.ID, rq.r.PathValue("schedule_id"), in)
		if err != nil {
			return nil, err
		}
		return viewEnrollment(rq.base, e), nil
	})
}

func (s *Server) listEnrollmentsBySchedule(rq *request) (any, error) {
	q, err := ledger.ParseListQuery(rq.r.URL.Query())
	if err != nil {
		return nil, err
	}
	id := rq.r.PathValue("schedule_id")
	items, total, err := listPage(s, rq, ledger.Tx.Enrollments, id, func(t ledger.Tx) error {
		_, err := t.Schedules().Get(id)
		return err
	}, q)
	if err != nil {
		return nil, err
	}
	return newList(rq, "subscription_enrollments", q, mapViews(rq.base, items, viewEnrollment), total), nil
}

func (s *Server) listEnrollments(rq *request) (any, error) {
	q, err := ledger.ParseListQuery(rq.r.URL.Query())
	if err != nil {
		return nil, err
	}
	items, total, err := listPage(s, rq, ledger.Tx.Enrollments, "", nil, q)
	if err != nil {
		return nil, err
	}
	return newList(rq, "subscription_enrollments", q, mapViews(rq.base, items, viewEnrollment), total), nil
}

func (s *Server) getEnrollment(rq *request) (any, error) {
	e, err := getOne(s, rq, ledger.Tx.Enrollments, rq.r.PathValue("id"))
	if err != nil {
		return nil, err
	}
	return viewEnrollment(rq.base, e), nil
}

func (s *Server) updateEnrollment(rq *request) (any, error) {
	var in ledger.EnrollmentBody
	if err := rq.decode(&in); err != nil {
		return nil, err
	}
	return s.change(rq, "subscription_enrollment", "updated", func(t ledger.Tx) (any, error) {
		e, err := ledger.UpdateEnrollment(t, rq.r.PathValue("id"), in)
		if err != nil {
			return nil, err
		}
		return viewEnrollment(rq.base, e), nil
	})
}

func (s *Server) deleteEnrollment(rq *request) (any, error) {
	return s.change(rq, "", "", func(t ledger.Tx) (any, error) {
		return nil, t.Enrollments().Delete(rq.r.PathValue("id"))
	})
}

func (s *Server) createBalanceTransfer(rq *request) (any, error) {
	var in ledger.BalanceTransferCreate
	if err := rq.decode(&in); err != nil {
		return nil, err
	}
	return s.change(rq, "balance_transfer", "created", func(t ledger.Tx) (any, error) {
		b, err := ledger.CreateBalanceTransfer(t, in)
		if err != nil {
			return nil, err
		}
		return viewBalanceTransfer(rq.base, b), nil
	})
}

func (s *Server) listBalanceTransfers(rq *request) (any, error) {
	q, err := ledger.ParseListQuery(rq.r.URL.Query())
	if err != nil {
		return nil, err
	}
	items, total, err := listPage(s, rq, ledger.Tx.BalanceTransfers, "", nil, q)
	if err != nil {
		return nil, err
	}
	return newList(rq, "balance_transfers", q, mapViews(rq.base, items, viewBalanceTransfer), total), nil
}

func (s *Server) getBalanceTransfer(rq *request) (any, error) {
	b, err := getOne(s, rq, ledger.Tx.BalanceTransfers, rq.r.PathValue("id"))
	if err != nil {
		return nil, err
	}
	return viewBalanceTransfer(rq.base, b), nil
}

// mapViews renders copied records as views.
func mapViews[T, V any](base string, items []T, view func(string, T) V) []V {
	out := make([]V, len(items))
	for i, it := range items {
		out[i] = view(base, it)
	}
	return out
}
