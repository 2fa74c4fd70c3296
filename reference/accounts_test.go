package reference

import (
	"fmt"
	"net/url"
	"slices"
	"testing"

	"github.com/conform-kit/conform/reference/ledger"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMerchants(t *testing.T) {
	h := newHarness(t)
	fx := h.fx.Fixtures
	m := h.expect(h.call(h.merchant(), "GET", "/merchants/"+fx.Merchant, nil), 200, "merchant").json(t)
	details, _ := m["processor_details"].(map[string]any)
	assert.Equal(t, ledger.MaskedAPIKey, details["api_key"], "processor_details.api_key of the merchant")
	assert.Equal(t, true, m["level_two_level_three_data_enabled"], "level_two_level_three_data_enabled of the Level 3 merchant")
	r := h.expect(h.call(h.platform(), "PUT", "/merchants/"+fx.PlainMerchant, map[string]any{"level_two_level_three_data_enabled": true}), 200, "merchant")
	assert.Equal(t, true, r.json(t)["level_two_level_three_data_enabled"], "level_two_level_three_data_enabled after the platform's update")
	h.expect(h.call(h.other(), "PUT", "/merchants/"+fx.PlainMerchant, map[string]any{"level_two_level_three_data_enabled": false}), 404, "")
}

func TestSubscriptionAmounts(t *testing.T) {
	h := newHarness(t)
	fx := h.fx.Fixtures
	base := "/subscription/subscription_schedules/" + fx.SubscriptionSchedule + "/subscription_amounts/"
	update := func(id string, body map[string]any, status int) response {
		t.Helper()
		return h.expect(h.call(h.platform(), "PATCH", base+id, body), status, "subscription_amount")
	}
	tableForm := map[string]any{"amount_type": "FEE", "nickname": "Raised", "fee_amount_data": map[string]any{"amount": 3000}}
	next := update(fx.SubscriptionAmount, tableForm, 200).json(t)
	newID, _ := next["id"].(string)
	require.NotEqual(t, fx.SubscriptionAmount, newID, "id of the updated amount, want a new one: %v", next)
	data, _ := next["fee_amount_data"].(map[string]any)
	require.Equal(t, float64(3000), data["amount"], "fee_amount_data.amount of the updated amount: %v", next)
	assert.Equal(t, "UNPROCESSABLE_ENTITY", errorCode(t, update(newID, tableForm, 422)), "code of updating an amount an update produced")
	assert.Equal(t, "UNPROCESSABLE_ENTITY", errorCode(t, update(fx.SubscriptionAmount, tableForm, 422)), "code of updating an amount already updated")
	// The example's form: amount at the top level.
	created := h.expect(h.call(h.platform(), "POST", "/subscription/subscription_schedules/"+fx.SubscriptionSchedule+"/subscription_amounts",
		map[string]any{"amount_type": "FEE", "nickname": "Other", "amount": 1200, "fee_amount_data": map[string]any{"label": "Other"}}), 200, "subscription_amount").str(t, "id")
	topLevel := update(created, map[string]any{"amount_type": "FEE", "nickname": "Other", "amount": 1300, "fee_amount_data": map[string]any{}}, 200).json(t)
	data, _ = topLevel["fee_amount_data"].(map[string]any)
	assert.Equal(t, float64(1300), data["amount"], "fee_amount_data.amount after an update with a top-level amount")
	h.expect(h.call(h.platform(), "GET", "/subscription/subscription_schedules/SUBSCHEDULE_0000000000000000000000/subscription_amounts/"+created, nil), 404, "")
}

func TestEnrollments(t *testing.T) {
	h := newHarness(t)
	fx := h.fx.Fixtures
	sched := "/subscription/subscription_schedules/" + fx.SubscriptionSchedule + "/subscription_enrollments"
	var ids []string
	for i := range 5 {
		h.clock.Advance(1)
		r := h.expect(h.call(h.platform(), "POST", sched, map[string]any{
			"merchant": fx.Merchant, "nickname": fmt.Sprint("e", i), "started_at": "2026-04-01T00:00:00.000Z",
		}), 200, "subscription_enrollment")
		ids = append(ids, r.str(t, "id"))
	}
	got := h.call(h.platform(), "PUT", "/subscription/subscription_enrollments/"+ids[0], map[string]any{"nickname": "renamed", "ended_at": "2027-01-01T00:00:00.000Z"})
	m := h.expect(got, 200, "subscription_enrollment").json(t)
	assert.Equal(t, "renamed", m["nickname"], "nickname after the update")
	assert.NotNil(t, m["ended_at"], "ended_at after the update")
	h.expect(h.call(h.platform(), "DELETE", "/subscription/subscription_enrollments/"+ids[1], nil), 204, "")
	h.expect(h.call(h.platform(), "GET", "/subscription/subscription_enrollments/"+ids[1], nil), 404, "")
	h.expect(h.call(h.platform(), "DELETE", "/subscription/subscription_enrollments/"+ids[1], nil), 404, "")
	list := h.expect(h.call(h.platform(), "GET", sched+"?limit=2", nil), 200, "subscription_enrollment_list").json(t)
	page := list["page"].(map[string]any)
	items := list["_embedded"].(map[string]any)["subscription_enrollments"].([]any)
	assert.Equal(t, float64(4), page["count"], "page.count of 5 enrollments, one deleted")
	assert.Equal(t, float64(2), page["limit"], "page.limit")
	require.Len(t, items, 2, "items of a page of limit 2")
	assert.Equal(t, ids[4], items[0].(map[string]any)["id"], "first item, want the newest")
	links := list["_links"].(map[string]any)
	assert.NotNil(t, links["next"], "next link of the first page")
	assert.Nil(t, links["prev"], "prev link of the first page")
}

func TestListPaging(t *testing.T) {
	h := newHarness(t)
	for i := range 25 {
		if i%5 == 0 {
			h.clock.Advance(1) // several records share a created_at: id breaks the tie
		}
		h.expect(h.call(h.platform(), "POST", "/balance_transfers", map[string]any{
			"amount": 100 + i, "currency": "USD", "description": "t", "source": "OPERATING_ACCOUNT", "destination": "FOR_BENEFIT_OF_ACCOUNT",
		}), 201, "balance_transfer")
	}
	ids := func(query string) []string {
		t.Helper()
		m := h.expect(h.call(h.platform(), "GET", "/balance_transfers"+query, nil), 200, "balance_transfer_list").json(t)
		var out []string
		for _, it := range m["_embedded"].(map[string]any)["balance_transfers"].([]any) {
			out = append(out, it.(map[string]any)["id"].(string))
		}
		return out
	}
	all := ids("?limit=100")
	require.Len(t, all, 26, "balance transfers, 25 + the seeded one")
	reversed := ids("?limit=100&sort=created_at,asc&sort=id,asc")
	slices.Reverse(reversed)
	require.Equal(t, reversed, all, "default order, want the reverse of created_at,asc id,asc")
	assert.Equal(t, all[20:25], ids("?offset=20&limit=5"), "page of offset 20, limit 5")
	assert.Empty(t, ids("?offset=30"), "page past the end")
	assert.Equal(t, all[24:25], ids("?sort=amount,asc&limit=1"), "first of amount,asc, want the smallest")
	m := h.call(h.platform(), "GET", "/balance_transfers?offset=5&limit=5&sort=amount,asc", nil).json(t)
	self, _ := url.Parse(m["_links"].(map[string]any)["self"].(map[string]any)["href"].(string))
	q := self.Query()
	for key, want := range map[string]string{"offset": "5", "limit": "5", "sort": "amount,asc"} {
		assert.Equal(t, want, q.Get(key), "%s of the self link %s", key, self)
	}
	for _, rel := range []string{"next", "prev"} {
		assert.NotNil(t, m["_links"].(map[string]any)[rel], "%s link of the page at offset 5", rel)
	}
}
