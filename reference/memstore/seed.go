package memstore

import (
	"context"
	"encoding/hex"
	"time"

	"github.com/conform-kit/conform/reference/ledger"
)

// seed fills st with the deterministic fixtures: ids and secrets come from
// seedValue, so the same seed always yields the same credentials and ids.
func seed(st *Store, seedValue int64, now time.Time) ledger.Seeded {
	src := ledger.NewSeededSource(seedValue)
	runtimeID := st.newID
	st.newID = src.ID
	defer func() { st.newID = runtimeID }()
	return seedInto(st, src, now, nil)
}

// seedInto seeds two applications with their users and fixtures, their
// secrets and the ids it writes itself taken from src. With ns (a namespace
// minted on a live store) the applications and users are recorded in ns
// and marked as seeding, so their fixtures neither count against a quota
// nor expire; the caller clears the mark.
func seedInto(st *Store, src *ledger.SeededSource, now time.Time, ns *namespace) ledger.Seeded {
	at := now.Add(-time.Hour) // seeded records predate everything created later

	var fx ledger.Seeded
	ids := &fx.Fixtures
	var appA, appB string
	var m ledger.Merchant
	func() {
		st.mu.Lock()
		defer st.mu.Unlock()
		appA = seedApp(st, src)
		appB = seedApp(st, src)
		fx.Credentials.Platform = seedUser(st, src, appA, ledger.RolePlatform)
		fx.Credentials.Merchant = seedUser(st, src, appA, ledger.RoleMerchant)
		fx.Credentials.OtherApplication = seedUser(st, src, appB, ledger.RolePlatform)
		if ns != nil {
			ns.apps = []string{appA, appB}
			ns.users = []string{fx.Credentials.Platform.Username, fx.Credentials.Merchant.Username, fx.Credentials.OtherApplication.Username}
			for _, a := range ns.apps {
				st.seeding[a] = true
				st.nsOfApp[a] = ns
			}
		}
		ids.BuyerIdentity = seedIdentity(st, src, appA, at)
		m = seedMerchant(st, src, appA, "Conform Level 3 Goods", true, at)
		ids.Merchant, ids.MerchantIdentity = m.ID, m.Identity
		plain := seedMerchant(st, src, appA, "Conform Plain Goods", false, at)
		ids.PlainMerchant, ids.PlainMerchantIdentity = plain.ID, plain.Identity
	}()

	// Seeding runs before retention (or marked as seeding): nothing is
	// refused. The order of the creates fixes the seeded ids.
	_ = ledger.RunUnit(st, context.Background(), appA, at, false, nil, func(t ledger.Tx) error {
		platform := fx.Credentials.Platform.Username
		sched, err := ledger.CreateSchedule(t, platform, ledger.ScheduleCreate{
			LineItemType: "FEE", Nickname: "Monthly platform fee", SubscriptionType: "PERIODIC_MONTHLY",
			PeriodOffset: map[string]any{"day": 1, "month": nil},
		})
		if err != nil {
			return err
		}
		ids.SubscriptionSchedule = sched.ID
		nickname, label, currency, amount := "Platform fee", "Platform fee", "USD", int64(2500)
		body := ledger.AmountBody{AmountType: "FEE", Nickname: &nickname}
		body.FeeAmountData = &struct {
			Amount   *int64  `json:"amount"`
			Currency *string `json:"currency"`
			Label    *string `json:"label"`
		}{&amount, &currency, &label}
		amt, err := ledger.CreateAmount(t, platform, sched.ID, body)
		if err != nil {
			return err
		}
		ids.SubscriptionAmount = amt.ID
		return nil
	})
	ids.Dispute = seedDispute(st, appA, ids.BuyerIdentity, m.ID, at)
	_ = ledger.RunUnit(st, context.Background(), appA, at, false, nil, func(t ledger.Tx) error {
		balance, err := ledger.CreateBalanceTransfer(t, ledger.BalanceTransferCreate{
			Amount: 100000, Currency: "USD", Description: "Seeded balance transfer",
		})
		ids.BalanceTransfer = balance.ID
		return err
	})

	// Application B: its own buyer and merchants, invisible to application A.
	st.mu.Lock()
	defer st.mu.Unlock()
	seedIdentity(st, src, appB, at)
	seedMerchant(st, src, appB, "Other Application Goods", true, at)
	seedMerchant(st, src, appB, "Other Application Plain", false, at)
	return fx
}

func seedApp(st *Store, src *ledger.SeededSource) string {
	key, _ := hex.DecodeString(src.Hex(32))
	a := &appData{
		id:                 src.ID(ledger.PrefixApplication),
		feeProfile:         src.ID(ledger.PrefixFeeProfile),
		fingerprintKey:     key,
		merchantByIdentity: map[string]*ledger.Merchant{},
	}
	st.apps[a.id] = a
	return a.id
}

func seedUser(st *Store, src *ledger.SeededSource, app, role string) ledger.Credential {
	u := &ledger.User{ID: src.ID(ledger.PrefixUser), Password: src.Token(32), Role: role, App: app}
	st.users[u.ID] = u
	return ledger.Credential{Username: u.ID, Password: u.Password}
}

func seedIdentity(st *Store, src *ledger.SeededSource, app string, at time.Time) string {
	id := &ledger.Identity{Meta: ledger.NewMeta(src.ID(ledger.PrefixIdentity), app, at)}
	st.identities[id.ID] = id
	return id.ID
}

func seedMerchant(st *Store, src *ledger.SeededSource, app, name string, level23 bool, at time.Time) ledger.Merchant {
	mid := src.Token(12)
	m := &ledger.Merchant{
		Meta:                        ledger.NewMeta(src.ID(ledger.PrefixMerchant), app, at),
		Application:                 app,
		Identity:                    seedIdentity(st, src, app, at),
		Verification:                src.ID(ledger.PrefixVerification),
		MerchantProfile:             src.ID(ledger.PrefixProfile),
		Processor:                   "DUMMY_V1",
		ProcessingEnabled:           true,
		SettlementEnabled:           true,
		Tags:                        ledger.Tags{},
		MCC:                         "5999",
		MID:                         mid,
		MerchantName:                name,
		SettlementFundingIdentifier: "UNSET",
		ReadyToSettleUpon:           "RECONCILIATION",
		FeeReadyToSettleUpon:        "RECONCILIATION",
		OnboardingState:             "APPROVED",
		ProcessorDetails:            ledger.ProcessorDetails{MID: mid, APIKey: ledger.MaskedAPIKey},

		LevelTwoLevelThreeDataEnabled: level23,
	}
	st.merchants[m.ID] = m
	st.apps[app].merchantByIdentity[m.Identity] = m
	return *m
}

// seedDispute creates a card, a sale on it and a dispute in PENDING with
// evidence and both adjustment transfers.
func seedDispute(st *Store, app, buyer, merchantID string, at time.Time) string {
	var id string
	_ = ledger.RunUnit(st, context.Background(), app, at, false, nil, func(t ledger.Tx) error {
		card, err := ledger.CreateCard(t, ledger.CardCreate{
			Type: "PAYMENT_CARD", Name: "Seeded Buyer", Number: "4111111111111111",
			ExpirationMonth: 12, ExpirationYear: at.Year() + 5, SecurityCode: "123",
			Identity: buyer, Address: ledger.Address{PostalCode: "94110"},
		})
		if err != nil {
			return err
		}
		res, err := ledger.Sale(t, ledger.TransferCreate{Source: card.ID, Merchant: merchantID, Amount: 15000, Currency: "USD"})
		if err != nil {
			return err
		}
		d, _ := ledger.OpenDispute(t, res.Transfer, "FRAUD")
		if _, _, _, err := ledger.AdvanceDispute(t, d.ID); err != nil {
			return err
		}
		id = d.ID
		return nil
	})
	_ = ledger.RunUnit(st, context.Background(), app, at, false, nil, func(t ledger.Tx) error {
		_, err := ledger.CreateEvidence(t, id, ledger.Upload{
			Name: "receipt.txt", ContentType: "text/plain", Extension: "txt", Data: []byte("signed receipt"),
		})
		return err
	})
	return id
}

// NewSeeded is a store in memory seeded with seedValue, for a store that
// keeps its sandbox elsewhere to copy (Apps, Users, PutRecords).
func NewSeeded(newID func(string) string, clock func() time.Time, seedValue int64) (*Store, ledger.Seeded) {
	st := newStore(newID, clock)
	return st, seed(st, seedValue, ledger.Stamp(clock))
}

// NewSeededNamespace is a store in memory holding a namespace seeded from src
// at now, for a store that keeps its sandbox elsewhere to copy.
func NewSeededNamespace(newID func(string) string, clock func() time.Time, src *ledger.SeededSource, now time.Time) (*Store, ledger.Namespace) {
	ns := &namespace{id: src.ID(namespacePrefix), used: now}
	st := newStore(newID, clock)
	fx := seedInto(st, src, now, ns)
	return st, ledger.Namespace{ID: ns.id, Seeded: fx}
}
