package reference

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestResourcesExpireByAge: what clients created is gone once MaxAge has
// passed (with what depends on it: a dispute's adjustments, a file's links,
// a schedule's enrollment list); seeded fixtures stay.
func TestResourcesExpireByAge(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.Limits = Limits{MaxAge: time.Hour} })
	fx := h.fx.Fixtures
	card := h.card()
	disputed := h.expect(h.call(h.platform(), "POST", "/transfers", map[string]any{"source": card, "merchant": fx.Merchant, "amount": amountDisputed, "currency": "USD"}), 201, "transfer").str(t, "id")
	file := h.newFile("Passport")
	link := h.expect(h.call(h.platform(), "POST", "/files/"+file+"/external_links", map[string]any{"type": "UPLOAD"}), 200, "").str(t, "id")
	wh := h.webhook("http://127.0.0.1:9/hook", map[string]any{"enabled": false})["id"].(string)
	sched := h.expect(h.call(h.platform(), "POST", "/subscription/subscription_schedules", map[string]any{
		"line_item_type": "FEE", "nickname": "Monthly", "subscription_type": "PERIODIC_MONTHLY", "period_offset": map[string]any{"day": 1},
	}), 200, "").str(t, "id")
	h.expect(h.call(h.platform(), "POST", "/subscription/subscription_schedules/"+sched+"/subscription_enrollments", map[string]any{"merchant": fx.Merchant, "nickname": "e"}), 200, "")
	idem := map[string]any{"source": card, "merchant": fx.Merchant, "amount": 700, "currency": "USD", "idempotency_id": "kept-an-hour"}
	h.expect(h.call(h.platform(), "POST", "/transfers", idem), 201, "")
	disputes := h.call(h.platform(), "GET", "/disputes?limit=100", nil).json(t)["page"].(map[string]any)["count"]

	h.clock.Advance(time.Hour + time.Second)
	fresh := h.card() // a create sweeps what has expired

	for _, path := range []string{
		"/payment_instruments/" + card, "/transfers/" + disputed, "/files/" + file,
		"/files/" + file + "/external_links/" + link, "/webhooks/" + wh, "/subscription/subscription_schedules/" + sched,
	} {
		h.expect(h.call(h.platform(), "GET", path, nil), 404, "error")
	}
	h.expect(h.call(Credential{}, "PUT", "/external_links/"+link+"/upload", "%PDF", "Content-Type", "application/pdf"), 404, "error")
	if got := h.call(h.platform(), "GET", "/disputes?limit=100", nil).json(t)["page"].(map[string]any)["count"]; got != disputes.(float64)-1 {
		t.Errorf("disputes count %v after expiry, want %v", got, disputes.(float64)-1)
	}
	h.expect(h.call(h.platform(), "GET", "/payment_instruments/"+fresh, nil), 200, "")
	for _, path := range []string{"/disputes/" + fx.Dispute, "/merchants/" + fx.Merchant, "/balance_transfers/" + fx.BalanceTransfer, "/subscription/subscription_schedules/" + fx.SubscriptionSchedule} {
		h.expect(h.call(h.platform(), "GET", path, nil), 200, "")
	}
	h.srv.st.mu.Lock()
	idemLeft := len(h.srv.st.idem)
	h.srv.st.mu.Unlock()
	if idemLeft != 0 {
		t.Errorf("%d idempotency keys kept past MaxAge", idemLeft)
	}
	idem["source"] = fresh
	h.expect(h.call(h.platform(), "POST", "/transfers", idem), 201, "") // the key is free again
}

// TestOldestDropFirstBeyondMaxRetained: the server keeps the newest
// MaxRetained client-created resources.
func TestOldestDropFirstBeyondMaxRetained(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.Limits = Limits{MaxAge: -1, MaxRetained: 5} })
	var cards []string
	for range 8 {
		h.clock.Advance(time.Millisecond)
		cards = append(cards, h.card())
	}
	for i, id := range cards {
		want := 200
		if i < 3 {
			want = 404
		}
		h.expect(h.call(h.platform(), "GET", "/payment_instruments/"+id, nil), want, "")
	}
}

// TestQuotasAre429: per-application caps answer 429 QUOTA_EXCEEDED in the
// envelope; another application is not affected.
func TestQuotasAre429(t *testing.T) {
	h := newHarness(t, func(c *Config) {
		c.Limits = Limits{MaxAge: -1, CreatesPerMinute: 5, Webhooks: 2, UploadBytes: 10, Tags: 2}
	})
	fx := h.fx.Fixtures
	quota := func(r response, what string) {
		t.Helper()
		h.expect(r, 429, "error")
		if code := errorCode(t, r); code != "QUOTA_EXCEEDED" {
			t.Errorf("%s: code %s, want QUOTA_EXCEEDED", what, code)
		}
	}
	tagged := cardBody(fx.BuyerIdentity, "4111111111111111")
	tagged["tags"] = map[string]any{"a": "1", "b": "2", "c": "3"}
	quota(h.call(h.platform(), "POST", "/payment_instruments", tagged), "three tags")
	quota(h.call(h.platform(), "POST", "/files", map[string]any{"display_name": "x", "linked_to": fx.Merchant, "type": "PASSPORT", "tags": map[string]any{"a": "1", "b": "2", "c": "3"}}), "three tags on a file")

	// The webhook quota bounds enabled webhooks: a disabled one does not count.
	h.webhook("https://hooks.example.invalid/1", map[string]any{"enabled": false})
	h.webhook("https://hooks.example.invalid/2", nil)
	h.webhook("https://hooks.example.invalid/3", nil)
	quota(h.call(h.platform(), "POST", "/webhooks", map[string]any{"url": "https://hooks.example.invalid/4"}), "third enabled webhook")

	file := h.newFile("Big")
	ct, body := multipartBody(t, "big.pdf", "application/pdf", []byte("eleven byte"))
	quota(h.call(h.platform(), "POST", "/files/"+file+"/upload", body, "Content-Type", ct), "upload over the byte quota")

	h.card() // the fifth resource this minute
	quota(h.call(h.platform(), "POST", "/payment_instruments", cardBody(fx.BuyerIdentity, "4111111111111111")), "sixth resource in a minute")
	other := h.call(h.other(), "POST", "/webhooks", map[string]any{"url": "https://hooks.example.invalid/other", "enabled": false})
	h.expect(other, 201, "webhook")
	h.clock.Advance(time.Minute)
	h.card() // a new minute
}

// TestRetentionBoundsMemory: the retention queue and the idempotency order
// do not grow past MaxRetained however many resources are created.
func TestRetentionBoundsMemory(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.Limits = Limits{MaxAge: -1, MaxRetained: 50} })
	st := h.srv.st
	st.mu.Lock()
	seeded := len(st.transfers) + len(st.cards)
	st.mu.Unlock()
	for i := range 400 {
		h.expect(h.call(h.platform(), "POST", "/transfers", map[string]any{
			"source": h.card(), "merchant": h.fx.Fixtures.Merchant, "amount": 100, "currency": "USD", "idempotency_id": fmt.Sprint("k", i),
		}), 201, "")
	}
	platform := h.fx.Credentials.Platform.app(t, h)
	st.mu.Lock()
	defer st.mu.Unlock()
	app := st.retention.apps[platform]
	if n := app.live(); n != 50 {
		t.Errorf("%d resources retained, want 50", n)
	}
	if len(app.queue) > 2*50+64 || len(st.idemOrder) > 2*50+64 || len(st.idem) > 50 {
		t.Errorf("queue %d, idempotency order %d, keys %d: not bounded", len(app.queue), len(st.idemOrder), len(st.idem))
	}
	if kept := len(st.transfers) + len(st.cards) - seeded; kept != 50 {
		t.Errorf("%d cards and transfers kept besides the seeded ones, want 50", kept)
	}
}

// TestOldestDropFirstBeyondMaxBytes: the memory estimate of one
// application's resources is bounded too; large bodies push out the oldest.
func TestOldestDropFirstBeyondMaxBytes(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.Limits = Limits{MaxAge: -1, MaxBytes: 3 * cost(1200)} })
	var files []string
	for i := range 5 {
		h.clock.Advance(time.Millisecond)
		files = append(files, h.expect(h.call(h.platform(), "POST", "/files", map[string]any{
			"display_name": fmt.Sprint(i, strings.Repeat("n", 1100)), "linked_to": h.fx.Fixtures.Merchant, "type": "PASSPORT",
		}), 200, "").str(t, "id"))
	}
	for i, id := range files {
		want := 200
		if i < 2 {
			want = 404
		}
		h.expect(h.call(h.platform(), "GET", "/files/"+id, nil), want, "")
	}
}

// app returns the application id of a seeded user.
func (c Credential) app(t *testing.T, h *harness) string {
	t.Helper()
	u, ok := h.srv.st.user(c.Username)
	if !ok {
		t.Fatalf("no user %s", c.Username)
	}
	return u.app
}
