package reference

// Handlers of merchants, subscriptions and balance transfers.

func (s *Server) getMerchant(rq *request) (any, error) {
	m, err := getCopy(s.st, s.st.merchants, rq.user.app, rq.r.PathValue("id"))
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
	m, err := s.st.updateMerchant(rq.user.app, rq.r.PathValue("id"), in, rq.now)
	if err != nil {
		return nil, err
	}
	v := viewMerchant(rq.base, m)
	s.publish(rq.base, rq.user.app, "merchant", "updated", v)
	return v, nil
}

func (s *Server) createSchedule(rq *request) (any, error) {
	var in scheduleCreate
	if err := rq.decode(&in); err != nil {
		return nil, err
	}
	sched, err := s.st.createSchedule(rq.user, in, rq.now)
	if err != nil {
		return nil, err
	}
	v := viewSchedule(rq.base, sched)
	s.publish(rq.base, rq.user.app, "subscription_schedule", "created", v)
	return v, nil
}

func (s *Server) getSchedule(rq *request) (any, error) {
	sc, err := getCopy(s.st, s.st.schedules, rq.user.app, rq.r.PathValue("id"))
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
	a, err := s.st.createAmount(rq.user, rq.r.PathValue("schedule_id"), in, rq.now)
	if err != nil {
		return nil, err
	}
	v := viewAmount(rq.base, a)
	s.publish(rq.base, rq.user.app, "subscription_amount", "created", v)
	return v, nil
}

func (s *Server) getAmount(rq *request) (any, error) {
	a, err := s.st.getAmount(rq.user.app, rq.r.PathValue("schedule_id"), rq.r.PathValue("id"))
	if err != nil {
		return nil, err
	}
	return viewAmount(rq.base, a), nil
}

func (s *Server) updateAmount(rq *request) (any, error) {
	var in amountBody
	if err := rq.decode(&in); err != nil {
		return nil, err
	}
	a, err := s.st.updateAmount(rq.user, rq.r.PathValue("schedule_id"), rq.r.PathValue("id"), in, rq.now)
	if err != nil {
		return nil, err
	}
	v := viewAmount(rq.base, a)
	s.publish(rq.base, rq.user.app, "subscription_amount", "created", v)
	return v, nil
}

func (s *Server) createEnrollment(rq *request) (any, error) {
	var in enrollmentBody
	if err := rq.decode(&in); err != nil {
		return nil, err
	}
	e, err := s.st.createEnrollment(rq.user, rq.r.PathValue("schedule_id"), in, rq.now)
	if err != nil {
		return nil, err
	}
	v := viewEnrollment(rq.base, e)
	s.publish(rq.base, rq.user.app, "subscription_enrollment", "created", v)
	return v, nil
}

func (s *Server) listEnrollmentsBySchedule(rq *request) (any, error) {
	q, err := parseListQuery(rq.r.URL.Query())
	if err != nil {
		return nil, err
	}
	app, id := rq.user.app, rq.r.PathValue("schedule_id")
	if _, err := getCopy(s.st, s.st.schedules, app, id); err != nil {
		return nil, err
	}
	items, total := listCopy(s.st, func() *series[*subscriptionEnrollment] { return s.st.enrollmentsBySchedule[id] }, q)
	return newList(rq, "subscription_enrollments", q, mapViews(rq.base, items, viewEnrollment), total), nil
}

func (s *Server) listEnrollments(rq *request) (any, error) {
	q, err := parseListQuery(rq.r.URL.Query())
	if err != nil {
		return nil, err
	}
	items, total := listCopy(s.st, func() *series[*subscriptionEnrollment] { return &s.st.appOf(rq.user.app).enrollments }, q)
	return newList(rq, "subscription_enrollments", q, mapViews(rq.base, items, viewEnrollment), total), nil
}

func (s *Server) getEnrollment(rq *request) (any, error) {
	e, err := getCopy(s.st, s.st.enrollments, rq.user.app, rq.r.PathValue("id"))
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
	e, err := s.st.updateEnrollment(rq.user.app, rq.r.PathValue("id"), in, rq.now)
	if err != nil {
		return nil, err
	}
	v := viewEnrollment(rq.base, e)
	s.publish(rq.base, rq.user.app, "subscription_enrollment", "updated", v)
	return v, nil
}

func (s *Server) deleteEnrollment(rq *request) (any, error) {
	return nil, s.st.deleteEnrollment(rq.user.app, rq.r.PathValue("id"))
}

func (s *Server) createBalanceTransfer(rq *request) (any, error) {
	var in balanceTransferCreate
	if err := rq.decode(&in); err != nil {
		return nil, err
	}
	b, err := s.st.createBalanceTransfer(rq.user.app, in, rq.now)
	if err != nil {
		return nil, err
	}
	v := viewBalanceTransfer(rq.base, b)
	s.publish(rq.base, rq.user.app, "balance_transfer", "created", v)
	return v, nil
}

func (s *Server) listBalanceTransfers(rq *request) (any, error) {
	q, err := parseListQuery(rq.r.URL.Query())
	if err != nil {
		return nil, err
	}
	items, total := listCopy(s.st, func() *series[*balanceTransfer] { return &s.st.appOf(rq.user.app).balanceTransfers }, q)
	return newList(rq, "balance_transfers", q, mapViews(rq.base, items, viewBalanceTransfer), total), nil
}

func (s *Server) getBalanceTransfer(rq *request) (any, error) {
	b, err := getCopy(s.st, s.st.balances, rq.user.app, rq.r.PathValue("id"))
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
