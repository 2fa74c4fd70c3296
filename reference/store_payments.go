package reference

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/conform-kit/conform/validate"
)

// Sandbox triggers (DESIGN.md): these amounts decline or open a dispute.
const (
	amountDeclined = 102
	amountDisputed = 888888
)

// authorizationLifetime is how long an authorization can be captured.
const authorizationLifetime = 7 * 24 * time.Hour

// createCard stores a payment card. number and securityCode are checked and
// then dropped: only bin, last four and a keyed fingerprint are kept.
func (st *store) createCard(app string, in cardCreate, now time.Time) (paymentInstrument, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if err := st.admit(app, now, in.size); err != nil {
		return paymentInstrument{}, err
	}
	if _, err := lookup(st.identities, app, in.Identity); err != nil {
		return paymentInstrument{}, errInvalidField("/identity", "identity %s was not found", in.Identity)
	}
	if err := checkCardNumber(in.Number); err != nil {
		return paymentInstrument{}, err
	}
	if in.ExpirationYear*12+in.ExpirationMonth < now.Year()*12+int(now.Month()) {
		return paymentInstrument{}, errInvalidField("/expiration_year", "the card has expired")
	}
	mac := hmac.New(sha256.New, st.appOf(app).fingerprintKey)
	mac.Write([]byte(in.Number))
	avs := "UNKNOWN"
	if in.Address.Line1 != nil {
		avs = "POSTAL_CODE_AND_STREET_MATCH"
	}
	p := &paymentInstrument{
		meta:                     newMeta(st.newID(prefixCard), app, now),
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
	st.cards[p.ID] = p
	st.keep(app, now, in.size, func() { delete(st.cards, p.ID) })
	return *p, nil
}

// resolveMerchant finds the merchant an authorization names, by Merchant id
// or by the merchant's Identity id; exactly one must be given.
func (st *store) resolveMerchant(app, merchantID, identityID string) (*merchant, error) {
	switch {
	case merchantID != "" && identityID != "":
		return nil, errInvalidField("/merchant", "give either merchant or merchant_identity, not both")
	case merchantID != "":
		m, err := lookup(st.merchants, app, merchantID)
		if err != nil {
			return nil, errInvalidField("/merchant", "merchant %s was not found", merchantID)
		}
		return m, nil
	case identityID != "":
		m, ok := st.appOf(app).merchantByIdentity[identityID]
		if !ok {
			return nil, errInvalidField("/merchant_identity", "no merchant has identity %s", identityID)
		}
		return m, nil
	}
	return nil, errInvalidField("/merchant_identity", "merchant_identity (or merchant) is required")
}

// purchaseData applies the Level 2/3 rules to data sent for merchant m,
// fills sales_tax from the items when it is omitted, and returns it as
// compact JSON: a record keeps its purchase data in the form it is served
// in, a fraction of the memory of the decoded map.
func purchaseData(m *merchant, data map[string]any) (json.RawMessage, error) {
	if data == nil {
		return nil, nil
	}
	if err := validate.CheckLevel23(m.LevelTwoLevelThreeDataEnabled, true); err != nil {
		return nil, err
	}
	if err := validate.CheckTaxExempt(data); err != nil {
		return nil, err
	}
	var salesTax *treeMember
	if _, ok := data["sales_tax"]; !ok {
		if tax, ok := validate.SalesTax(data); ok {
			salesTax = &treeMember{"sales_tax", json.Number(strconv.FormatInt(tax, 10))}
		}
	}
	b, err := appendTreeObject(make([]byte, 0, 1024), data, salesTax)
	if err != nil {
		return nil, fmt.Errorf("encode purchase data: %w", err)
	}
	return slices.Clone(b), nil // kept: no spare capacity
}

// decodePurchaseData turns stored purchase data back into the map the
// rules read; nil for none.
func decodePurchaseData(raw json.RawMessage) (map[string]any, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("decode stored purchase data: %w", err)
	}
	return m, nil
}

func (st *store) card(app, id string) (*paymentInstrument, error) {
	p, err := lookup(st.cards, app, id)
	if err != nil {
		return nil, errInvalidField("/source", "payment instrument %s was not found", id)
	}
	return p, nil
}

// createAuthorization stores an authorization; amount 102 stores it FAILED
// and returns a decline naming it.
func (st *store) createAuthorization(app string, in authorizationCreate, now time.Time) (authorization, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if err := st.admit(app, now, in.size); err != nil {
		return authorization{}, err
	}
	src, err := st.card(app, in.Source)
	if err != nil {
		return authorization{}, err
	}
	m, err := st.resolveMerchant(app, in.Merchant, in.MerchantIdentity)
	if err != nil {
		return authorization{}, err
	}
	data, err := purchaseData(m, in.AdditionalPurchaseData)
	if err != nil {
		return authorization{}, err
	}
	a := &authorization{
		meta:                   newMeta(st.newID(prefixAuthz), app, now),
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
		ExpiresAt:              jsonTime(now.Add(authorizationLifetime)),
		IdempotencyID:          in.IdempotencyID,
		AdditionalPurchaseData: data,
		merchant:               m.ID,
	}
	st.auths[a.ID] = a
	st.keep(app, now, in.size, func() { delete(st.auths, a.ID) })
	if in.Amount == amountDeclined {
		a.State = "FAILED"
		return *a, errDeclined(a.ID)
	}
	return *a, nil
}

// capture captures an authorization once, creating its DEBIT transfer.
func (st *store) capture(app, id string, in captureRequest, now time.Time) (authorization, transfer, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if err := st.admit(app, now, in.size); err != nil {
		return authorization{}, transfer{}, err
	}
	a, err := lookup(st.auths, app, id)
	if err != nil {
		return authorization{}, transfer{}, err
	}
	switch {
	case a.Transfer != nil:
		return authorization{}, transfer{}, errUnprocessable("authorization %s is already captured", id)
	case a.State != "SUCCEEDED":
		return authorization{}, transfer{}, errUnprocessable("authorization %s is %s and cannot be captured", id, a.State)
	case a.IsVoid:
		return authorization{}, transfer{}, errUnprocessable("authorization %s is void", id)
	case now.After(time.Time(a.ExpiresAt)):
		return authorization{}, transfer{}, errUnprocessable("authorization %s expired at %s", id, time.Time(a.ExpiresAt).Format(timeLayout))
	}
	if err := validate.CheckCapture(a.Amount, in.CaptureAmount, in.Fee); err != nil {
		return authorization{}, transfer{}, err
	}
	data := a.AdditionalPurchaseData
	if in.AdditionalPurchaseData != nil {
		merged, err := decodePurchaseData(a.AdditionalPurchaseData)
		if err != nil {
			return authorization{}, transfer{}, err
		}
		if merged == nil {
			merged = map[string]any{}
		}
		maps.Copy(merged, in.AdditionalPurchaseData)
		if data, err = purchaseData(st.merchants[a.merchant], merged); err != nil {
			return authorization{}, transfer{}, err
		}
	}
	src := a.Source
	t := &transfer{
		meta:                   newMeta(st.newID(prefixTransfer), app, now),
		Amount:                 in.CaptureAmount,
		Tags:                   tags{},
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
	st.transfers[t.ID] = t
	st.keep(app, now, in.size, func() { delete(st.transfers, t.ID) })
	a.Transfer = &t.ID
	a.AdditionalPurchaseData = data
	a.UpdatedAt = jsonTime(now)
	return *a, *t, nil
}

// saleResult is what a sale created: the transfer and, for the dispute
// trigger, the dispute and its first adjustment transfer.
type saleResult struct {
	transfer   transfer
	dispute    *dispute
	adjustment *transfer
}

// createSale stores a sale (a DEBIT transfer, PENDING). Amount 102 stores it
// FAILED and declines; amount 888888 also opens a dispute in INQUIRY.
func (st *store) createSale(app string, in transferCreate, now time.Time) (saleResult, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if err := st.admit(app, now, in.size); err != nil {
		return saleResult{}, err
	}
	src, err := st.card(app, in.Source)
	if err != nil {
		return saleResult{}, err
	}
	m, err := lookup(st.merchants, app, in.Merchant)
	if err != nil {
		return saleResult{}, errInvalidField("/merchant", "merchant %s was not found", in.Merchant)
	}
	if err := validate.CheckFee(in.Amount, in.Fee); err != nil {
		return saleResult{}, err
	}
	data, err := purchaseData(m, in.AdditionalPurchaseData)
	if err != nil {
		return saleResult{}, err
	}
	descriptor := "FNX*" + m.MerchantName
	t := &transfer{
		meta:                   newMeta(st.newID(prefixTransfer), app, now),
		Amount:                 in.Amount,
		Tags:                   orEmpty(in.Tags),
		State:                  "PENDING",
		TraceID:                newUUID(),
		Currency:               in.Currency,
		Application:            app,
		Source:                 &src.ID,
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
	st.transfers[t.ID] = t
	res := saleResult{transfer: *t}
	switch in.Amount {
	case amountDeclined:
		t.State = "FAILED"
		st.keep(app, now, in.size, func() { delete(st.transfers, t.ID) })
		return saleResult{transfer: *t}, errDeclined(t.ID)
	case amountDisputed:
		d, adj := st.openDispute(t, "INQUIRY", now)
		res.dispute, res.adjustment = &d, &adj
		st.keep(app, now, in.size, func() {
			delete(st.transfers, t.ID)
			st.dropDispute(d.ID)
		})
		return res, nil
	}
	st.keep(app, now, in.size, func() { delete(st.transfers, t.ID) })
	return res, nil
}

// openDispute opens a dispute in INQUIRY on t with a PLATFORM_CREDIT
// adjustment. Callers hold the lock.
func (st *store) openDispute(t *transfer, reason string, now time.Time) (dispute, transfer) {
	d := &dispute{
		meta:           newMeta(st.newID(prefixDispute), t.app, now),
		Application:    t.app,
		Tags:           tags{},
		Amount:         t.Amount,
		State:          "INQUIRY",
		Transfer:       t.ID,
		Reason:         reason,
		Identity:       t.MerchantIdentity,
		OccurredAt:     jsonTime(now),
		RespondBy:      jsonTime(now.Add(authorizationLifetime)),
		DisputeDetails: disputeDetails{ARN: fmt.Sprintf("%012d", uint64(now.UnixNano())%1_000_000_000_000)},
	}
	st.disputes[d.ID] = d
	st.apps[t.app].disputes.add(d)
	st.evidenceByDispute[d.ID] = &series[*evidence]{}
	st.adjustmentsByDispute[d.ID] = &series[*transfer]{}
	adj := st.addAdjustment(d, "PLATFORM_CREDIT", now)
	return *d, adj
}

// dropDispute removes a dispute with its adjustment transfers and evidence.
// Callers hold the lock.
func (st *store) dropDispute(id string) {
	d, ok := st.disputes[id]
	if !ok {
		return
	}
	delete(st.disputes, id)
	st.apps[d.app].disputes.remove(d)
	if adj := st.adjustmentsByDispute[id]; adj != nil {
		for _, t := range adj.items {
			delete(st.transfers, t.ID)
		}
	}
	if ev := st.evidenceByDispute[id]; ev != nil {
		for _, e := range ev.items {
			delete(st.evidence, e.ID)
		}
	}
	delete(st.adjustmentsByDispute, id)
	delete(st.evidenceByDispute, id)
}

// addAdjustment records an adjustment transfer of d. Callers hold the lock.
func (st *store) addAdjustment(d *dispute, subtype string, now time.Time) transfer {
	disputed := st.transfers[d.Transfer]
	t := &transfer{
		meta:             newMeta(st.newID(prefixTransfer), d.app, now),
		Amount:           d.Amount,
		Tags:             tags{},
		State:            "SUCCEEDED",
		TraceID:          newUUID(),
		Currency:         disputed.Currency,
		Application:      d.app,
		Source:           disputed.Source,
		ExternallyFunded: "FALSE",
		Type:             "DISPUTE",
		Subtype:          subtype,
		Messages:         []string{},
		MerchantIdentity: disputed.MerchantIdentity,
		adjustment:       &adjustment{AmountRequested: d.Amount, disputedTransfer: d.Transfer},
	}
	st.transfers[t.ID] = t
	st.adjustmentsByDispute[d.ID].add(t)
	return *t
}

// advanceDispute moves a dispute from INQUIRY to PENDING, adding the
// MERCHANT_CREDIT adjustment. ok is false when there was nothing to do.
func (st *store) advanceDispute(id string, now time.Time) (d dispute, adj transfer, ok bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	p, found := st.disputes[id]
	if !found || p.State != "INQUIRY" {
		return dispute{}, transfer{}, false
	}
	p.State = "PENDING"
	p.UpdatedAt = jsonTime(now)
	st.apps[p.app].disputes.touch(p)
	adj = st.addAdjustment(p, "MERCHANT_CREDIT", now)
	return *p, adj, true
}

func orEmpty(t tags) tags {
	if t == nil {
		return tags{}
	}
	return t
}

func deref(p *int64) int64 {
	if p == nil {
		return 0
	}
	return *p
}
