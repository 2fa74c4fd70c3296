package reference

import (
	"context"
	"encoding/hex"
	"time"
)

// seed fills st with the deterministic fixtures: ids and secrets come from
// seedValue, so the same seed always yields the same credentials and ids.
func seed(st *store, seedValue int64, now time.Time) Seeded {
	src := newSeededSource(seedValue)
	runtimeID := st.newID
	st.newID = src.id
	defer func() { st.newID = runtimeID }()
	return seedInto(st, src, now, nil)
}

// seedInto seeds two applications with their users and fixtures, their
// secrets and the ids it writes itself taken from src. With ns (a namespace
// minted on a live store) the applications and users are recorded in ns
// and marked as seeding, so their fixtures neither count against a quota
// nor expire; the caller clears the mark.
func seedInto(st *store, src *seededSource, now time.Time, ns *namespace) Seeded {
	at := now.Add(-time.Hour) // seeded records predate everything created later

	var fx Seeded
	ids := &fx.Fixtures
	var appA, appB string
	var m merchant
	func() {
		st.mu.Lock()
		defer st.mu.Unlock()
		appA = seedApp(st, src)
		appB = seedApp(st, src)
		fx.Credentials.Platform = seedUser(st, src, appA, rolePlatform)
		fx.Credentials.Merchant = seedUser(st, src, appA, roleMerchant)
		fx.Credentials.OtherApplication = seedUser(st, src, appB, rolePlatform)
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
	_ = runUnit(st, context.Background(), appA, at, false, nil, func(t tx) error {
		platform := fx.Credentials.Platform.Username
		sched, err := createSchedule(t, platform, scheduleCreate{
			LineItemType: "FEE", Nickname: "Monthly platform fee", SubscriptionType: "PERIODIC_MONTHLY",
			PeriodOffset: map[string]any{"day": 1, "month": nil},
		})
		if err != nil {
			return err
		}
		ids.SubscriptionSchedule = sched.ID
		nickname, label, currency, amount := "Platform fee", "Platform fee", "USD", int64(2500)
		body := amountBody{AmountType: "FEE", Nickname: &nickname}
		body.FeeAmountData = &struct {
			Amount   *int64  `json:"amount"`
			Currency *string `json:"currency"`
			Label    *string `json:"label"`
		}{&amount, &currency, &label}
		amt, err := createAmount(t, platform, sched.ID, body)
		if err != nil {
			return err
		}
		ids.SubscriptionAmount = amt.ID
		return nil
	})
	ids.Dispute = seedDispute(st, appA, ids.BuyerIdentity, m.ID, at)
	_ = runUnit(st, context.Background(), appA, at, false, nil, func(t tx) error {
		balance, err := createBalanceTransfer(t, balanceTransferCreate{
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

func seedApp(st *store, src *seededSource) string {
	key, _ := hex.DecodeString(src.hex(32))
	a := &appData{
		id:                 src.id(prefixApplication),
		feeProfile:         src.id(prefixFeeProfile),
		fingerprintKey:     key,
		merchantByIdentity: map[string]*merchant{},
	}
	st.apps[a.id] = a
	return a.id
}

func seedUser(st *store, src *seededSource, app, role string) Credential {
	u := &user{id: src.id(prefixUser), password: src.token(32), role: role, app: app}
	st.users[u.id] = u
	return Credential{Username: u.id, Password: u.password}
}

func seedIdentity(st *store, src *seededSource, app string, at time.Time) string {
	id := &identity{meta: newMeta(src.id(prefixIdentity), app, at)}
	st.identities[id.ID] = id
	return id.ID
}

func seedMerchant(st *store, src *seededSource, app, name string, level23 bool, at time.Time) merchant {
	mid := src.token(12)
	m := &merchant{
		meta:                        newMeta(src.id(prefixMerchant), app, at),
		Application:                 app,
		Identity:                    seedIdentity(st, src, app, at),
		Verification:                src.id(prefixVerification),
		MerchantProfile:             src.id(prefixProfile),
		Processor:                   "DUMMY_V1",
		ProcessingEnabled:           true,
		SettlementEnabled:           true,
		Tags:                        tags{},
		MCC:                         "5999",
		MID:                         mid,
		MerchantName:                name,
		SettlementFundingIdentifier: "UNSET",
		ReadyToSettleUpon:           "RECONCILIATION",
		FeeReadyToSettleUpon:        "RECONCILIATION",
		OnboardingState:             "APPROVED",
		ProcessorDetails:            processorDetails{MID: mid, APIKey: maskedAPIKey},

		LevelTwoLevelThreeDataEnabled: level23,
	}
	st.merchants[m.ID] = m
	st.apps[app].merchantByIdentity[m.Identity] = m
	return *m
}

// seedDispute creates a card, a sale on it and a dispute in PENDING with
// evidence and both adjustment transfers.
func seedDispute(st *store, app, buyer, merchantID string, at time.Time) string {
	var id string
	_ = runUnit(st, context.Background(), app, at, false, nil, func(t tx) error {
		card, err := createCard(t, cardCreate{
			Type: "PAYMENT_CARD", Name: "Seeded Buyer", Number: "4111111111111111",
			ExpirationMonth: 12, ExpirationYear: at.Year() + 5, SecurityCode: "123",
			Identity: buyer, Address: address{PostalCode: "94110"},
		})
		if err != nil {
			return err
		}
		res, err := sale(t, transferCreate{Source: card.ID, Merchant: merchantID, Amount: 15000, Currency: "USD"})
		if err != nil {
			return err
		}
		d, _ := openDispute(t, res.transfer, "FRAUD")
		if _, _, _, err := advanceDispute(t, d.ID); err != nil {
			return err
		}
		id = d.ID
		return nil
	})
	_ = runUnit(st, context.Background(), app, at, false, nil, func(t tx) error {
		_, err := createEvidence(t, id, upload{
			name: "receipt.txt", contentType: "text/plain", extension: "txt", data: []byte("signed receipt"),
		})
		return err
	})
	return id
}
