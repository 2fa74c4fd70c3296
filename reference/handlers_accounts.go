package reference

// Handlers of merchants, subscriptions and balance transfers.

func (s *Server) getMerchant(rq *request) (any, error) {
	m, err := getOne(s, rq, tx.Merchants, rq.r.PathValue("id"))
	if err != nil {
		return nil, err
	}
	return viewMerchant(rq.base, m), nil
}

func (s *Server) updateMerchant(rq *request) (any, error) {
	var in merchantUpdate
	if err := rq.decode(&in); err != nil {
		return nil, err
	}
	return s.change(rq, "merchant", "updated", func(t tx) (any, error) {
		m, err := updateMerchant(t, rq.r.PathValue("id"), in)
		if err != nil {
			return nil, err
		}
		return viewMerchant(rq.base, m), nil
	})
}

func (s *Server) createSchedule(rq *request) (any, error) {
	var in scheduleCreate
	if err := rq.decode(&in); err != nil {
		return nil, err
	}
	return s.change(rq, "subscription_schedule", "created", func(t tx) (any, error) {
		sched, err := createSchedule(t, rq.user.id, in)
		if err != nil {
			return nil, err
		}
		return viewSchedule(rq.base, sched), nil
	})
}

func (s *Server) getSchedule(rq *request) (any, error) {
	sc, err := getOne(s, rq, tx.Schedules, rq.r.PathValue("id"))
	if err != nil {
		return nil, err
	}
	return viewSchedule(rq.base, sc), nil
}

func (s *Server) createAmount(rq *request) (any, error) {
	var in amountBody
	if err := rq.decode(&in); err != nil {
		return nil, err
	}
	return s.change(rq, "subscription_amount", "created", func(t tx) (any, error) {
		a, err := createAmount(t, rq.user.id, rq.r.PathValue("schedule_id"), in)
		if err != nil {
			return nil, err
		}
		return viewAmount(rq.base, a), nil
	})
}

func (s *Server) getAmount(rq *request) (any, error) {
	return s.read(rq, func(t tx) (any, error) {
		a, err := getAmount(t, rq.r.PathValue("schedule_id"), rq.r.PathValue("id"))
		if err != nil {
			return nil, err
		}
		return viewAmount(rq.base, a), nil
	})
}

func (s *Server) updateAmount(rq *request) (any, error) {
	var in amountBody
	if err := rq.decode(&in); err != nil {
		return nil, err
	}
	return s.change(rq, "subscription_amount", "created", func(t tx) (any, error) {
		a, err := updateAmount(t, rq.user.id, rq.r.PathValue("schedule_id"), rq.r.PathValue("id"), in)
		if err != nil {
			return nil, err
		}
		return viewAmount(rq.base, a), nil
	})
}

func (s *Server) createEnrollment(rq *request) (any, error) {
	var in enrollmentBody
	if err := rq.decode(&in); err != nil {
		return nil, err
	}
	return s.change(rq, "subscription_enrollment", "created", func(t tx) (any, error) {
		e, err := createEnrollment(t, rq.user.id, rq.r.PathValue("schedule_id"), in)
		if err != nil {
			return nil, err
		}
		return viewEnrollment(rq.base, e), nil
	})
}

func (s *Server) listEnrollmentsBySchedule(rq *request) (any, error) {
	q, err := parseListQuery(rq.r.URL.Query())
	if err != nil {
		return nil, err
	}
	id := rq.r.PathValue("schedule_id")
	items, total, err := listPage(s, rq, tx.Enrollments, id, func(t tx) error {
		_, err := t.Schedules().Get(id)
		return err
	}, q)
	if err != nil {
		return nil, err
	}
	return newList(rq, "subscription_enrollments", q, mapViews(rq.base, items, viewEnrollment), total), nil
}

func (s *Server) listEnrollments(rq *request) (any, error) {
	q, err := parseListQuery(rq.r.URL.Query())
	if err != nil {
		return nil, err
	}
	items, total, err := listPage(s, rq, tx.Enrollments, "", nil, q)
	if err != nil {
		return nil, err
	}
	return newList(rq, "subscription_enrollments", q, mapViews(rq.base, items, viewEnrollment), total), nil
}

func (s *Server) getEnrollment(rq *request) (any, error) {
	e, err := getOne(s, rq, tx.Enrollments, rq.r.PathValue("id"))
	if err != nil {
		return nil, err
	}
	return viewEnrollment(rq.base, e), nil
}

func (s *Server) updateEnrollment(rq *request) (any, error) {
	var in enrollmentBody
	if err := rq.decode(&in); err != nil {
		return nil, err
	}
	return s.change(rq, "subscription_enrollment", "updated", func(t tx) (any, error) {
		e, err := updateEnrollment(t, rq.r.PathValue("id"), in)
		if err != nil {
			return nil, err
		}
		return viewEnrollment(rq.base, e), nil
	})
}

func (s *Server) deleteEnrollment(rq *request) (any, error) {
	return s.change(rq, "", "", func(t tx) (any, error) {
		return nil, t.Enrollments().Delete(rq.r.PathValue("id"))
	})
}

func (s *Server) createBalanceTransfer(rq *request) (any, error) {
	var in balanceTransferCreate
	if err := rq.decode(&in); err != nil {
		return nil, err
	}
	return s.change(rq, "balance_transfer", "created", func(t tx) (any, error) {
		b, err := createBalanceTransfer(t, in)
		if err != nil {
			return nil, err
		}
		return viewBalanceTransfer(rq.base, b), nil
	})
}

func (s *Server) listBalanceTransfers(rq *request) (any, error) {
	q, err := parseListQuery(rq.r.URL.Query())
	if err != nil {
		return nil, err
	}
	items, total, err := listPage(s, rq, tx.BalanceTransfers, "", nil, q)
	if err != nil {
		return nil, err
	}
	return newList(rq, "balance_transfers", q, mapViews(rq.base, items, viewBalanceTransfer), total), nil
}

func (s *Server) getBalanceTransfer(rq *request) (any, error) {
	b, err := getOne(s, rq, tx.BalanceTransfers, rq.r.PathValue("id"))
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
