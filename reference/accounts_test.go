package reference

import (
	"fmt"
	"net/url"
	"testing"
)

func TestMerchants(t *testing.T) {
	h := newHarness(t)
	fx := h.fx.Fixtures
	m := h.expect(h.call(h.merchant(), "GET", "/merchants/"+fx.Merchant, nil), 200, "merchant").json(t)
	if key := m["processor_details"].(map[string]any)["api_key"]; key != maskedAPIKey {
		t.Errorf("api_key %v, want %s", key, maskedAPIKey)
	}
	if m["level_two_level_three_data_enabled"] != true {
		t.Error("the Level 3 merchant is not enabled")
	}
	r := h.expect(h.call(h.platform(), "PUT", "/merchants/"+fx.PlainMerchant, map[string]any{"level_two_level_three_data_enabled": true}), 200, "merchant")
	if r.json(t)["level_two_level_three_data_enabled"] != true {
		t.Error("platform update did not enable Level 3")
	}
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
	newID := next["id"].(string)
	if newID == fx.SubscriptionAmount || next["fee_amount_data"].(map[string]any)["amount"] != float64(3000) {
		t.Fatalf("update returned %v, want a new id and amount 3000", next)
	}
	if r := update(newID, tableForm, 422); errorCode(t, r) != "UNPROCESSABLE_ENTITY" {
		t.Error("an amount produced by an update was updated again")
	}
	if r := update(fx.SubscriptionAmount, tableForm, 422); errorCode(t, r) != "UNPROCESSABLE_ENTITY" {
		t.Error("an amount already updated was updated again")
	}
	// The example's form: amount at the top level.
	created := h.expect(h.call(h.platform(), "POST", "/subscription/subscription_schedules/"+fx.SubscriptionSchedule+"/subscription_amounts",
		map[string]any{"amount_type": "FEE", "nickname": "Other", "amount": 1200, "fee_amount_data": map[string]any{"label": "Other"}}), 200, "subscription_amount").str(t, "id")
	topLevel := update(created, map[string]any{"amount_type": "FEE", "nickname": "Other", "amount": 1300, "fee_amount_data": map[string]any{}}, 200).json(t)
	if topLevel["fee_amount_data"].(map[string]any)["amount"] != float64(1300) {
		t.Errorf("top-level amount ignored: %v", topLevel["fee_amount_data"])
	}
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
	if m := h.expect(got, 200, "subscription_enrollment").json(t); m["nickname"] != "renamed" || m["ended_at"] == nil {
		t.Errorf("update: %v", m)
	}
	h.expect(h.call(h.platform(), "DELETE", "/subscription/subscription_enrollments/"+ids[1], nil), 204, "")
	h.expect(h.call(h.platform(), "GET", "/subscription/subscription_enrollments/"+ids[1], nil), 404, "")
	h.expect(h.call(h.platform(), "DELETE", "/subscription/subscription_enrollments/"+ids[1], nil), 404, "")
	list := h.expect(h.call(h.platform(), "GET", sched+"?limit=2", nil), 200, "subscription_enrollment_list").json(t)
	page := list["page"].(map[string]any)
	items := list["_embedded"].(map[string]any)["subscription_enrollments"].([]any)
	if page["count"] != float64(4) || page["limit"] != float64(2) || len(items) != 2 {
		t.Fatalf("page %v with %d items, want count 4 limit 2", page, len(items))
	}
	if first := items[0].(map[string]any)["id"]; first != ids[4] {
		t.Errorf("first item %v, want newest %s", first, ids[4])
	}
	links := list["_links"].(map[string]any)
	if links["next"] == nil || links["prev"] != nil {
		t.Errorf("links %v: want next and no prev on the first page", links)
	}
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
	if len(all) != 26 {
		t.Fatalf("%d items, want 26 (25 + seeded)", len(all))
	}
	asc := ids("?limit=100&sort=created_at,asc&sort=id,asc")
	for i := range all {
		if all[i] != asc[len(asc)-1-i] {
			t.Fatalf("default order is not the reverse of created_at,asc id,asc at %d", i)
		}
	}
	if got := ids("?offset=20&limit=5"); len(got) != 5 || got[0] != all[20] {
		t.Errorf("offset 20 page %v, want from %s", got, all[20])
	}
	if got := ids("?offset=30"); len(got) != 0 {
		t.Errorf("past the end: %v", got)
	}
	if byAmount := ids("?sort=amount,asc&limit=1"); byAmount[0] != all[24] {
		t.Errorf("amount,asc first %s, want the smallest %s", byAmount[0], all[24])
	}
	m := h.call(h.platform(), "GET", "/balance_transfers?offset=5&limit=5&sort=amount,asc", nil).json(t)
	self, _ := url.Parse(m["_links"].(map[string]any)["self"].(map[string]any)["href"].(string))
	if q := self.Query(); q.Get("offset") != "5" || q.Get("limit") != "5" || q.Get("sort") != "amount,asc" {
		t.Errorf("self link query %v", q)
	}
	for _, rel := range []string{"next", "prev"} {
		if m["_links"].(map[string]any)[rel] == nil {
			t.Errorf("no %s link", rel)
		}
	}
}
