package reference

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/conform-kit/conform/reference/ledger"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// in returns a harness on the same server whose fixtures and credentials
// are namespace ns's.
func (h *harness) in(ns ledger.Namespace) *harness {
	return &harness{t: h.t, srv: h.srv, clock: h.clock, fx: ns.Seeded, v: h.v}
}

// work creates one of most kinds of resource in h's application (a card,
// a sale, an authorization and its capture, a disputed sale, a file with a
// link, a webhook, an idempotent transfer) and returns their paths.
func (h *harness) work(tag string) []string {
	h.t.Helper()
	fx := h.fx.Fixtures
	card := h.card()
	sale := h.expect(h.call(h.platform(), "POST", "/transfers", map[string]any{"source": card, "merchant": fx.Merchant, "amount": 500, "currency": "USD", "idempotency_id": "once-" + tag}), 201, "transfer").str(h.t, "id")
	disputed := h.expect(h.call(h.platform(), "POST", "/transfers", map[string]any{"source": card, "merchant": fx.Merchant, "amount": ledger.AmountDisputed, "currency": "USD"}), 201, "transfer").str(h.t, "id")
	auth := h.expect(h.call(h.platform(), "POST", "/authorizations", map[string]any{"source": card, "merchant": fx.Merchant, "amount": 900, "currency": "USD"}), 201, "").str(h.t, "id")
	h.expect(h.call(h.platform(), "PUT", "/authorizations/"+auth, map[string]any{"capture_amount": 900}), 200, "")
	file := h.newFile("Passport " + tag)
	link := h.expect(h.call(h.platform(), "POST", "/files/"+file+"/external_links", map[string]any{"type": "UPLOAD"}), 200, "").str(h.t, "id")
	wh := h.webhook("http://127.0.0.1:9/"+tag, map[string]any{"enabled": false})["id"].(string)
	return []string{
		"/payment_instruments/" + card, "/transfers/" + sale, "/transfers/" + disputed, "/authorizations/" + auth,
		"/files/" + file, "/files/" + file + "/external_links/" + link, "/webhooks/" + wh,
		"/disputes/" + fx.Dispute, "/merchants/" + fx.Merchant, "/balance_transfers/" + fx.BalanceTransfer,
		"/subscription/subscription_schedules/" + fx.SubscriptionSchedule,
	}
}

// TestConcurrentNamespacesSeeNothingOfEachOther: two namespaces minted and
// used at once each have their own users and fixtures; neither, nor the
// seeded applications, can read or list what the other made.
func TestConcurrentNamespacesSeeNothingOfEachOther(t *testing.T) {
	h := newHarness(t)
	var wg sync.WaitGroup
	nss := make([]ledger.Namespace, 2)
	paths := make([][]string, 2)
	for i := range nss {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ns, err := h.srv.CreateNamespace()
			if !assert.NoError(t, err, "namespace %d", i) {
				return
			}
			nss[i] = ns
			paths[i] = h.in(ns).work(fmt.Sprint("ns", i))
		}()
	}
	wg.Wait()
	require.False(t, t.Failed())
	a, b := nss[0], nss[1]
	assert.NotEqual(t, a.ID, b.ID)
	assert.NotEqual(t, a.Credentials.Platform, b.Credentials.Platform)
	assert.NotEqual(t, a.Fixtures.Merchant, b.Fixtures.Merchant)
	assert.NotEqual(t, h.fx.Fixtures.Dispute, a.Fixtures.Dispute)

	for i, ns := range nss {
		own, other := h.in(ns), h.in(nss[1-i])
		for _, p := range paths[i] {
			assert.Equal(t, 200, own.call(own.platform(), "GET", p, nil).status, "namespace %d reads its own %s", i, p)
			assert.Equal(t, 404, other.call(other.platform(), "GET", p, nil).status, "namespace %d's %s from the other namespace", i, p)
			assert.Equal(t, 404, other.call(other.other(), "GET", p, nil).status, "namespace %d's %s from the other's second application", i, p)
			assert.Equal(t, 404, h.call(h.platform(), "GET", p, nil).status, "namespace %d's %s from the seeded application", i, p)
		}
		for _, list := range []string{"/disputes", "/files", "/webhooks", "/balance_transfers"} {
			page := own.call(own.platform(), "GET", list+"?limit=100", nil).json(t)["page"].(map[string]any)
			seeded := h.call(h.platform(), "GET", list+"?limit=100", nil).json(t)["page"].(map[string]any)
			switch list {
			case "/disputes":
				assert.EqualValues(t, 2, page["count"], "namespace %d: its seeded dispute and the one its sale opened", i)
			case "/balance_transfers":
				assert.EqualValues(t, 1, page["count"], "namespace %d: its seeded balance transfer", i)
			default:
				assert.EqualValues(t, 1, page["count"], "namespace %d lists only its own %s", i, list)
			}
			assert.Equal(t, seeded["count"], h.call(h.platform(), "GET", list+"?limit=100", nil).json(t)["page"].(map[string]any)["count"])
		}
		// The other namespace's merchant is not found from this one.
		r := own.call(own.platform(), "POST", "/transfers", map[string]any{"source": own.card(), "merchant": other.fx.Fixtures.Merchant, "amount": 100, "currency": "USD"})
		assert.Equal(t, 422, r.status, "namespace %d selling through the other's merchant", i)
	}
	for _, list := range []string{"/files", "/webhooks"} {
		assert.EqualValues(t, 0, h.call(h.platform(), "GET", list+"?limit=100", nil).json(t)["page"].(map[string]any)["count"], "the seeded application's %s", list)
	}
}

// TestDropNamespaceRemovesEverything: after a drop the store holds exactly
// what it held before the namespace was minted, and its users are 401.
func TestDropNamespaceRemovesEverything(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.Limits = ledger.Limits{MaxAge: 24 * time.Hour} })
	h.work("seeded") // the seeded application's own resources stay
	settled(t, h)    // its disputed sale's second adjustment is made by a timer
	before := h.srv.memory().Counts()
	ns, err := h.srv.CreateNamespace()
	require.NoError(t, err)
	in := h.in(ns)
	paths := in.work("dropped")
	require.Equal(t, 1, h.srv.NamespaceCount())
	during := h.srv.memory().Counts()
	assert.Greater(t, during["transfers"], before["transfers"])

	require.NoError(t, h.srv.DropNamespace(ns.ID))
	assert.Equal(t, before, h.srv.memory().Counts(), "the store after the drop")
	assert.Equal(t, 401, in.call(in.platform(), "GET", paths[0], nil).status, "a dropped namespace's user")
	assert.Equal(t, 401, in.call(in.other(), "GET", "/disputes", nil).status, "a dropped namespace's other application")
	err = h.srv.DropNamespace(ns.ID)
	assert.True(t, ErrNamespaceNotFound(err), "dropping twice: %v", err)
	h.work("after") // the rest of the sandbox works on
}

// settled waits until no dispute is in INQUIRY: the review timer has made
// every adjustment it will.
func settled(t *testing.T, h *harness) {
	t.Helper()
	eventually(t, "disputes out of INQUIRY", func() bool {
		for _, d := range held(h.srv.memory()).disputes.got {
			if d.State == "INQUIRY" {
				return false
			}
		}
		return true
	})
}

// TestIdleNamespacesAreDropped: a namespace nobody authenticated into for
// the idle TTL is dropped by the sweep; one used within it stays.
func TestIdleNamespacesAreDropped(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.NamespaceIdleTTL = time.Hour })
	idle, err := h.srv.CreateNamespace()
	require.NoError(t, err)
	idle2, err := h.srv.CreateNamespace()
	require.NoError(t, err)
	busy, err := h.srv.CreateNamespace()
	require.NoError(t, err)
	h.clock.Advance(50 * time.Minute)
	b := h.in(busy)
	b.card()
	h.clock.Advance(20 * time.Minute)
	h.srv.memory().Sweep(context.Background(), h.srv.now(), h.srv.cfg.NamespaceIdleTTL) // expires nothing: no age limit
	assert.Equal(t, 1, h.srv.NamespaceCount())
	assert.True(t, ErrNamespaceNotFound(h.srv.DropNamespace(idle.ID)), "the idle namespace was dropped")
	assert.True(t, ErrNamespaceNotFound(h.srv.DropNamespace(idle2.ID)), "the second idle namespace was dropped in the same sweep")
	assert.Equal(t, 401, b.call(idle2.Credentials.Platform, "GET", "/disputes/"+idle2.Fixtures.Dispute, nil).status, "a dropped namespace's credentials")
	assert.Equal(t, 200, b.call(b.platform(), "GET", "/disputes/"+busy.Fixtures.Dispute, nil).status, "the namespace used 20 minutes ago")
}

// TestNamespaceQuota: beyond MaxNamespaces a mint is QUOTA_EXCEEDED; a drop
// frees room. Namespace fixtures never count against the resource quota.
func TestNamespaceQuota(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.MaxNamespaces = 2; c.Limits = ledger.Limits{MaxAge: -1, MaxRetained: 1} })
	first, err := h.srv.CreateNamespace()
	require.NoError(t, err)
	_, err = h.srv.CreateNamespace()
	require.NoError(t, err)
	_, err = h.srv.CreateNamespace()
	var de *ledger.DomainError
	require.ErrorAs(t, err, &de)
	assert.Equal(t, ledger.KindQuotaExceeded, de.Kind)
	require.NoError(t, h.srv.DropNamespace(first.ID))
	third, err := h.srv.CreateNamespace()
	require.NoError(t, err)
	h.in(third).card() // the one resource its quota allows: the seeded fixtures did not count
}

// TestDropNamespaceFreesMemory: the live heap after a namespace holding
// thousands of resources is dropped is back near where it was before.
func TestDropNamespaceFreesMemory(t *testing.T) {
	srv, err := New(Config{BaseURL: testBase, Seed: 7, Limits: ledger.Limits{CreatesPerMinute: -1}})
	require.NoError(t, err)
	defer srv.Close()
	heap := func() uint64 {
		runtime.GC()
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	post := func(c ledger.Credential, path string, body any) int {
		b, _ := json.Marshal(body)
		req := httptest.NewRequest("POST", testBase+path, bytes.NewReader(b))
		req.Header.Set("Content-Type", "application/vnd.json+api")
		req.SetBasicAuth(c.Username, c.Password)
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		return rec.Code
	}
	before := heap()
	ns, err := srv.CreateNamespace()
	require.NoError(t, err)
	body := cardBody(ns.Fixtures.BuyerIdentity, "4111111111111111")
	body["tags"] = map[string]any{"note": string(bytes.Repeat([]byte("x"), 400))}
	for i := range 4000 {
		body["name"] = fmt.Sprint("Buyer ", i)
		require.Equal(t, http.StatusCreated, post(ns.Credentials.Platform, "/payment_instruments", body), "card %d", i)
	}
	during := heap()
	require.NoError(t, srv.DropNamespace(ns.ID))
	after := heap()
	grown := int64(during) - int64(before)
	left := int64(after) - int64(before)
	t.Logf("heap before %d KiB, with the namespace %d KiB, after the drop %d KiB", before>>10, during>>10, after>>10)
	require.Greater(t, grown, int64(2<<20), "4,000 cards should take megabytes")
	assert.Less(t, left, grown/10, "the drop should free at least 90%% of what the namespace took")
}

// TestRequestsInFlightWhenTheirNamespaceIsDropped: a request that
// authenticated before its namespace was dropped gets a refusal or an empty
// page, never a panic: creates are 404, lists are empty.
func TestRequestsInFlightWhenTheirNamespaceIsDropped(t *testing.T) {
	h := newHarness(t)
	ns, err := h.srv.CreateNamespace()
	require.NoError(t, err)
	u, ok := h.srv.memory().User(context.Background(), ns.Credentials.Platform.Username, h.srv.now())
	require.True(t, ok)
	require.NoError(t, h.srv.DropNamespace(ns.ID))

	err = h.srv.units.Update(context.Background(), u.App, func(t ledger.Tx) error {
		_, err := ledger.CreateCard(t, ledger.CardCreate{Type: "PAYMENT_CARD", Number: "4111111111111111", Identity: ns.Fixtures.BuyerIdentity})
		return err
	})
	var de *ledger.DomainError
	if assert.ErrorAs(t, err, &de, "a create") {
		assert.Equal(t, ledger.KindNotFound, de.Kind, "a create")
	}
	for _, op := range []string{"disputes.list", "files.list", "webhooks.list", "balance_transfers.list", "subscription_enrollments.list"} {
		found := false
		for _, o := range h.srv.v.Operations() {
			if o.ID != op {
				continue
			}
			found = true
			path := strings.ReplaceAll(o.Path, "{id}", "x")
			rq := &request{r: httptest.NewRequest("GET", testBase+path, nil), op: o, user: u, base: testBase, now: h.srv.now()}
			out, err := h.srv.handlers()[op](rq)
			require.NoError(t, err, op)
			assert.Equal(t, 0, out.(listEnvelope).Page.Count, op)
		}
		assert.True(t, found, "operation %s", op)
	}
}
