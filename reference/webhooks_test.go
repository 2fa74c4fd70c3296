package reference

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/conform-kit/conform/reference/ledger"
)

// delivery is one request the test receiver got.
type delivery struct {
	signature     string
	authorization string
	path          string
	body          []byte
}

// receiver is a webhook endpoint answering fail times with 500, then 200.
func receiver(t *testing.T, fail int32) (*httptest.Server, chan delivery, *atomic.Int32) {
	t.Helper()
	got := make(chan delivery, 64)
	var attempts atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if attempts.Add(1) <= fail {
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		got <- delivery{signature: r.Header.Get("Finix-Signature"), authorization: r.Header.Get("Authorization"), path: r.URL.Path, body: body}
	}))
	t.Cleanup(srv.Close)
	return srv, got, &attempts
}

func (h *harness) webhook(url string, extra map[string]any) map[string]any {
	h.t.Helper()
	body := map[string]any{"url": url}
	for k, v := range extra {
		body[k] = v
	}
	return h.expect(h.call(h.platform(), "POST", "/webhooks", body), 201, "webhook").json(h.t)
}

func waitDelivery(t *testing.T, ch chan delivery, want func(event) bool) (delivery, event) {
	t.Helper()
	deadline := time.After(5 * time.Second)
	for {
		select {
		case d := <-ch:
			var ev event
			if err := json.Unmarshal(d.body, &ev); err != nil {
				t.Fatalf("event body %s: %v", d.body, err)
			}
			if want(ev) {
				return d, ev
			}
		case <-deadline:
			t.Fatal("timed out waiting for a webhook delivery")
		}
	}
}

func TestWebhookFileUploadedEvent(t *testing.T) {
	srv, got, _ := receiver(t, 0)
	h := newHarness(t, func(c *Config) { c.WebhookClient = srv.Client() })
	wh := h.webhook(srv.URL+"/hook", map[string]any{"enabled_events": []any{map[string]any{"entity": "file", "types": []any{"updated"}}}})
	secret, _ := wh["secret_signing_key"].(string)
	if !regexp.MustCompile(`^[0-9a-f]{64}$`).MatchString(secret) {
		t.Fatalf("secret_signing_key %q is not 64 hex", secret)
	}
	id := h.newFile("Passport")
	ct, body := multipartBody(t, "p.pdf", "application/pdf", []byte("%PDF"))
	h.expect(h.call(h.platform(), "POST", "/files/"+id+"/upload", body, "Content-Type", ct), 200, "file")
	d, ev := waitDelivery(t, got, func(ev event) bool {
		files, _ := json.Marshal(ev.Embedded["files"])
		return regexp.MustCompile(`"status":"UPLOADED"`).Match(files)
	})
	if ev.Type != "updated" || ev.Entity != "file" || !regexp.MustCompile(`^EV`).MatchString(ev.ID) {
		t.Errorf("event %s %s %s", ev.ID, ev.Type, ev.Entity)
	}
	m := regexp.MustCompile(`^timestamp=(\d+), sig=([0-9a-f]{64})$`).FindStringSubmatch(d.signature)
	if m == nil {
		t.Fatalf("Finix-Signature %q", d.signature)
	}
	ts, _ := strconv.ParseInt(m[1], 10, 64)
	if want := signature(secret, ts, d.body); want != d.signature {
		t.Errorf("signature %q, want %q", d.signature, want)
	}
}

func TestWebhookRetries(t *testing.T) {
	srv, got, attempts := receiver(t, 2)
	h := newHarness(t, func(c *Config) { c.WebhookClient = srv.Client() })
	h.webhook(srv.URL, nil) // the webhook's own created event is the first delivery
	waitDelivery(t, got, func(ev event) bool { return ev.Entity == "webhook" })
	if n := attempts.Load(); n != 3 {
		t.Errorf("%d attempts, want 3 (two failures, one success)", n)
	}
}

func TestCloseStopsDeliveries(t *testing.T) {
	srv, _, attempts := receiver(t, 1<<30)
	h := newHarness(t, func(c *Config) { c.WebhookClient = srv.Client(); c.RetryScale = 1 })
	h.webhook(srv.URL, nil)
	eventually(t, "first attempt", func() bool { return attempts.Load() >= 1 })
	done := make(chan struct{})
	go func() { _ = h.srv.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not stop a delivery waiting to retry")
	}
}

func TestWebhookListAndGet(t *testing.T) {
	h := newHarness(t)
	wh := h.webhook("http://127.0.0.1:9/a", nil)
	list := h.expect(h.call(h.platform(), "GET", "/webhooks", nil), 200, "webhook_list").json(t)
	for _, it := range list["_embedded"].(map[string]any)["webhooks"].([]any) {
		item := it.(map[string]any)
		if _, ok := item["secret_signing_key"]; ok {
			t.Error("list item carries secret_signing_key")
		}
		if item["_links"].(map[string]any)["self"] == nil {
			t.Error("list item without _links.self")
		}
	}
	got := h.expect(h.call(h.platform(), "GET", "/webhooks/"+wh["id"].(string), nil), 200, "webhook").json(t)
	if got["secret_signing_key"] != wh["secret_signing_key"] || got["enabled"] != true {
		t.Errorf("get: %v", got)
	}
	upd := h.expect(h.call(h.platform(), "PUT", "/webhooks/"+wh["id"].(string), map[string]any{"enabled": false}), 200, "webhook").json(t)
	if upd["enabled"] != false || upd["url"] != "http://127.0.0.1:9/a" {
		t.Errorf("update: %v", upd)
	}
	h.expect(h.call(h.other(), "GET", "/webhooks/"+wh["id"].(string), nil), 404, "")
}

func TestEventEnabled(t *testing.T) {
	filters := []any{map[string]any{"entity": "file", "types": []any{"updated"}}, map[string]any{"entity": "transfer"}}
	tests := []struct {
		filters     []any
		entity, typ string
		want        bool
	}{
		{nil, "file", "created", true},
		{filters, "file", "updated", true},
		{filters, "file", "created", false},
		{filters, "transfer", "created", true},
		{filters, "dispute", "updated", false},
	}
	for _, tc := range tests {
		if got := eventEnabled(tc.filters, tc.entity, tc.typ); got != tc.want {
			t.Errorf("eventEnabled(%v, %s, %s) = %v, want %v", tc.filters, tc.entity, tc.typ, got, tc.want)
		}
	}
}

func TestDisabledWebhookIsNotATarget(t *testing.T) {
	var targets []ledger.Webhook
	var record bool // the webhooks' own creates are dispatched before it is set
	h := newHarness(t, func(c *Config) {
		c.Store = dispatchTo(func(e ledger.Effects) {
			if record {
				targets = append(targets, e.Hooks...)
			}
		})
	})
	on := h.webhook("http://127.0.0.1:9/on", nil)
	off := h.webhook("http://127.0.0.1:9/off", map[string]any{"enabled": false})
	record = true
	h.card() // emits payment_instrument created to the webhooks enabled at its commit
	if len(targets) != 1 || targets[0].ID != on["id"] || targets[0].ID == off["id"] {
		t.Errorf("targets %v, want only %v", targets, on["id"])
	}
}

// TestWebhookAuthentication: each delivery carries the Authorization header
// of the webhook's authentication (BASIC, BEARER; none for NONE), an update
// replaces it, and no response or event renders the password or token.
func TestWebhookAuthentication(t *testing.T) {
	const password, token, newToken = "hook-pass-7f3a9c", "hook-token-41d2e8", "hook-token-9b07aa"
	srv, got, _ := receiver(t, 0)
	h := newHarness(t, func(c *Config) { c.WebhookClient = srv.Client() })
	basic := map[string]any{"type": "BASIC", "basic": map[string]any{"username": "hook-user", "password": password}}
	bearer := map[string]any{"type": "BEARER", "bearer": map[string]any{"token": token}}
	hooks := map[string]map[string]any{
		"/basic":  h.webhook(srv.URL+"/basic", map[string]any{"authentication": basic}),
		"/bearer": h.webhook(srv.URL+"/bearer", map[string]any{"authentication": bearer}),
		"/none":   h.webhook(srv.URL+"/none", map[string]any{"authentication": map[string]any{"type": "NONE"}}),
	}
	want := map[string]string{
		"/basic":  "Basic " + base64.StdEncoding.EncodeToString([]byte("hook-user:"+password)),
		"/bearer": "Bearer " + token,
		"/none":   "",
	}
	if a := hooks["/basic"]["authentication"].(map[string]any); a["type"] != "BASIC" || a["basic"].(map[string]any)["username"] != "hook-user" {
		t.Errorf("basic authentication rendered as %v", a)
	}
	if a := hooks["/bearer"]["authentication"].(map[string]any); a["type"] != "BEARER" || a["bearer"] != nil {
		t.Errorf("bearer authentication rendered as %v", a)
	}
	// Each webhook receives at least the created events published after it.
	h.call(h.platform(), "GET", "/webhooks/"+hooks["/basic"]["id"].(string), nil)
	h.call(h.platform(), "GET", "/webhooks", nil)
	marker := h.webhook("http://127.0.0.1:9/marker", map[string]any{"enabled": false})
	seen := map[string]bool{}
	var events [][]byte
	for len(seen) < len(want) {
		d, _ := waitDelivery(t, got, func(event) bool { return true })
		events = append(events, d.body)
		if d.authorization != want[d.path] {
			t.Errorf("delivery to %s: Authorization %q, want %q", d.path, d.authorization, want[d.path])
		}
		seen[d.path] = true
	}
	// An update replaces the authentication: the new token is sent.
	id := hooks["/bearer"]["id"].(string)
	h.expect(h.call(h.platform(), "PUT", "/webhooks/"+id, map[string]any{"authentication": map[string]any{"type": "BEARER", "bearer": map[string]any{"token": newToken}}}), 200, "webhook")
	h.call(h.platform(), "PUT", "/webhooks/"+marker["id"].(string), map[string]any{"tags": map[string]any{"k": "v"}})
	d, _ := waitDelivery(t, got, func(ev event) bool { return ev.Type == "updated" })
	for d.path != "/bearer" {
		events = append(events, d.body)
		d, _ = waitDelivery(t, got, func(ev event) bool { return ev.Type == "updated" })
	}
	events = append(events, d.body)
	if d.authorization != "Bearer "+newToken {
		t.Errorf("after update: Authorization %q, want the new token", d.authorization)
	}
	h.mu.Lock()
	bodies := append([][]byte(nil), h.bodies...)
	h.mu.Unlock()
	for _, b := range append(bodies, events...) {
		for _, secret := range []string{password, token, newToken} {
			if strings.Contains(string(b), secret) {
				t.Errorf("a response or event carries a webhook credential: %s", truncate(b))
			}
		}
	}
}

// dispatchTo is the in-memory store whose committed units' effects go to
// dispatch instead of the Server's delivery.
type dispatchTo func(ledger.Effects)

func (d dispatchTo) Open(ctx context.Context, env ledger.StoreEnv) (ledger.SandboxStore, ledger.Seeded, error) {
	env.Dispatch = d
	return MemoryStore().Open(ctx, env)
}
