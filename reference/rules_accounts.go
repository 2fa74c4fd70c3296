package reference

import (
	"time"

	"github.com/conform-kit/conform/validate"
)

// The rules of merchants, subscription schedules, amounts and enrollments,
// and balance transfers, written against a unit of work (tx).

// updateMerchant sets the merchant's flags (Level 2/3 enablement, tags);
// the role check happens before.
func updateMerchant(t tx, id string, in merchantUpdate) (merchant, error) {
	m, err := t.Merchants().Get(id)
	if err != nil {
		return merchant{}, err
	}
	if in.LevelTwoLevelThreeDataEnabled != nil {
		m.LevelTwoLevelThreeDataEnabled = *in.LevelTwoLevelThreeDataEnabled
	}
	if in.Tags != nil {
		m.Tags = in.Tags
	}
	m.UpdatedAt = jsonTime(t.Now())
	t.Merchants().Put(&m)
	return m, nil
}

// createSchedule stores a subscription schedule created by user userID.
func createSchedule(t tx, userID string, in scheduleCreate) (subscriptionSchedule, error) {
	if err := admit(t, in.size); err != nil {
		return subscriptionSchedule{}, err
	}
	s := subscriptionSchedule{
		meta:                    newMeta(t.NewID(prefixSchedule), t.App(), t.Now()),
		CreatedBy:               userID,
		LineItemType:            in.LineItemType,
		Nickname:                in.Nickname,
		SubscriptionType:        in.SubscriptionType,
		PeriodOffset:            in.PeriodOffset,
		FixedTimeIntervalOffset: in.FixedTimeIntervalOffset,
		Tags:                    orEmpty(in.Tags),
	}
	t.Schedules().Put(&s)
	return s, nil
}

// createAmount adds an amount to a schedule; amount, currency and label are required.
func createAmount(t tx, userID, scheduleID string, in amountBody) (subscriptionAmount, error) {
	if err := admit(t, in.size); err != nil {
		return subscriptionAmount{}, err
	}
	if _, err := t.Schedules().Get(scheduleID); err != nil {
		return subscriptionAmount{}, err
	}
	a := subscriptionAmount{
		meta:                 newMeta(t.NewID(prefixAmount), t.App(), t.Now()),
		AmountType:           in.AmountType,
		CreatedBy:            userID,
		SubscriptionSchedule: scheduleID,
		Tags:                 orEmpty(in.Tags),
		FeeAmountData:        feeAmountData{Currency: "USD"},
	}
	applyAmountBody(&a, in)
	if a.FeeAmountData.Amount <= 0 {
		return subscriptionAmount{}, errInvalidField("/fee_amount_data/amount", "amount is required and must be positive")
	}
	t.Amounts().Put(&a)
	return a, nil
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
func getAmount(t tx, scheduleID, id string) (subscriptionAmount, error) {
	a, err := t.Amounts().Get(id)
	if err != nil || a.SubscriptionSchedule != scheduleID {
		return subscriptionAmount{}, errNotFound(id)
	}
	return a, nil
}

// updateAmount creates the successor of an amount (spec 3.2): a new id, the
// old one marked updated; neither may be updated again.
func updateAmount(t tx, userID, scheduleID, id string, in amountBody) (subscriptionAmount, error) {
	if err := admit(t, in.size); err != nil {
		return subscriptionAmount{}, err
	}
	old, err := getAmount(t, scheduleID, id)
	if err != nil {
		return subscriptionAmount{}, err
	}
	if err := validate.CheckSubscriptionAmountUpdate(old.producedByUpdate, old.updated); err != nil {
		return subscriptionAmount{}, err
	}
	now := t.Now()
	n := old
	n.meta = newMeta(t.NewID(prefixAmount), t.App(), now)
	n.CreatedBy = userID
	n.Tags = orEmpty(old.Tags)
	applyAmountBody(&n, in)
	if n.FeeAmountData.Amount <= 0 {
		return subscriptionAmount{}, errInvalidField("/fee_amount_data/amount", "amount must be positive")
	}
	n.producedByUpdate, n.updated = true, false
	old.updated = true
	old.UpdatedAt = jsonTime(now)
	t.Amounts().Put(&old)
	t.Amounts().Put(&n)
	return n, nil
}

// createEnrollment enrolls a merchant of the application in a schedule.
func createEnrollment(t tx, userID, scheduleID string, in enrollmentBody) (subscriptionEnrollment, error) {
	started, ended, err := enrollmentTimes(in)
	if err != nil {
		return subscriptionEnrollment{}, err
	}
	if err := admit(t, in.size); err != nil {
		return subscriptionEnrollment{}, err
	}
	if _, err := t.Schedules().Get(scheduleID); err != nil {
		return subscriptionEnrollment{}, err
	}
	if _, err := t.Merchants().Get(in.Merchant); err != nil {
		return subscriptionEnrollment{}, errInvalidField("/merchant", "merchant %s was not found", in.Merchant)
	}
	now := t.Now()
	e := subscriptionEnrollment{
		meta:                 newMeta(t.NewID(prefixEnrollment), t.App(), now),
		CreatedBy:            userID,
		Merchant:             in.Merchant,
		StartedAt:            jsonTime(now),
		SubscriptionSchedule: scheduleID,
		Tags:                 orEmpty(in.Tags),
	}
	e.apply(in, started, ended)
	t.Enrollments().Put(&e)
	return e, nil
}

// updateEnrollment sets the fields an update body names.
func updateEnrollment(t tx, id string, in enrollmentBody) (subscriptionEnrollment, error) {
	started, ended, err := enrollmentTimes(in)
	if err != nil {
		return subscriptionEnrollment{}, err
	}
	e, err := t.Enrollments().Get(id)
	if err != nil {
		return subscriptionEnrollment{}, err
	}
	e.apply(in, started, ended)
	if in.Tags != nil {
		e.Tags = in.Tags
	}
	e.UpdatedAt = jsonTime(t.Now())
	t.Enrollments().Put(&e)
	return e, nil
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

// createBalanceTransfer stores a balance transfer, SUCCEEDED at once.
func createBalanceTransfer(t tx, in balanceTransferCreate) (balanceTransfer, error) {
	if err := admit(t, in.size); err != nil {
		return balanceTransfer{}, err
	}
	b := balanceTransfer{
		meta:                newMeta(t.NewID(prefixBalance), t.App(), t.Now()),
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
	b.ReferenceID = t.NewID("")
	if b.ExternalReferenceID == "" {
		b.ExternalReferenceID = t.NewID("")
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
	t.BalanceTransfers().Put(&b)
	return b, nil
}
