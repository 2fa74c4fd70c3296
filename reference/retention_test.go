package reference

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/conform-kit/conform/reference/ledger"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestResourcesExpireByAge: what clients created is gone once MaxAge has
// passed (with what depends on it: a dispute's adjustments, a file's links,
// a schedule's enrollment list); seeded fixtures stay.
func TestResourcesExpireByAge(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.Limits = ledger.Limits{MaxAge: time.Hour} })
	fx := h.fx.Fixtures
	card := h.card()
	disputed := h.expect(h.call(h.platform(), "POST", "/transfers", map[string]any{"source": card, "merchant": fx.Merchant, "amount": ledger.AmountDisputed, "currency": "USD"}), 201, "transfer").str(t, "id")
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
	h.expect(h.call(ledger.Credential{}, "PUT", "/external_links/"+link+"/upload", "%PDF", "Content-Type", "application/pdf"), 404, "error")
	if got := h.call(h.platform(), "GET", "/disputes?limit=100", nil).json(t)["page"].(map[string]any)["count"]; got != disputes.(float64)-1 {
		t.Errorf("disputes count %v after expiry, want %v", got, disputes.(float64)-1)
	}
	h.expect(h.call(h.platform(), "GET", "/payment_instruments/"+fresh, nil), 200, "")
	for _, path := range []string{"/disputes/" + fx.Dispute, "/merchants/" + fx.Merchant, "/balance_transfers/" + fx.BalanceTransfer, "/subscription/subscription_schedules/" + fx.SubscriptionSchedule} {
		h.expect(h.call(h.platform(), "GET", path, nil), 200, "")
	}
	idemLeft := h.srv.memory().Counts()["idem"]
	if idemLeft != 0 {
		t.Errorf("%d idempotency keys kept past MaxAge", idemLeft)
	}
	idem["source"] = fresh
	h.expect(h.call(h.platform(), "POST", "/transfers", idem), 201, "") // the key is free again
}

// TestFullQuotaIs429AndKeepsEverything: an application at MaxRetained
// resources gets 429 QUOTA_EXCEEDED in the envelope for one more, and every
// resource it made before is still there; nothing is evicted. Another
// application is not affected, and a resource reaching its age frees room.
func TestFullQuotaIs429AndKeepsEverything(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.Limits = ledger.Limits{MaxAge: time.Hour, MaxRetained: 5} })
	var cards []string
	for range 5 {
		h.clock.Advance(time.Millisecond)
		cards = append(cards, h.card())
	}
	for i := range 3 {
		r := h.call(h.platform(), "POST", "/payment_instruments", cardBody(h.fx.Fixtures.BuyerIdentity, "4111111111111111"))
		h.expect(r, 429, "error")
		assert.Equal(t, "QUOTA_EXCEEDED", errorCode(t, r), "refusal %d", i)
	}
	for i, id := range cards {
		assert.Equal(t, 200, h.call(h.platform(), "GET", "/payment_instruments/"+id, nil).status, "card %d of a full quota", i)
	}
	sale := h.call(h.platform(), "POST", "/transfers", map[string]any{"source": cards[0], "merchant": h.fx.Fixtures.Merchant, "amount": 100, "currency": "USD"})
	h.expect(sale, 429, "error")
	h.expect(h.call(h.other(), "POST", "/webhooks", map[string]any{"url": "https://hooks.example.invalid/o", "enabled": false}), 201, "webhook")

	h.clock.Advance(time.Hour - 4*time.Millisecond + time.Microsecond) // the first card is just over an hour old
	fresh := h.card()
	assert.Equal(t, 404, h.call(h.platform(), "GET", "/payment_instruments/"+cards[0], nil).status, "the card past its age")
	for i, id := range append(cards[1:], fresh) {
		assert.Equal(t, 200, h.call(h.platform(), "GET", "/payment_instruments/"+id, nil).status, "card %d younger than its age", i+1)
	}
}

// TestExpiryOnlyRemovesWhatIsOlderThanItsAge: a sweep drops exactly the
// resources created before now − MaxAge, whatever else is held.
func TestExpiryOnlyRemovesWhatIsOlderThanItsAge(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.Limits = ledger.Limits{MaxAge: time.Hour} })
	ages := []time.Duration{90 * time.Minute, 61 * time.Minute, 59 * time.Minute, 30 * time.Minute, time.Second}
	ids := make([]string, len(ages))
	start := h.clock.Now()
	for i, age := range ages {
		h.clock.Advance(start.Add(2*time.Hour - age).Sub(h.clock.Now()))
		ids[i] = h.card()
	}
	h.clock.Advance(start.Add(2 * time.Hour).Sub(h.clock.Now()))
	h.srv.memory().Sweep(context.Background(), h.srv.now(), 0) // expires; idle 0 drops no namespace
	for i, age := range ages {
		want := 200
		if age > time.Hour {
			want = 404
		}
		assert.Equal(t, want, h.call(h.platform(), "GET", "/payment_instruments/"+ids[i], nil).status, "a card %s old", age)
	}
}

// TestByteQuotaIs429: the memory estimate of one application's resources is
// a quota too: a create that would pass it is refused and the earlier
// resources stay.
func TestByteQuotaIs429(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.Limits = ledger.Limits{MaxAge: -1, MaxBytes: 3 * ledger.Cost(1200)} })
	create := func(i int) response {
		return h.call(h.platform(), "POST", "/files", map[string]any{
			"display_name": fmt.Sprint(i, strings.Repeat("n", 1100)), "linked_to": h.fx.Fixtures.Merchant, "type": "PASSPORT",
		})
	}
	var files []string
	for i := range 3 {
		files = append(files, h.expect(create(i), 200, "").str(t, "id"))
	}
	r := h.expect(create(3), 429, "error")
	assert.Equal(t, "QUOTA_EXCEEDED", errorCode(t, r))
	for i, id := range files {
		assert.Equal(t, 200, h.call(h.platform(), "GET", "/files/"+id, nil).status, "file %d", i)
	}
	page := h.call(h.platform(), "GET", "/files?limit=100", nil).json(t)["page"].(map[string]any)
	assert.EqualValues(t, 3, page["count"], "files listed after the refusal")
}

// TestIdempotencyKeysAreAQuota: a new idempotency key beyond MaxRetained is
// 429 rather than forgetting an older key (which would let its retry run
// twice); a retry of a held key still replays.
func TestIdempotencyKeysAreAQuota(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.Limits = ledger.Limits{MaxAge: -1, MaxRetained: 2} })
	body := func(key string) map[string]any {
		return map[string]any{"source": "PIunknown", "merchant": h.fx.Fixtures.Merchant, "amount": 100, "currency": "USD", "idempotency_id": key}
	}
	first := h.call(h.platform(), "POST", "/transfers", body("k1"))
	require.NotEqual(t, 429, first.status, "the first key")
	h.call(h.platform(), "POST", "/transfers", body("k2"))
	r := h.expect(h.call(h.platform(), "POST", "/transfers", body("k3")), 429, "error")
	assert.Equal(t, "QUOTA_EXCEEDED", errorCode(t, r))
	again := h.call(h.platform(), "POST", "/transfers", body("k1"))
	assert.Equal(t, first.status, again.status, "the retry of a held key replays")
	assert.Equal(t, first.header.Get("X-Request-Id"), again.header.Get("X-Request-Id"), "the retry replays the first answer")
}

// TestQuotasAre429: per-application caps answer 429 QUOTA_EXCEEDED in the
// envelope; another application is not affected.
func TestQuotasAre429(t *testing.T) {
	h := newHarness(t, func(c *Config) {
		c.Limits = ledger.Limits{MaxAge: -1, CreatesPerMinute: 5, Webhooks: 2, UploadBytes: 10, Tags: 2}
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
// shed what ages out, so a steady creator keeps them bounded.
func TestRetentionBoundsMemory(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.Limits = ledger.Limits{MaxAge: time.Minute} })
	st := h.srv.memory()
	for i := range 400 {
		h.clock.Advance(time.Second)
		h.expect(h.call(h.platform(), "POST", "/transfers", map[string]any{
			"source": h.fx.Fixtures.BuyerIdentity, "merchant": h.fx.Fixtures.Merchant, "amount": 100, "currency": "USD", "idempotency_id": fmt.Sprint("k", i),
		}), 422, "")
		h.card()
	}
	platform := appOf(t, h, h.fx.Credentials.Platform)
	app := st.RetentionOf(platform)
	assert.LessOrEqual(t, app.Live, 61, "resources held a minute")
	assert.LessOrEqual(t, app.Queue, 2*61+64, "retention queue")
	assert.LessOrEqual(t, app.IdemOrder, 2*61+64, "idempotency order")
	assert.LessOrEqual(t, app.IdemKeys, 61, "idempotency keys held")
	assert.Equal(t, app.Idem, app.IdemKeys, "keys counted")
}

// appOf returns the application id of a seeded user.
func appOf(t *testing.T, h *harness, c ledger.Credential) string {
	t.Helper()
	u, ok := h.srv.memory().User(context.Background(), c.Username, h.srv.now())
	if !ok {
		t.Fatalf("no user %s", c.Username)
	}
	return u.App
}
