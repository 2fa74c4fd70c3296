package reference

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/conform-kit/conform/reference/ledger"
	"github.com/stretchr/testify/assert"
)

// TestOutOfRangeNumbers sends numbers the schema admits as JSON but no
// int64 holds, integers written as 1.0 or 1e3, and numbers whose exact value
// costs seconds to compute (1e999999999 made the validator panic; a few KiB
// of 1e999999 held a request for seconds): each is a 4xx at once, never a
// 400 naming Go types, a 5xx or a long wait.
func TestOutOfRangeNumbers(t *testing.T) {
	h := newHarness(t)
	fx := h.fx.Fixtures
	card := h.card()
	sale := func(amount string) string {
		return `{"source":"` + card + `","merchant":"` + fx.Merchant + `","amount":` + amount + `,"currency":"USD"}`
	}
	item := `{"amount_excluding_sales_tax":1e999999,"amount_including_sales_tax":1080,"commodity_code":"1","cost_per_unit":1000,` +
		`"item_description":"W","item_discount_amount":0,"merchant_product_code":"W","quantity":1,"unit_of_measure":"EA"}`
	level3 := `{"source":"` + card + `","merchant":"` + fx.Merchant + `","amount":1000,"currency":"USD","additional_purchase_data":` +
		`{"customer_reference_number":"C","customs_duty_amount":0,"discount_amount":0,"shipping_amount":0,"item_data":[` +
		strings.Repeat(item+",", 199) + item + `]}}`
	amounts := "/subscription/subscription_schedules/" + fx.SubscriptionSchedule + "/subscription_amounts"
	tests := []struct {
		name, method, path, body string
		status                   int
		field                    string
	}{
		{"amount beyond int64", "POST", "/transfers", sale("99999999999999999999"), 422, "/amount"},
		{"amount 1e30", "POST", "/transfers", sale("1e30"), 422, "/amount"},
		{"exponent too large to compute", "POST", "/transfers", sale("1e999999999"), 422, "/amount"},
		{"negative exponent too large", "POST", "/transfers", sale("1e-999999999"), 422, "/amount"},
		{"half a million digits", "POST", "/transfers", sale("1" + strings.Repeat("0", 500000)), 422, "/amount"},
		{"many costly numbers in items", "POST", "/transfers", level3, 422, "/additional_purchase_data/item_data/0/amount_excluding_sales_tax"},
		{"fee beyond int64", "POST", "/transfers", strings.Replace(sale("1000"), `"currency"`, `"fee":99999999999999999999,"currency"`, 1), 422, "/fee"},
		{"capture beyond int64", "PUT", "/authorizations/AU0000000000000000000000", `{"capture_amount":99999999999999999999}`, 422, "/capture_amount"},
		{"nested amount beyond int64", "POST", amounts, `{"amount_type":"FEE","nickname":"n","fee_amount_data":{"amount":99999999999999999999,"currency":"USD","label":"l"}}`, 422, "/fee_amount_data/amount"},
		{"integer written 1.0", "POST", "/transfers", sale("1000.0"), 201, ""},
		{"integer written 1e3", "POST", "/transfers", sale("1e3"), 201, ""},
		{"top-level costly number", "POST", "/transfers", "1e999999999", 400, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			r := h.call(h.platform(), tc.method, tc.path, tc.body)
			if took := time.Since(start); took > 2*time.Second {
				t.Errorf("took %s", took)
			}
			if r.status != tc.status {
				t.Fatalf("status %d, want %d; body %s", r.status, tc.status, truncate(r.body))
			}
			if tc.status == 201 {
				if got := r.json(t)["amount"]; got != float64(1000) {
					t.Errorf("amount %v, want 1000", got)
				}
				return
			}
			h.expect(r, tc.status, "error")
			if strings.Contains(string(r.body), "Go struct") {
				t.Errorf("error names Go types: %s", truncate(r.body))
			}
			if tc.field == "" {
				return
			}
			item := r.json(t)["_embedded"].(map[string]any)["errors"].([]any)[0].(map[string]any)
			if item["code"] != "INVALID_FIELD" || item["field"] != tc.field {
				t.Errorf("first item code %v field %v, want INVALID_FIELD %s", item["code"], item["field"], tc.field)
			}
		})
	}
}

// TestNonCanonicalPaths: the ServeMux would answer these with a 307 and an
// HTML body; every answer of the API is JSON, so they are 404 in the envelope.
func TestNonCanonicalPaths(t *testing.T) {
	h := newHarness(t)
	for _, path := range []string{"//disputes", "/disputes/../webhooks", "/disputes/./x", "/webhooks//"} {
		r := h.call(h.platform(), "GET", path, nil)
		h.expect(r, 404, "error")
		if got := errorCode(t, r); got != "NOT_FOUND" {
			t.Errorf("GET %s: code %q, want NOT_FOUND", path, got)
		}
	}
	h.expect(h.call(h.platform(), "GET", "/disputes", nil), 200, "dispute_list")
}

func TestAcceptQualityZero(t *testing.T) {
	h := newHarness(t)
	tests := []struct {
		accept string
		want   int
	}{
		{"", 200},
		{"application/json", 200},
		{"text/html, */*;q=0.1", 200},
		{"application/json;q=0", 406},
		{"application/hal+json; q=0.0, text/html", 406},
		{"*/*;q=0, application/json;q=0.5", 200},
		{"text/html", 406},
		{"application/hal+json;q=abc", 406}, // a malformed weight admits nothing (validate.AcceptsJSON)
		{"application/hal+json;q=abc, */*;q=0.2", 200},
	}
	for _, tc := range tests {
		t.Run(tc.accept, func(t *testing.T) {
			r := h.call(h.platform(), "GET", "/disputes", nil, "Accept", tc.accept)
			if tc.want == 200 {
				h.expect(r, 200, "dispute_list")
				return
			}
			h.expect(r, tc.want, "error")
			assert.Equal(t, "NOT_ACCEPTABLE", errorCode(t, r))
		})
	}
}

// TestRequestLogHasNoSecrets logs at debug level to a buffer while creating
// cards, webhooks (with a failing receiver, so delivery failures are logged),
// captures and external link uploads, then searches the log for every secret.
func TestRequestLogHasNoSecrets(t *testing.T) {
	var mu sync.Mutex
	var buf bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&lockedWriter{mu: &mu, w: &buf}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	failing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusInternalServerError)
	}))
	t.Cleanup(failing.Close)
	h := newHarness(t, func(c *Config) { c.Logger = logger; c.WebhookClient = failing.Client() })
	fx := h.fx.Fixtures
	wh := h.webhook(failing.URL+"/hook", nil)
	secret := wh["secret_signing_key"].(string)
	const number, code = "5555555555554444", "9731"
	body := cardBody(fx.BuyerIdentity, number)
	body["security_code"] = code
	card := h.expect(h.call(h.platform(), "POST", "/payment_instruments", body), 201, "").str(t, "id")
	body["number"] = "x" + number
	h.expect(h.call(h.platform(), "POST", "/payment_instruments", body), 422, "")
	h.call(ledger.Credential{Username: h.platform().Username, Password: "wrong-" + h.platform().Password}, "GET", "/disputes", nil)
	auth := h.call(h.platform(), "POST", "/authorizations", map[string]any{"source": card, "merchant": fx.Merchant, "amount": 500, "currency": "USD"}).str(t, "id")
	h.call(h.platform(), "PUT", "/authorizations/"+auth, map[string]any{"capture_amount": 500})
	h.call(h.platform(), "GET", "/merchants/"+fx.Merchant, nil)
	h.call(h.platform(), "GET", "/webhooks/"+wh["id"].(string), nil)
	file := h.newFile("Passport")
	link := h.expect(h.call(h.platform(), "POST", "/files/"+file+"/external_links", map[string]any{"type": "UPLOAD"}), 200, "").str(t, "id")
	h.expect(h.call(ledger.Credential{}, "PUT", "/external_links/"+link+"/upload", "%PDF", "Content-Type", "application/pdf"), 200, "")
	h.expect(h.call(h.platform(), "GET", "/files/"+file+"/external_links/"+link, nil), 200, "")
	eventually(t, "a failed delivery logged", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return strings.Contains(buf.String(), "webhook delivery failed")
	})
	_ = h.srv.Close() // flush every delivery goroutine before reading the log

	mu.Lock()
	log := buf.String()
	mu.Unlock()
	creds := h.fx.Credentials
	for name, s := range map[string]string{
		"card number": number, "signing secret": secret, "external link id": link,
		"platform password": creds.Platform.Password, "merchant password": creds.Merchant.Password,
		"other password": creds.OtherApplication.Password,
	} {
		if strings.Contains(log, s) {
			t.Errorf("the log contains the %s", name)
		}
	}
	if containsToken(log, code) {
		t.Error("the log contains the security code")
	}
	for _, want := range []string{"path=/payment_instruments status=201", "status=401", "path=/external_links/…/upload status=200", "path=/files/" + file + "/external_links/… status=200", "status=422"} {
		if !strings.Contains(log, want) {
			t.Errorf("the log has no request line with %q:\n%s", want, log)
		}
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n, err := l.w.Write(b)
	if err != nil {
		return n, fmt.Errorf("test log: %w", err)
	}
	return n, nil
}

// gatedTransport is a webhook client transport that reports each attempt on
// attempts and answers it only when released (with a 500).
type gatedTransport struct {
	attempts chan string
	release  chan struct{}
	count    atomic.Int32
}

func (g *gatedTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	g.count.Add(1)
	if r.Body != nil {
		_ = r.Body.Close()
	}
	g.attempts <- r.URL.String()
	select {
	case <-g.release:
	case <-r.Context().Done():
		return nil, fmt.Errorf("gated transport: %w", r.Context().Err())
	}
	return &http.Response{StatusCode: 500, Body: io.NopCloser(strings.NewReader("")), Header: http.Header{}, Request: r}, nil
}

// TestRetriesStopWhenWebhookDisabled: a webhook disabled while a delivery to
// it is failing receives no retry (disabled webhooks receive nothing).
func TestRetriesStopWhenWebhookDisabled(t *testing.T) {
	gt := &gatedTransport{attempts: make(chan string, 16), release: make(chan struct{})}
	h := newHarness(t, func(c *Config) { c.WebhookClient = &http.Client{Transport: gt}; c.RetryScale = 1e-12 })
	wh := h.webhook("http://receiver.test/hook", nil) // its created event is the delivery
	<-gt.attempts
	h.expect(h.call(h.platform(), "PUT", "/webhooks/"+wh["id"].(string), map[string]any{"enabled": false}), 200, "webhook")
	close(gt.release)
	h.srv.wg.Wait() // the delivery goroutine ends: it retried at once (scale ~0) or stopped
	if n := gt.count.Load(); n != 1 {
		t.Errorf("%d attempts, want 1: a disabled webhook was retried", n)
	}
}

// TestCloseAbortsSlowDelivery: Close returns while a receiver is still
// holding a delivery, and afterwards nothing is scheduled or delivered.
func TestCloseAbortsSlowDelivery(t *testing.T) {
	gt := &gatedTransport{attempts: make(chan string, 16), release: make(chan struct{})}
	h := newHarness(t, func(c *Config) {
		c.WebhookClient = &http.Client{Transport: gt}
		c.ReviewDelay = time.Hour // a review timer pending at Close
	})
	h.webhook("http://receiver.test/hook", nil)
	<-gt.attempts // the delivery is in flight and never answered
	file := h.newFile("Passport")
	ct, body := multipartBody(t, "p.pdf", "application/pdf", []byte("%PDF"))
	h.expect(h.call(h.platform(), "POST", "/files/"+file+"/upload", body, "Content-Type", ct), 200, "file")

	closed := make(chan struct{})
	go func() { _ = h.srv.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not return while a receiver held a delivery")
	}
	// Every goroutine has ended; forget the attempts made before Close.
	for len(gt.attempts) > 0 {
		<-gt.attempts
	}
	// After Close: requests still answer, but schedule and deliver nothing.
	h.expect(h.call(h.platform(), "POST", "/webhooks", map[string]any{"url": "http://receiver.test/2"}), 201, "webhook")
	other := h.newFile("Other")
	ct, body = multipartBody(t, "q.pdf", "application/pdf", []byte("%PDF"))
	h.expect(h.call(h.platform(), "POST", "/files/"+other+"/upload", body, "Content-Type", ct), 200, "file")
	h.srv.lifeMu.Lock()
	timers := len(h.srv.timers)
	h.srv.lifeMu.Unlock()
	if timers != 0 {
		t.Errorf("%d timers scheduled after Close", timers)
	}
	h.srv.wg.Wait() // would wait for any delivery started after Close
	select {
	case u := <-gt.attempts:
		t.Errorf("delivery to %s after Close", u)
	default:
	}
	if err := context.Cause(h.srv.ctx); err == nil {
		t.Error("server context still live after Close")
	}
}

// TestIdempotentErrorsCarryRequestID: an idempotent request that fails sends
// X-Request-Id equal to its envelope's logref, first time and on replay, as
// every other error does.
func TestIdempotentErrorsCarryRequestID(t *testing.T) {
	h := newHarness(t)
	card := h.card()
	tests := []struct {
		name   string
		body   map[string]any
		status int
	}{
		{"decline", map[string]any{"source": card, "merchant": h.fx.Fixtures.Merchant, "amount": ledger.AmountDeclined, "currency": "USD", "idempotency_id": "rid-402"}, 402},
		{"unknown source", map[string]any{"source": "PI0000000000000000000000", "merchant": h.fx.Fixtures.Merchant, "amount": 100, "currency": "USD", "idempotency_id": "rid-422"}, 422},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, attempt := range []string{"first", "replay"} {
				r := h.expect(h.call(h.platform(), "POST", "/transfers", tc.body), tc.status, "")
				item := r.json(t)["_embedded"].(map[string]any)["errors"].([]any)[0].(map[string]any)
				logref := item["logref"].(map[string]any)["logref"]
				if got := r.header.Get("X-Request-Id"); got == "" || got != logref {
					t.Errorf("%s: X-Request-Id %q, want the logref %v", attempt, got, logref)
				}
			}
		})
	}
}

// TestRequestLogMasksLinkIDsAnywhere: an external link's id is masked by its
// shape wherever it stands in a logged path, also in the non-canonical paths
// hostile clients send (an empty segment, repeated segments), which the
// reference answers 404 but still logs.
func TestRequestLogMasksLinkIDsAnywhere(t *testing.T) {
	const link = "EL_Ab3dEf6hIj9lMn2pQr5tUv"
	var mu sync.Mutex
	var buf bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&lockedWriter{mu: &mu, w: &buf}, nil))
	h := newHarness(t, func(c *Config) { c.Logger = logger })
	for _, tc := range []struct {
		path, logged string
	}{
		{"/external_links/" + link + "/upload", "/external_links/…/upload"},
		{"//external_links/" + link + "/upload", "//external_links/…/upload"},
		{"/external_links//" + link + "/upload", "/external_links//…/upload"},
		{"/external_links/external_links/" + link + "/upload", "/external_links/…/…/upload"},
		{"/external_links/" + link + "/" + link + "/upload", "/external_links/…/…/upload"},
		{"/files/FILE_x/external_links/" + link, "/files/FILE_x/external_links/…"},
		{"/upload/" + link, "/upload/…"},
		{"/external_links/" + link[:9], "/external_links/…"},
		{"/external_links/secret-token/upload", "/external_links/…/upload"},
		{"/transfers/TR123", "/transfers/TR123"},
	} {
		t.Run(tc.path, func(t *testing.T) {
			assert.Equal(t, tc.logged, logPath(tc.path))
			r := httptest.NewRequest("PUT", "/", strings.NewReader("%PDF"))
			r.URL.Path, r.RequestURI = tc.path, tc.path
			r.Header.Set("Content-Type", "application/pdf")
			w := httptest.NewRecorder()
			h.srv.ServeHTTP(w, r)
			assert.Less(t, w.Code, 500)
			mu.Lock()
			defer mu.Unlock()
			assert.NotContains(t, buf.String(), link[3:9], "the log holds the link id")
			assert.Contains(t, buf.String(), "path="+tc.logged+" ")
			buf.Reset()
		})
	}
}
