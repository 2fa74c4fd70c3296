package reference

import (
	"time"

	"github.com/conform-kit/conform/validate"
)

// updateMerchant sets the merchant's flags; the role check happens before.
func (st *store) updateMerchant(app, id string, in merchantUpdate, now time.Time) (merchant, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	m, err := lookup(st.merchants, app, id)
	if err != nil {
		return merchant{}, err
	}
	if in.LevelTwoLevelThreeDataEnabled != nil {
		m.LevelTwoLevelThreeDataEnabled = *in.LevelTwoLevelThreeDataEnabled
	}
	if in.Tags != nil {
		m.Tags = in.Tags
	}
	m.UpdatedAt = jsonTime(now)
	return *m, nil
}

func (st *store) createSchedule(u user, in scheduleCreate, now time.Time) (subscriptionSchedule, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if err := st.admit(u.app, now, in.size); err != nil {
		return subscriptionSchedule{}, err
	}
	s := &subscriptionSchedule{
		meta:                    newMeta(st.newID(prefixSchedule), u.app, now),
		CreatedBy:               u.id,
		LineItemType:            in.LineItemType,
		Nickname:                in.Nickname,
		SubscriptionType:        in.SubscriptionType,
		PeriodOffset:            in.PeriodOffset,
		FixedTimeIntervalOffset: in.FixedTimeIntervalOffset,
		Tags:                    orEmpty(in.Tags),
	}
	st.schedules[s.ID] = s
	st.enrollmentsBySchedule[s.ID] = &series[*subscriptionEnrollment]{}
	st.keep(u.app, now, in.size, func() {
		delete(st.schedules, s.ID)
		delete(st.enrollmentsBySchedule, s.ID)
	})
	return *s, nil
}

// createAmount adds an amount to a schedule; amount, currency and label are required.
func (st *store) createAmount(u user, scheduleID string, in amountBody, now time.Time) (subscriptionAmount, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if err := st.admit(u.app, now, in.size); err != nil {
		return subscriptionAmount{}, err
	}
	if _, err := lookup(st.schedules, u.app, scheduleID); err != nil {
		return subscriptionAmount{}, err
	}
	a := &subscriptionAmount{
		meta:                 newMeta(st.newID(prefixAmount), u.app, now),
		AmountType:           in.AmountType,
		CreatedBy:            u.id,
		SubscriptionSchedule: scheduleID,
		Tags:                 orEmpty(in.Tags),
		FeeAmountData:        feeAmountData{Currency: "USD"},
	}
	applyAmountBody(a, in)
	if a.FeeAmountData.Amount <= 0 {
		return subscriptionAmount{}, errInvalidField("/fee_amount_data/amount", "amount is required and must be positive")
	}
	st.amounts[a.ID] = a
	st.keep(u.app, now, in.size, func() { delete(st.amounts, a.ID) })
	return *a, nil
}

func applyAmountBody(a *subscriptionAmount, in amountBody) {
	if in.AmountType != "" {
		a.AmountType = in.AmountType
	}
	if in.Nickname != nil {
		a.Nickname = *in.Nickname
	}
	if in.Amount != nil {
		a.FeeAmountData.Amount = *in.Amount
	}
	if f := in.FeeAmountData; f != nil {
		if f.Amount != nil {
			a.FeeAmountData.Amount = *f.Amount
		}
		if f.Currency != nil {
			a.FeeAmountData.Currency = *f.Currency
		}
		if f.Label != nil {
			a.FeeAmountData.Label = *f.Label
		}
	}
	if in.Tags != nil {
		a.Tags = in.Tags
	}
}

// getAmount fetches an amount through its schedule's path.
func (st *store) getAmount(app, scheduleID, id string) (subscriptionAmount, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	a, err := lookup(st.amounts, app, id)
	if err != nil || a.SubscriptionSchedule != scheduleID {
		return subscriptionAmount{}, errNotFound(id)
	}
	return *a, nil
}

// updateAmount creates the successor of an amount (spec 3.2): a new id, the
// old one marked updated; neither may be updated again.
func (st *store) updateAmount(u user, scheduleID, id string, in amountBody, now time.Time) (subscriptionAmount, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if err := st.admit(u.app, now, in.size); err != nil {
		return subscriptionAmount{}, err
	}
	old, err := lookup(st.amounts, u.app, id)
	if err != nil || old.SubscriptionSchedule != scheduleID {
		return subscriptionAmount{}, errNotFound(id)
	}
	if err := validate.CheckSubscriptionAmountUpdate(old.producedByUpdate, old.updated); err != nil {
		return subscriptionAmount{}, err
	}
	n := *old
	n.meta = newMeta(st.newID(prefixAmount), u.app, now)
	n.CreatedBy = u.id
	n.Tags = orEmpty(old.Tags)
	applyAmountBody(&n, in)
	if n.FeeAmountData.Amount <= 0 {
		return subscriptionAmount{}, errInvalidField("/fee_amount_data/amount", "amount must be positive")
	}
	n.producedByUpdate, n.updated = true, false
	old.updated = true
	old.UpdatedAt = jsonTime(now)
	st.amounts[n.ID] = &n
	st.keep(u.app, now, in.size, func() { delete(st.amounts, n.ID) })
	return n, nil
}

func (st *store) createEnrollment(u user, scheduleID string, in enrollmentBody, now time.Time) (subscriptionEnrollment, error) {
	started, ended, err := enrollmentTimes(in)
	if err != nil {
		return subscriptionEnrollment{}, err
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if err := st.admit(u.app, now, in.size); err != nil {
		return subscriptionEnrollment{}, err
	}
	if _, err := lookup(st.schedules, u.app, scheduleID); err != nil {
		return subscriptionEnrollment{}, err
	}
	if _, err := lookup(st.merchants, u.app, in.Merchant); err != nil {
		return subscriptionEnrollment{}, errInvalidField("/merchant", "merchant %s was not found", in.Merchant)
	}
	e := &subscriptionEnrollment{
		meta:                 newMeta(st.newID(prefixEnrollment), u.app, now),
		CreatedBy:            u.id,
		Merchant:             in.Merchant,
		StartedAt:            jsonTime(now),
		SubscriptionSchedule: scheduleID,
		Tags:                 orEmpty(in.Tags),
	}
	e.apply(in, started, ended)
	st.enrollments[e.ID] = e
	st.apps[u.app].enrollments.add(e)
	st.enrollmentsBySchedule[scheduleID].add(e)
	st.keep(u.app, now, in.size, func() { st.dropEnrollment(e) })
	return *e, nil
}

func (st *store) updateEnrollment(app, id string, in enrollmentBody, now time.Time) (subscriptionEnrollment, error) {
	started, ended, err := enrollmentTimes(in)
	if err != nil {
		return subscriptionEnrollment{}, err
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	e, err := lookup(st.enrollments, app, id)
	if err != nil {
		return subscriptionEnrollment{}, err
	}
	e.apply(in, started, ended)
	if in.Tags != nil {
		e.Tags = in.Tags
	}
	e.UpdatedAt = jsonTime(now)
	st.apps[e.app].enrollments.touch(e)
	st.enrollmentsBySchedule[e.SubscriptionSchedule].touch(e)
	return *e, nil
}

// enrollmentTimes parses the optional started_at and ended_at of a body.
func enrollmentTimes(in enrollmentBody) (started, ended *time.Time, err error) {
	if started, err = parseTimestamp("/started_at", in.StartedAt); err != nil {
		return nil, nil, err
	}
	if ended, err = parseTimestamp("/ended_at", in.EndedAt); err != nil {
		return nil, nil, err
	}
	return started, ended, nil
}

// apply sets the fields a create or update body names.
func (e *subscriptionEnrollment) apply(in enrollmentBody, started, ended *time.Time) {
	if in.Nickname != nil {
		e.Nickname = *in.Nickname
	}
	if started != nil {
		e.StartedAt = jsonTime(*started)
	}
	if ended != nil {
		e.EndedAt = timePtr(*ended)
	}
}

func (st *store) deleteEnrollment(app, id string) error {
	st.mu.Lock()
	defer st.mu.Unlock()
	e, err := lookup(st.enrollments, app, id)
	if err != nil {
		return err
	}
	st.dropEnrollment(e)
	return nil
}

// dropEnrollment removes an enrollment from the store and its lists; a
// second call does nothing. Callers hold the lock.
func (st *store) dropEnrollment(e *subscriptionEnrollment) {
	if st.enrollments[e.ID] != e {
		return
	}
	delete(st.enrollments, e.ID)
	st.apps[e.app].enrollments.remove(e)
	st.enrollmentsBySchedule[e.SubscriptionSchedule].remove(e)
}

func (st *store) createBalanceTransfer(app string, in balanceTransferCreate, now time.Time) (balanceTransfer, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if err := st.admit(app, now, in.size); err != nil {
		return balanceTransfer{}, err
	}
	b := &balanceTransfer{
		meta:                newMeta(st.newID(prefixBalance), app, now),
		Amount:              in.Amount,
		Currency:            in.Currency,
		Description:         in.Description,
		Source:              in.Source,
		Destination:         in.Destination,
		ExternalReferenceID: in.ExternalReferenceID,
		ProcessorType:       in.ProcessorType,
		State:               "SUCCEEDED",
		Tags:                orEmpty(in.Tags),
	}
	b.ReferenceID = st.newID("")
	if b.ExternalReferenceID == "" {
		b.ExternalReferenceID = st.newID("")
	}
	if b.Source == "" {
		b.Source = "OPERATING_ACCOUNT"
	}
	if b.Destination == "" {
		b.Destination = "FOR_BENEFIT_OF_ACCOUNT"
	}
	if b.ProcessorType == "" {
		b.ProcessorType = "LITLE_V1"
	}
	st.balances[b.ID] = b
	st.apps[app].balanceTransfers.add(b)
	st.keep(app, now, in.size, func() {
		delete(st.balances, b.ID)
		st.apps[app].balanceTransfers.remove(b)
	})
	return *b, nil
}
