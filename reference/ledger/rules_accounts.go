package ledger

import (
	"time"

	"github.com/conform-kit/conform/validate"
)

// The rules of merchants, subscription schedules, amounts and enrollments,
// and balance transfers, written against a unit of work (tx).

// UpdateMerchant sets the merchant's flags (Level 2/3 enablement, tags);
// the role check happens before.
func UpdateMerchant(t Tx, id string, in MerchantUpdate) (Merchant, error) {
	m, err := t.Merchants().Get(id)
	if err != nil {
		return Merchant{}, err
	}
	if in.LevelTwoLevelThreeDataEnabled != nil {
		m.LevelTwoLevelThreeDataEnabled = *in.LevelTwoLevelThreeDataEnabled
	}
	if in.Tags != nil {
		m.Tags = in.Tags
	}
	m.UpdatedAt = JSONTime(t.Now())
	t.Merchants().Put(&m)
	return m, nil
}

// CreateSchedule stores a subscription schedule created by user userID.
func CreateSchedule(t Tx, userID string, in ScheduleCreate) (SubscriptionSchedule, error) {
	if err := admit(t, in.size); err != nil {
		return SubscriptionSchedule{}, err
	}
	s := SubscriptionSchedule{
		Meta:                    NewMeta(t.NewID(PrefixSchedule), t.App(), t.Now()),
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

// CreateAmount adds an amount to a schedule; amount, currency and label are required.
func CreateAmount(t Tx, userID, scheduleID string, in AmountBody) (SubscriptionAmount, error) {
	if err := admit(t, in.size); err != nil {
		return SubscriptionAmount{}, err
	}
	if _, err := t.Schedules().Get(scheduleID); err != nil {
		return SubscriptionAmount{}, err
	}
	a := SubscriptionAmount{
		Meta:                 NewMeta(t.NewID(PrefixAmount), t.App(), t.Now()),
		AmountType:           in.AmountType,
		CreatedBy:            userID,
		SubscriptionSchedule: scheduleID,
		Tags:                 orEmpty(in.Tags),
		FeeAmountData:        feeAmountData{Currency: "USD"},
	}
	applyAmountBody(&a, in)
	if a.FeeAmountData.Amount <= 0 {
		return SubscriptionAmount{}, ErrInvalidField("/fee_amount_data/amount", "amount is required and must be positive")
	}
	t.Amounts().Put(&a)
	return a, nil
}

func applyAmountBody(a *SubscriptionAmount, in AmountBody) {
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

// GetAmount fetches an amount through its schedule's path.
func GetAmount(t Tx, scheduleID, id string) (SubscriptionAmount, error) {
	a, err := t.Amounts().Get(id)
	if err != nil || a.SubscriptionSchedule != scheduleID {
		return SubscriptionAmount{}, ErrNotFound(id)
	}
	return a, nil
}

// UpdateAmount creates the successor of an amount (spec 3.2): a new id, the
// old one marked updated; neither may be updated again.
func UpdateAmount(t Tx, userID, scheduleID, id string, in AmountBody) (SubscriptionAmount, error) {
	if err := admit(t, in.size); err != nil {
		return SubscriptionAmount{}, err
	}
	old, err := GetAmount(t, scheduleID, id)
	if err != nil {
		return SubscriptionAmount{}, err
	}
	if err := validate.CheckSubscriptionAmountUpdate(old.ProducedByUpdate, old.Updated); err != nil {
		return SubscriptionAmount{}, err
	}
	now := t.Now()
	n := old
	n.Meta = NewMeta(t.NewID(PrefixAmount), t.App(), now)
	n.CreatedBy = userID
	n.Tags = orEmpty(old.Tags)
	applyAmountBody(&n, in)
	if n.FeeAmountData.Amount <= 0 {
		return SubscriptionAmount{}, ErrInvalidField("/fee_amount_data/amount", "amount must be positive")
	}
	n.ProducedByUpdate, n.Updated = true, false
	old.Updated = true
	old.UpdatedAt = JSONTime(now)
	t.Amounts().Put(&old)
	t.Amounts().Put(&n)
	return n, nil
}

// CreateEnrollment enrolls a merchant of the application in a schedule.
func CreateEnrollment(t Tx, userID, scheduleID string, in EnrollmentBody) (SubscriptionEnrollment, error) {
	started, ended, err := enrollmentTimes(in)
	if err != nil {
		return SubscriptionEnrollment{}, err
	}
	if err := admit(t, in.size); err != nil {
		return SubscriptionEnrollment{}, err
	}
	if _, err := t.Schedules().Get(scheduleID); err != nil {
		return SubscriptionEnrollment{}, err
	}
	if _, err := t.Merchants().Get(in.Merchant); err != nil {
		return SubscriptionEnrollment{}, ErrInvalidField("/merchant", "merchant %s was not found", in.Merchant)
	}
	now := t.Now()
	e := SubscriptionEnrollment{
		Meta:                 NewMeta(t.NewID(PrefixEnrollment), t.App(), now),
		CreatedBy:            userID,
		Merchant:             in.Merchant,
		StartedAt:            JSONTime(now),
		SubscriptionSchedule: scheduleID,
		Tags:                 orEmpty(in.Tags),
	}
	e.apply(in, started, ended)
	t.Enrollments().Put(&e)
	return e, nil
}

// UpdateEnrollment sets the fields an update body names.
func UpdateEnrollment(t Tx, id string, in EnrollmentBody) (SubscriptionEnrollment, error) {
	started, ended, err := enrollmentTimes(in)
	if err != nil {
		return SubscriptionEnrollment{}, err
	}
	e, err := t.Enrollments().Get(id)
	if err != nil {
		return SubscriptionEnrollment{}, err
	}
	e.apply(in, started, ended)
	if in.Tags != nil {
		e.Tags = in.Tags
	}
	e.UpdatedAt = JSONTime(t.Now())
	t.Enrollments().Put(&e)
	return e, nil
}

// enrollmentTimes parses the optional started_at and ended_at of a body.
func enrollmentTimes(in EnrollmentBody) (started, ended *time.Time, err error) {
	if started, err = parseTimestamp("/started_at", in.StartedAt); err != nil {
		return nil, nil, err
	}
	if ended, err = parseTimestamp("/ended_at", in.EndedAt); err != nil {
		return nil, nil, err
	}
	return started, ended, nil
}

// apply sets the fields a create or update body names.
func (e *SubscriptionEnrollment) apply(in EnrollmentBody, started, ended *time.Time) {
	if in.Nickname != nil {
		e.Nickname = *in.Nickname
	}
	if started != nil {
		e.StartedAt = JSONTime(*started)
	}
	if ended != nil {
		e.EndedAt = timePtr(*ended)
	}
}

// CreateBalanceTransfer stores a balance transfer, SUCCEEDED at once.
func CreateBalanceTransfer(t Tx, in BalanceTransferCreate) (BalanceTransfer, error) {
	if err := admit(t, in.size); err != nil {
		return BalanceTransfer{}, err
	}
	b := BalanceTransfer{
		Meta:                NewMeta(t.NewID(PrefixBalance), t.App(), t.Now()),
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
