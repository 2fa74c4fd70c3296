package memstore

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/conform-kit/conform/reference/internal/fake"
	"github.com/conform-kit/conform/reference/ledger"
	"github.com/conform-kit/conform/validate"
)

// counterIDs is a deterministic id source: the prefix and a counter.
func counterIDs() func(string) string { return fake.CounterIDs() }

// storeFixture is a store seeded like a server's, without HTTP.
func storeFixture(t *testing.T) (*Store, ledger.Seeded, string, time.Time) {
	t.Helper()
	now := time.Date(2026, 3, 14, 15, 9, 26, 535000000, time.UTC)
	st := newStore(counterIDs(), time.Now)
	fx := seed(st, 1, now)
	return st, fx, st.users[fx.Credentials.Platform.Username].App, now
}

func TestSeedIsDeterministic(t *testing.T) {
	_, a, _, _ := storeFixture(t)
	_, b, _, _ := storeFixture(t)
	assert.Equal(t, a, b, "fixtures of the same seed")
	other := seed(newStore(counterIDs(), time.Now), 2, time.Now())
	assert.NotEqual(t, a.Credentials.Platform, other.Credentials.Platform, "platform credentials of seeds 1 and 2")
	v := a.Fixtures
	for name, id := range map[string]string{
		"buyer_identity": v.BuyerIdentity, "merchant": v.Merchant, "merchant_identity": v.MerchantIdentity,
		"plain_merchant": v.PlainMerchant, "plain_merchant_identity": v.PlainMerchantIdentity,
		"subscription_schedule": v.SubscriptionSchedule, "subscription_amount": v.SubscriptionAmount,
		"dispute": v.Dispute, "balance_transfer": v.BalanceTransfer,
	} {
		assert.NotEmpty(t, id, "fixture %s", name)
	}
}

// inUnit runs fn as a unit of work of app at now.
func inUnit(st *Store, app string, now time.Time, fn func(t ledger.Tx) error) error {
	return ledger.RunUnit(st, context.Background(), app, now, false, nil, fn)
}

func TestStoreCaptureRules(t *testing.T) {
	st, fx, app, now := storeFixture(t)
	var card ledger.PaymentInstrument
	var a ledger.Authorization
	require.NoError(t, inUnit(st, app, now, func(t ledger.Tx) error {
		var err error
		if card, err = ledger.CreateCard(t, ledger.CardCreate{Number: "4111111111111111", ExpirationMonth: 1, ExpirationYear: 2099, Identity: fx.Fixtures.BuyerIdentity}); err != nil {
			return err
		}
		a, _, err = ledger.Authorize(t, ledger.AuthorizationCreate{Source: card.ID, Merchant: fx.Fixtures.Merchant, Amount: 1000, Currency: "USD"})
		return err
	}), "create a card and authorize")
	captureIn := func(app string, amount int64) error {
		return inUnit(st, app, now, func(t ledger.Tx) error {
			_, _, err := ledger.Capture(t, a.ID, ledger.CaptureRequest{CaptureAmount: amount})
			return err
		})
	}
	var ve *validate.Error
	if assert.ErrorAs(t, captureIn(app, 1001), &ve, "capture over the amount") {
		assert.Equal(t, validate.CodeInvalidField, ve.Code, "capture over the amount: code")
	}
	require.NoError(t, captureIn(app, 1000), "capture of the whole amount")
	tests := []struct {
		name string
		app  string
		want ledger.ErrorKind
	}{
		{"second capture", app, ledger.KindUnprocessable},
		{"capture from another application", "APother", ledger.KindNotFound},
	}
	for _, tc := range tests {
		var de *ledger.DomainError
		if assert.ErrorAs(t, captureIn(tc.app, 1), &de, tc.name) {
			assert.Equal(t, tc.want, de.Kind, "%s: kind", tc.name)
		}
	}
}

// TestFailedUnitKeepsNothing: a unit of work whose function fails after
// creating records commits none of them, and emits nothing.
func TestFailedUnitKeepsNothing(t *testing.T) {
	st, fx, app, now := storeFixture(t)
	var dispatched []ledger.Effects
	st.dispatch = func(e ledger.Effects) { dispatched = append(dispatched, e) }
	sizes := func() []int {
		return []int{len(st.cards), len(st.transfers), len(st.disputes), len(st.adjustmentsByDispute), st.apps[app].disputes.idx.len()}
	}
	before := sizes()
	var card ledger.PaymentInstrument
	err := inUnit(st, app, now, func(u ledger.Tx) error {
		var err error
		if card, err = ledger.CreateCard(u, ledger.CardCreate{Number: "4111111111111111", ExpirationMonth: 1, ExpirationYear: 2099, Identity: fx.Fixtures.BuyerIdentity}); err != nil {
			return err
		}
		res, err := ledger.Sale(u, ledger.TransferCreate{Source: card.ID, Merchant: fx.Fixtures.Merchant, Amount: ledger.AmountDisputed, Currency: "USD"})
		if err != nil {
			return err
		}
		require.NotNil(t, res.Dispute)
		u.Outbox().Emit("transfer", "created", res.Transfer)
		return ledger.ErrUnprocessable("refused after writing")
	})
	require.Error(t, err)
	assert.Equal(t, before, sizes(), "cards, transfers, disputes, adjustment lists, the dispute list after the failed unit")
	assert.Empty(t, dispatched, "events of the failed unit")
	err = st.View(context.Background(), app, func(t ledger.Tx) error { _, err := t.Cards().Get(card.ID); return err })
	assert.Error(t, err, "the card of the failed unit")
}

func TestStoreAmountUpdateRule(t *testing.T) {
	st, fx, app, now := storeFixture(t)
	user := fx.Credentials.Platform.Username
	sched, id := fx.Fixtures.SubscriptionSchedule, fx.Fixtures.SubscriptionAmount
	update := func(target string) (ledger.SubscriptionAmount, error) {
		var out ledger.SubscriptionAmount
		err := inUnit(st, app, now, func(t ledger.Tx) error {
			var err error
			out, err = ledger.UpdateAmount(t, user, sched, target, ledger.AmountBody{AmountType: "FEE"})
			return err
		})
		return out, err
	}
	next, err := update(id)
	require.NoError(t, err, "first update")
	for _, target := range []string{id, next.ID} {
		var ve *validate.Error
		_, err := update(target)
		if assert.ErrorAs(t, err, &ve, "update of %s", target) {
			assert.Equal(t, validate.CodeUnprocessable, ve.Code, "update of %s: code", target)
		}
	}
}

func TestSeriesPaging(t *testing.T) {
	var s series[*ledger.BalanceTransfer]
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var all []*ledger.BalanceTransfer
	for i := range 30 {
		b := &ledger.BalanceTransfer{Meta: ledger.NewMeta(fmt.Sprintf("BT_%02d", i), "AP", base.Add(time.Duration(i/3)*time.Second)), Amount: int64(30 - i)}
		all = append(all, b)
	}
	for _, i := range []int{5, 0, 29, 12, 7} { // out of order inserts land in place
		s.add(all[i])
	}
	for i, b := range all {
		if i != 5 && i != 0 && i != 29 && i != 12 && i != 7 {
			s.add(b)
		}
	}
	ids := func(q ledger.ListQuery) []string {
		items, total := pageOf(&s, q, func(b *ledger.BalanceTransfer) string { return b.ID })
		require.Equal(t, len(s.items), total, "total of page %+v", q)
		return items
	}
	assert.Equal(t, []string{"BT_29", "BT_28", "BT_27"}, ids(ledger.ListQuery{Offset: 0, Limit: 3, Sort: ledger.DefaultOrder()}), "default first page")
	assert.Equal(t, []string{"BT_01", "BT_00"}, ids(ledger.ListQuery{Offset: 28, Limit: 5, Sort: ledger.DefaultOrder()}), "default last page")
	assert.Equal(t, []string{"BT_29", "BT_28"}, ids(ledger.ListQuery{Offset: 0, Limit: 2, Sort: []ledger.SortKey{{Field: "amount", Desc: false}}}), "amount asc")
	s.remove(all[29])
	assert.Equal(t, []string{"BT_28"}, ids(ledger.ListQuery{Limit: 1, Sort: ledger.DefaultOrder()}), "first page after removing BT_29")
}
