package ledger

import (
	"crypto/hmac"
	"crypto/sha256"
	"fmt"
	"time"

	"github.com/conform-kit/conform/validate"
)

// Sandbox triggers (features/README.md, "Sandbox triggers"): these amounts decline or open a dispute.
const (
	AmountDeclined = 102
	AmountDisputed = 888888
)

// authorizationLifetime is how long an authorization can be captured.
const authorizationLifetime = 7 * 24 * time.Hour

// The rules of payment instruments, authorizations, captures, sales and the
// disputes the sandbox trigger opens, written against a unit of work (tx).

// CreateCard stores a payment card. number and securityCode are checked and
// then dropped: only bin, last four and a keyed fingerprint are kept.
func CreateCard(t Tx, in CardCreate) (PaymentInstrument, error) {
	now := t.Now()
	if err := admit(t, in.size); err != nil {
		return PaymentInstrument{}, err
	}
	if _, err := t.Identities().Get(in.Identity); err != nil {
		return PaymentInstrument{}, ErrInvalidField("/identity", "identity %s was not found", in.Identity)
	}
	if err := checkCardNumber(in.Number); err != nil {
		return PaymentInstrument{}, err
	}
	if in.ExpirationYear*12+in.ExpirationMonth < now.Year()*12+int(now.Month()) {
		return PaymentInstrument{}, ErrInvalidField("/expiration_year", "the card has expired")
	}
	info, _ := t.AppInfo()
	mac := hmac.New(sha256.New, info.FingerprintKey)
	mac.Write([]byte(in.Number))
	avs := "UNKNOWN"
	if in.Address.Line1 != nil {
		avs = "POSTAL_CODE_AND_STREET_MATCH"
	}
	app := t.App()
	p := PaymentInstrument{
		Meta:                     NewMeta(t.NewID(PrefixCard), app, now),
		Application:              app,
		Fingerprint:              "FP" + encodeBase62(mac.Sum(nil)[:idLength]),
		Tags:                     orEmpty(in.Tags),
		ExpirationMonth:          in.ExpirationMonth,
		ExpirationYear:           in.ExpirationYear,
		Bin:                      in.Number[:6],
		LastFour:                 in.Number[len(in.Number)-4:],
		Brand:                    cardBrand(in.Number),
		CardType:                 "UNKNOWN",
		Name:                     in.Name,
		Address:                  in.Address,
		AddressVerification:      avs,
		SecurityCodeVerification: "MATCHED",
		InstrumentType:           "PAYMENT_CARD",
		Type:                     "PAYMENT_CARD",
		Currency:                 "USD",
		Identity:                 in.Identity,
	}
	t.Cards().Put(&p)
	return p, nil
}

// resolveMerchant finds the merchant an authorization names, by Merchant id
// or by the merchant's Identity id; exactly one must be given.
func resolveMerchant(t Tx, merchantID, identityID string) (Merchant, error) {
	switch {
	case merchantID != "" && identityID != "":
		return Merchant{}, ErrInvalidField("/merchant", "give either merchant or merchant_identity, not both")
	case merchantID != "":
		m, err := t.Merchants().Get(merchantID)
		if err != nil {
			return Merchant{}, ErrInvalidField("/merchant", "merchant %s was not found", merchantID)
		}
		return m, nil
	case identityID != "":
		m, ok := t.MerchantByIdentity(identityID)
		if !ok {
			return Merchant{}, ErrInvalidField("/merchant_identity", "no merchant has identity %s", identityID)
		}
		return m, nil
	}
	return Merchant{}, ErrInvalidField("/merchant_identity", "merchant_identity (or merchant) is required")
}

// sourceCard is the payment instrument a request names as its source.
func sourceCard(t Tx, id string) (PaymentInstrument, error) {
	p, err := t.Cards().Get(id)
	if err != nil {
		return PaymentInstrument{}, ErrInvalidField("/source", "payment instrument %s was not found", id)
	}
	return p, nil
}

// Authorize stores an authorization; amount 102 (the decline trigger)
// stores it FAILED, and declined says so: the unit commits the failed
// authorization, and the request answers the decline.
func Authorize(t Tx, in AuthorizationCreate) (a Authorization, declined bool, err error) {
	if err := admit(t, in.size); err != nil {
		return Authorization{}, false, err
	}
	src, err := sourceCard(t, in.Source)
	if err != nil {
		return Authorization{}, false, err
	}
	m, err := resolveMerchant(t, in.Merchant, in.MerchantIdentity)
	if err != nil {
		return Authorization{}, false, err
	}
	data, err := purchaseData(&m, in.AdditionalPurchaseData)
	if err != nil {
		return Authorization{}, false, err
	}
	now, app := t.Now(), t.App()
	a = Authorization{
		Meta:                   NewMeta(t.NewID(PrefixAuthz), app, now),
		Application:            app,
		Amount:                 in.Amount,
		Tags:                   orEmpty(in.Tags),
		State:                  "SUCCEEDED",
		Currency:               in.Currency,
		Messages:               []string{},
		TraceID:                newUUID(),
		Source:                 src.ID,
		MerchantIdentity:       m.Identity,
		VoidState:              "UNATTEMPTED",
		ExpiresAt:              JSONTime(now.Add(authorizationLifetime)),
		IdempotencyID:          in.IdempotencyID,
		AdditionalPurchaseData: data,
		Merchant:               m.ID,
	}
	if in.Amount == AmountDeclined {
		a.State = "FAILED"
		declined = true
	}
	t.Authorizations().Put(&a)
	return a, declined, nil
}

// Capture captures an authorization once, creating its DEBIT transfer: the
// authorization must be SUCCEEDED, not void, not expired and not captured,
// and the capture amount and fee obey validate.CheckCapture.
func Capture(t Tx, id string, in CaptureRequest) (Authorization, Transfer, error) {
	if err := admit(t, in.size); err != nil {
		return Authorization{}, Transfer{}, err
	}
	now := t.Now()
	a, err := t.Authorizations().Get(id)
	if err != nil {
		return Authorization{}, Transfer{}, err
	}
	switch {
	case a.Transfer != nil:
		return Authorization{}, Transfer{}, ErrUnprocessable("authorization %s is already captured", id)
	case a.State != "SUCCEEDED":
		return Authorization{}, Transfer{}, ErrUnprocessable("authorization %s is %s and cannot be captured", id, a.State)
	case a.IsVoid:
		return Authorization{}, Transfer{}, ErrUnprocessable("authorization %s is void", id)
	case now.After(time.Time(a.ExpiresAt)):
		return Authorization{}, Transfer{}, ErrUnprocessable("authorization %s expired at %s", id, time.Time(a.ExpiresAt).Format(TimeLayout))
	}
	if err := validate.CheckCapture(a.Amount, in.CaptureAmount, in.Fee); err != nil {
		return Authorization{}, Transfer{}, err
	}
	data := a.AdditionalPurchaseData
	if in.AdditionalPurchaseData != nil {
		merged, err := mergePurchaseData(a.AdditionalPurchaseData, in.AdditionalPurchaseData)
		if err != nil {
			return Authorization{}, Transfer{}, err
		}
		m, err := t.Merchants().Get(a.Merchant)
		if err != nil {
			return Authorization{}, Transfer{}, err
		}
		if data, err = purchaseData(&m, merged); err != nil {
			return Authorization{}, Transfer{}, err
		}
	}
	src := a.Source
	app := t.App()
	tr := Transfer{
		Meta:                   NewMeta(t.NewID(PrefixTransfer), app, now),
		Amount:                 in.CaptureAmount,
		Tags:                   Tags{},
		State:                  "PENDING",
		TraceID:                a.TraceID,
		Currency:               a.Currency,
		Application:            app,
		Source:                 &src,
		ExternallyFunded:       "UNKNOWN",
		Fee:                    deref(in.Fee),
		Type:                   "DEBIT",
		Subtype:                "API",
		Messages:               []string{},
		MerchantIdentity:       a.MerchantIdentity,
		AdditionalPurchaseData: data,
	}
	t.Transfers().Put(&tr)
	a.Transfer = &tr.ID
	a.AdditionalPurchaseData = data
	a.UpdatedAt = JSONTime(now)
	t.Authorizations().Put(&a)
	return a, tr, nil
}

// SaleResult is what a sale created: the transfer and, for the dispute
// trigger, the dispute and its first adjustment transfer; declined is the
// decline trigger (the FAILED transfer is kept, the request answers 402).
type SaleResult struct {
	Transfer   Transfer
	Dispute    *Dispute
	Adjustment *Transfer
	Declined   bool
}

// Sale stores a sale (a DEBIT transfer, PENDING) whose fee is at most its
// amount. Amount 102 stores it FAILED and declines; amount 888888 also
// opens a dispute in INQUIRY, in the same unit of work.
func Sale(t Tx, in TransferCreate) (SaleResult, error) {
	if err := admit(t, in.size); err != nil {
		return SaleResult{}, err
	}
	src, err := sourceCard(t, in.Source)
	if err != nil {
		return SaleResult{}, err
	}
	m, err := t.Merchants().Get(in.Merchant)
	if err != nil {
		return SaleResult{}, ErrInvalidField("/merchant", "merchant %s was not found", in.Merchant)
	}
	if err := validate.CheckFee(in.Amount, in.Fee); err != nil {
		return SaleResult{}, err
	}
	data, err := purchaseData(&m, in.AdditionalPurchaseData)
	if err != nil {
		return SaleResult{}, err
	}
	now, app := t.Now(), t.App()
	descriptor := "FNX*" + m.MerchantName
	srcID := src.ID // the record points at the id, not at a copy of the card
	tr := Transfer{
		Meta:                   NewMeta(t.NewID(PrefixTransfer), app, now),
		Amount:                 in.Amount,
		Tags:                   orEmpty(in.Tags),
		State:                  "PENDING",
		TraceID:                newUUID(),
		Currency:               in.Currency,
		Application:            app,
		Source:                 &srcID,
		ExternallyFunded:       "UNKNOWN",
		Fee:                    deref(in.Fee),
		StatementDescriptor:    &descriptor,
		Type:                   "DEBIT",
		Subtype:                "API",
		Messages:               []string{},
		IdempotencyID:          in.IdempotencyID,
		MerchantIdentity:       m.Identity,
		AdditionalPurchaseData: data,
	}
	if in.Amount == AmountDeclined {
		tr.State = "FAILED"
	}
	t.Transfers().Put(&tr)
	res := SaleResult{Transfer: tr, Declined: in.Amount == AmountDeclined}
	if in.Amount == AmountDisputed {
		d, adj := OpenDispute(t, tr, "INQUIRY")
		res.Dispute, res.Adjustment = &d, &adj
	}
	return res, nil
}

// OpenDispute opens a dispute in INQUIRY on sale with a PLATFORM_CREDIT
// adjustment.
func OpenDispute(t Tx, sale Transfer, reason string) (Dispute, Transfer) {
	now, app := t.Now(), t.App()
	d := Dispute{
		Meta:           NewMeta(t.NewID(PrefixDispute), app, now),
		Application:    app,
		Tags:           Tags{},
		Amount:         sale.Amount,
		State:          "INQUIRY",
		Transfer:       sale.ID,
		Reason:         reason,
		Identity:       sale.MerchantIdentity,
		OccurredAt:     JSONTime(now),
		RespondBy:      JSONTime(now.Add(authorizationLifetime)),
		DisputeDetails: DisputeDetails{ARN: fmt.Sprintf("%012d", uint64(now.UnixNano())%1_000_000_000_000)},
	}
	t.Disputes().Put(&d)
	return d, addAdjustment(t, d, sale, "PLATFORM_CREDIT")
}

// addAdjustment records an adjustment transfer of d on its disputed sale.
func addAdjustment(t Tx, d Dispute, disputed Transfer, subtype string) Transfer {
	adj := Transfer{
		Meta:             NewMeta(t.NewID(PrefixTransfer), d.App, t.Now()),
		Amount:           d.Amount,
		Tags:             Tags{},
		State:            "SUCCEEDED",
		TraceID:          newUUID(),
		Currency:         disputed.Currency,
		Application:      d.App,
		Source:           disputed.Source,
		ExternallyFunded: "FALSE",
		Type:             "DISPUTE",
		Subtype:          subtype,
		Messages:         []string{},
		MerchantIdentity: disputed.MerchantIdentity,
		Adjustment:       &Adjustment{AmountRequested: d.Amount, DisputedTransfer: d.Transfer, Dispute: d.ID},
	}
	t.Transfers().Put(&adj)
	return adj
}

// AdvanceDispute moves a dispute from INQUIRY to PENDING, adding the
// MERCHANT_CREDIT adjustment. ok is false when there was nothing to do.
func AdvanceDispute(t Tx, id string) (d Dispute, adj Transfer, ok bool, err error) {
	d, err = t.Disputes().Get(id)
	if err != nil || d.State != "INQUIRY" {
		return Dispute{}, Transfer{}, false, nil //nolint:nilerr // gone or moved on: nothing to do
	}
	disputed, err := t.Transfers().Get(d.Transfer)
	if err != nil {
		return Dispute{}, Transfer{}, false, err
	}
	d.State = "PENDING"
	d.UpdatedAt = JSONTime(t.Now())
	t.Disputes().Put(&d)
	return d, addAdjustment(t, d, disputed, "MERCHANT_CREDIT"), true, nil
}

func orEmpty(t Tags) Tags {
	if t == nil {
		return Tags{}
	}
	return t
}

func deref(p *int64) int64 {
	if p == nil {
		return 0
	}
	return *p
}
