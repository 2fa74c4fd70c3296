package reference

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/conform-kit/conform/validate"
)

// storeFixture is a store seeded like a server's, without HTTP.
func storeFixture(t *testing.T) (*store, Seeded, string, time.Time) {
	t.Helper()
	now := newClock().Now()
	st := newStore(counterIDs())
	fx := seed(st, 1, now)
	return st, fx, st.users[fx.Credentials.Platform.Username].app, now
}

func TestSeedIsDeterministic(t *testing.T) {
	_, a, _, _ := storeFixture(t)
	_, b, _, _ := storeFixture(t)
	if a != b {
		t.Errorf("same seed, different fixtures:\n%+v\n%+v", a, b)
	}
	other := seed(newStore(counterIDs()), 2, time.Now())
	if other.Credentials.Platform == a.Credentials.Platform {
		t.Error("different seeds gave the same credentials")
	}
	v := a.Fixtures
	for name, id := range map[string]string{
		"buyer_identity": v.BuyerIdentity, "merchant": v.Merchant, "merchant_identity": v.MerchantIdentity,
		"plain_merchant": v.PlainMerchant, "plain_merchant_identity": v.PlainMerchantIdentity,
		"subscription_schedule": v.SubscriptionSchedule, "subscription_amount": v.SubscriptionAmount,
		"dispute": v.Dispute, "balance_transfer": v.BalanceTransfer,
	} {
		if id == "" {
			t.Errorf("fixture %s is empty", name)
		}
	}
}

func TestStoreCaptureRules(t *testing.T) {
	st, fx, app, now := storeFixture(t)
	card, err := st.createCard(app, cardCreate{Number: "4111111111111111", ExpirationMonth: 1, ExpirationYear: 2099, Identity: fx.Fixtures.BuyerIdentity}, now)
	if err != nil {
		t.Fatalf("createCard: %v", err)
	}
	a, err := st.createAuthorization(app, authorizationCreate{Source: card.ID, Merchant: fx.Fixtures.Merchant, Amount: 1000, Currency: "USD"}, now)
	if err != nil {
		t.Fatalf("createAuthorization: %v", err)
	}
	var ve *validate.Error
	if _, _, err := st.capture(app, a.ID, captureRequest{CaptureAmount: 1001}, now); !errors.As(err, &ve) || ve.Code != validate.CodeInvalidField {
		t.Errorf("capture over amount: %v, want a validate.Error INVALID_FIELD", err)
	}
	if _, _, err := st.capture(app, a.ID, captureRequest{CaptureAmount: 1000}, now); err != nil {
		t.Fatalf("capture: %v", err)
	}
	var de *domainError
	if _, _, err := st.capture(app, a.ID, captureRequest{CaptureAmount: 1}, now); !errors.As(err, &de) || de.kind != kindUnprocessable {
		t.Errorf("second capture: %v, want unprocessable", err)
	}
	if _, _, err := st.capture("APother", a.ID, captureRequest{CaptureAmount: 1}, now); !errors.As(err, &de) || de.kind != kindNotFound {
		t.Errorf("capture from another application: %v, want not found", err)
	}
}

func TestStoreAmountUpdateRule(t *testing.T) {
	st, fx, app, now := storeFixture(t)
	u := user{id: fx.Credentials.Platform.Username, app: app}
	sched, id := fx.Fixtures.SubscriptionSchedule, fx.Fixtures.SubscriptionAmount
	next, err := st.updateAmount(u, sched, id, amountBody{AmountType: "FEE"}, now)
	if err != nil {
		t.Fatalf("first update: %v", err)
	}
	for _, target := range []string{id, next.ID} {
		var ve *validate.Error
		if _, err := st.updateAmount(u, sched, target, amountBody{AmountType: "FEE"}, now); !errors.As(err, &ve) || ve.Code != validate.CodeUnprocessable {
			t.Errorf("update of %s: %v, want UNPROCESSABLE_ENTITY", target, err)
		}
	}
}

func TestSeriesPaging(t *testing.T) {
	var s series[*balanceTransfer]
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var all []*balanceTransfer
	for i := range 30 {
		b := &balanceTransfer{meta: newMeta(fmt.Sprintf("BT_%02d", i), "AP", base.Add(time.Duration(i/3)*time.Second)), Amount: int64(30 - i)}
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
	ids := func(q listQuery) []string {
		items, total := pageOf(&s, q, func(b *balanceTransfer) string { return b.ID })
		if total != len(s.items) {
			t.Fatalf("total %d, want %d", total, len(s.items))
		}
		return items
	}
	got := ids(listQuery{offset: 0, limit: 3, sort: defaultSort})
	if fmt.Sprint(got) != "[BT_29 BT_28 BT_27]" {
		t.Errorf("default first page %v", got)
	}
	got = ids(listQuery{offset: 28, limit: 5, sort: defaultSort})
	if fmt.Sprint(got) != "[BT_01 BT_00]" {
		t.Errorf("default last page %v", got)
	}
	got = ids(listQuery{offset: 0, limit: 2, sort: []sortKey{{"amount", false}}})
	if fmt.Sprint(got) != "[BT_29 BT_28]" {
		t.Errorf("amount asc %v", got)
	}
	s.remove(all[29])
	if got := ids(listQuery{limit: 1, sort: defaultSort}); got[0] != "BT_28" {
		t.Errorf("after remove %v", got)
	}
}

func TestParseListQuery(t *testing.T) {
	tests := []struct {
		query string
		ok    bool
	}{
		{"", true}, {"limit=100", true}, {"limit=0", false}, {"limit=101", false}, {"limit=x", false},
		{"offset=3", true}, {"offset=-1", false}, {"offset=99999999999", false}, {"sort=amount,asc&sort=id,desc", true}, {"sort=secret,asc", false},
		{"sort=id,sideways", false},
	}
	for _, tc := range tests {
		q, _ := urlQuery(tc.query)
		_, err := parseListQuery(q)
		if (err == nil) != tc.ok {
			t.Errorf("parseListQuery(%q) error %v, want ok=%v", tc.query, err, tc.ok)
		}
	}
}
