package reference

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
)

// TestWebhookAddressPolicy decides addresses by the policy's own functions:
// no test connects to any address but loopback.
func TestWebhookAddressPolicy(t *testing.T) {
	local := newWebhookPolicy(nil)
	public := newWebhookPolicy([]netip.Prefix{})
	team := newWebhookPolicy([]netip.Prefix{netip.MustParsePrefix("10.1.0.0/16")})
	tests := []struct {
		url                 string
		local, public, team bool // admitted under each policy
	}{
		{"https://hooks.example.com/x", true, true, true},
		{"http://93.184.216.34/x", true, true, true},
		{"http://127.0.0.1:8080/hook", true, false, false},
		{"http://[::1]:8080/hook", true, false, false},
		{"http://localhost:9/hook", true, false, false},
		{"http://10.1.2.3/hook", true, false, true},
		{"http://10.2.2.3/hook", true, false, false},
		{"http://192.168.1.1/", true, false, false},
		{"http://[fd12::1]/", true, false, false},
		{"http://169.254.169.254/latest/meta-data/", false, false, false},
		{"http://[::ffff:169.254.169.254]/", false, false, false},
		{"http://[64:ff9b::a9fe:a9fe]/", false, false, false},
		{"http://[fe80::1]/", false, false, false},
		{"http://[fd00:ec2::254]/", false, false, false},
		{"http://100.100.100.200/", false, false, false},
		{"http://0.0.0.0:80/", false, false, false},
		{"http://[::]/", false, false, false},
		{"http://224.0.0.1/", false, false, false},
		{"http://2852039166/", false, false, false},
		{"http://0251.0376.0251.0376/", false, false, false},
		{"http://0xa9fea9fe/", false, false, false},
		{"http://169.254.43518/", false, false, false},
		{"http:///nohost", false, false, false},
		{"http://example.com:99999/", false, false, false},
		{"http://example.com:0/", false, false, false},
		{"http://user:pass@example.com/", false, false, false},
		{"ftp://example.com/", false, false, false},
		{"file:///etc/passwd", false, false, false},
		{"gopher://example.com/", false, false, false},
	}
	for _, tc := range tests {
		for _, p := range []struct {
			name string
			pol  webhookPolicy
			want bool
		}{{"local", local, tc.local}, {"public", public, tc.public}, {"team", team, tc.team}} {
			err := p.pol.checkURL(tc.url)
			if got := err == nil; got != p.want {
				t.Errorf("%s policy, %s: admitted %v, want %v (%v)", p.name, tc.url, got, p.want, err)
			}
			if err != nil && !errors.Is(err, errWebhookTarget) {
				t.Errorf("%s: error %v does not wrap errWebhookTarget", tc.url, err)
			}
		}
	}
	for _, addr := range []string{"169.254.169.254:80", "[fe80::1%eth0]:80", "127.0.0.1:80"} {
		if err := public.control("tcp", addr, nil); err == nil {
			t.Errorf("the dialer admits %s under the public-only policy", addr)
		}
	}
	if err := local.control("tcp", "169.254.169.254:80", nil); err == nil {
		t.Error("the dialer admits the metadata address under the local policy")
	}
	if err := local.control("tcp", "127.0.0.1:80", nil); err != nil {
		t.Errorf("the dialer refuses loopback under the local policy: %v", err)
	}
}

// TestWebhookRegistrationRefusesTargets: refused URLs are 422 at /url, on
// create and on update.
func TestWebhookRegistrationRefusesTargets(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.WebhookAllow = []netip.Prefix{} })
	for _, u := range []string{"http://169.254.169.254/", "http://2852039166/", "http:///nohost", "http://h.example:99999/", "http://u:p@h.example/", "http://127.0.0.1:9/"} {
		r := h.expect(h.call(h.platform(), "POST", "/webhooks", map[string]any{"url": u}), 422, "error")
		item := r.json(t)["_embedded"].(map[string]any)["errors"].([]any)[0].(map[string]any)
		if item["field"] != "/url" {
			t.Errorf("%s: field %v, want /url", u, item["field"])
		}
	}
	wh := h.webhook("https://hooks.example.invalid/conform", nil)
	h.expect(h.call(h.platform(), "PUT", "/webhooks/"+wh["id"].(string), map[string]any{"url": "http://169.254.169.254/"}), 422, "error")
}

// TestWebhookDeliveryChecksResolvedAddress: a server allowed public
// addresses only does not connect to a loopback receiver, however the URL
// got past registration; the default client's dialer refuses it.
func TestWebhookDeliveryChecksResolvedAddress(t *testing.T) {
	var hits atomic.Int32
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	t.Cleanup(recv.Close)
	client := newWebhookPolicy([]netip.Prefix{}).webhookClient()
	resp, err := client.Post(recv.URL, "application/json", strings.NewReader("{}"))
	if err == nil {
		resp.Body.Close()
		t.Fatal("the delivery client connected to a loopback receiver under the public-only policy")
	}
	if !errors.Is(err, errWebhookTarget) {
		t.Errorf("error %v does not wrap errWebhookTarget", err)
	}
	if hits.Load() != 0 {
		t.Errorf("the receiver got %d requests", hits.Load())
	}
	resp, err = newWebhookPolicy(nil).webhookClient().Post(recv.URL, "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatalf("the local policy refuses loopback: %v", err)
	}
	resp.Body.Close()
}

// TestWebhookDeliveryFollowsNoRedirect: a receiver answering a redirect
// has failed the delivery; the target of the redirect receives nothing.
func TestWebhookDeliveryFollowsNoRedirect(t *testing.T) {
	var elsewhere, redirects atomic.Int32
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { elsewhere.Add(1) }))
	t.Cleanup(target.Close)
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		redirects.Add(1)
		http.Redirect(w, r, target.URL+"/stolen", http.StatusTemporaryRedirect)
	}))
	t.Cleanup(recv.Close)
	for _, client := range []*http.Client{nil, recv.Client()} {
		h := newHarness(t, func(c *Config) { c.WebhookClient = client })
		h.webhook(recv.URL+"/hook", nil)
		h.newFile("Passport")
		eventually(t, "a delivery attempt", func() bool { return redirects.Load() > 0 })
		_ = h.srv.Close()
	}
	if n := elsewhere.Load(); n != 0 {
		t.Errorf("the redirect target received %d deliveries", n)
	}
}
