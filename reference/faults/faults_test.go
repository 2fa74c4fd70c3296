package faults

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/conform-kit/conform/reference"
	"github.com/conform-kit/conform/validate"
)

// probeBase is the BaseURL of the servers the fault probes talk to.
const probeBase = "http://faults.test"

// probeHookURL is where probe webhooks deliver; the probe's transport answers it.
const probeHookURL = "http://hooks.test/events"

// probeResp is one recorded response.
type probeResp struct {
	status int
	header http.Header
	body   []byte
	doc    map[string]any
}

// field reads a dotted path of the decoded body.
func (r probeResp) field(path string) any {
	v, _ := validate.FieldAt(r.doc, path)
	return v
}

// str reads a dotted path as a string.
func (r probeResp) str(path string) string {
	s, _ := r.field(path).(string)
	return s
}

// probeDelivery is one webhook delivery the probe transport received.
type probeDelivery struct {
	url    string
	header http.Header
	body   []byte
}

// probeHooks records webhook deliveries and answers them 200.
type probeHooks struct {
	mu   sync.Mutex
	got  []probeDelivery
	seen chan struct{}
}

// RoundTrip records a delivery.
func (p *probeHooks) RoundTrip(req *http.Request) (*http.Response, error) {
	b, err := io.ReadAll(req.Body)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	p.got = append(p.got, probeDelivery{url: req.URL.String(), header: req.Header.Clone(), body: b})
	p.mu.Unlock()
	select {
	case p.seen <- struct{}{}:
	default:
	}
	return &http.Response{StatusCode: http.StatusOK, Header: http.Header{}, Body: io.NopCloser(bytes.NewReader(nil)), Request: req}, nil
}

// find returns the first delivery that match accepts.
func (p *probeHooks) find(match func(probeDelivery) bool) (probeDelivery, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, d := range p.got {
		if match(d) {
			return d, true
		}
	}
	return probeDelivery{}, false
}

// await waits until a delivery match accepts arrives, or d passes.
func (p *probeHooks) await(d time.Duration, match func(probeDelivery) bool) (probeDelivery, bool) {
	deadline := time.After(d)
	for {
		if got, ok := p.find(match); ok {
			return got, true
		}
		select {
		case <-p.seen:
		case <-deadline:
			return probeDelivery{}, false
		}
	}
}

// faultProbe is a reference behind a set of faults, driven in-process.
type faultProbe struct {
	t     *testing.T
	srv   http.Handler
	fx    reference.Seeded
	hooks *probeHooks
}

func newFaultProbe(t *testing.T, faults ...string) *faultProbe {
	t.Helper()
	hooks := &probeHooks{seen: make(chan struct{}, 1)}
	ref, h, err := Serve(reference.Config{
		BaseURL: probeBase, Seed: 11, ReviewDelay: time.Millisecond, RetryScale: 0.0001,
		WebhookClient: &http.Client{Transport: hooks},
	}, faults)
	require.NoError(t, err, "Serve with faults %v", faults)
	t.Cleanup(func() { _ = ref.Close() })
	return &faultProbe{t: t, srv: h, fx: ref.Seeded(), hooks: hooks}
}

// platform, merchant and other are the seeded users.
func (p *faultProbe) platform() *reference.Credential { return &p.fx.Credentials.Platform }
func (p *faultProbe) merchant() *reference.Credential { return &p.fx.Credentials.Merchant }
func (p *faultProbe) other() *reference.Credential    { return &p.fx.Credentials.OtherApplication }

// send performs one request; body is nil, a []byte (sent with the content
// type in headers) or a value encoded as JSON (application/vnd.json+api).
func (p *faultProbe) send(cred *reference.Credential, method, path string, body any, headers ...string) probeResp {
	p.t.Helper()
	var rd io.Reader
	ctype := ""
	switch b := body.(type) {
	case nil:
	case []byte:
		rd = bytes.NewReader(b)
	default:
		enc, err := json.Marshal(b)
		if err != nil {
			p.t.Fatalf("encode body: %v", err)
		}
		rd, ctype = bytes.NewReader(enc), "application/vnd.json+api"
	}
	req := httptest.NewRequest(method, probeBase+path, rd)
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	if cred != nil {
		req.SetBasicAuth(cred.Username, cred.Password)
	}
	rec := httptest.NewRecorder()
	p.srv.ServeHTTP(rec, req)
	return probeResp{status: rec.Code, header: rec.Header(), body: rec.Body.Bytes(), doc: decodeFaultJSON(rec.Body.Bytes())}
}

// must performs a request as the platform user and requires status want.
func (p *faultProbe) must(want int, method, path string, body any) probeResp {
	p.t.Helper()
	r := p.send(p.platform(), method, path, body)
	require.Equal(p.t, want, r.status, "%s %s: status; body %s", method, path, r.body)
	return r
}

func probeCardBody(identity string) map[string]any {
	return map[string]any{
		"type": "PAYMENT_CARD", "name": "Probe Buyer", "number": "4111111111111111",
		"expiration_month": 12, "expiration_year": 2030, "security_code": "737",
		"identity": identity, "address": map[string]any{"postal_code": "94110", "line1": "1 Main St"},
	}
}

func (p *faultProbe) card() string {
	return p.must(http.StatusCreated, "POST", "/payment_instruments", probeCardBody(p.fx.Fixtures.BuyerIdentity)).str("id")
}

// probeLevel3 is complete Level 3 data for a create or sale.
func probeLevel3() map[string]any {
	return map[string]any{
		"customer_reference_number": "CRN-1", "customs_duty_amount": 0, "discount_amount": 0, "shipping_amount": 100,
		"order_date": map[string]any{"day": 15, "month": 6, "year": 2025},
		"item_data": []any{map[string]any{
			"amount_excluding_sales_tax": 1000, "amount_including_sales_tax": 1080, "commodity_code": "12345",
			"cost_per_unit": 1000, "item_description": "Widget", "item_discount_amount": 0,
			"merchant_product_code": "W-1", "quantity": 1, "unit_of_measure": "EA",
		}},
	}
}

func (p *faultProbe) saleBody(amount int, merchant string) map[string]any {
	return map[string]any{"source": p.card(), "merchant": merchant, "amount": amount, "currency": "USD"}
}

// sale creates a sale after edit changes its body.
func (p *faultProbe) sale(edit func(map[string]any)) probeResp {
	b := p.saleBody(1000, p.fx.Fixtures.Merchant)
	if edit != nil {
		edit(b)
	}
	return p.send(p.platform(), "POST", "/transfers", b)
}

// saleL3 creates a sale with Level 3 data after edit changes the data.
func (p *faultProbe) saleL3(edit func(apd map[string]any)) probeResp {
	return p.sale(func(b map[string]any) {
		apd := probeLevel3()
		edit(apd)
		b["additional_purchase_data"] = apd
	})
}

func (p *faultProbe) authorize(amount int, level3 bool) string {
	b := map[string]any{"source": p.card(), "merchant_identity": p.fx.Fixtures.MerchantIdentity, "amount": amount, "currency": "USD"}
	if level3 {
		b["additional_purchase_data"] = probeLevel3()
	}
	return p.must(http.StatusCreated, "POST", "/authorizations", b).str("id")
}

func (p *faultProbe) capture(id string, body map[string]any) probeResp {
	return p.send(p.platform(), "PUT", "/authorizations/"+id, body)
}

func probeItem(field string, value any) map[string]any {
	it := probeLevel3()["item_data"].([]any)[0].(map[string]any)
	it[field] = value
	return it
}

func (p *faultProbe) webhook() probeResp {
	return p.must(http.StatusCreated, "POST", "/webhooks", map[string]any{"url": probeHookURL})
}

// probeHookAuth is a webhook's BASIC authentication (password "probe-hook-pass").
func probeHookAuth() map[string]any {
	return map[string]any{"type": "BASIC", "basic": map[string]any{"username": "probe-user", "password": "probe-hook-pass"}}
}

func (p *faultProbe) file(name string) string {
	return p.must(http.StatusOK, "POST", "/files", map[string]any{
		"display_name": name, "linked_to": p.fx.Fixtures.Merchant, "type": "OTHER",
	}).str("id")
}

// multipart builds a form with one part "file".
func (p *faultProbe) multipart(name string, data []byte) ([]byte, string) {
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	fw, err := mw.CreateFormFile("file", name)
	if err != nil {
		p.t.Fatalf("multipart: %v", err)
	}
	_, _ = fw.Write(data)
	if err := mw.Close(); err != nil {
		p.t.Fatalf("multipart: %v", err)
	}
	return buf.Bytes(), mw.FormDataContentType()
}

func (p *faultProbe) upload(path, name string, data []byte) probeResp {
	body, ctype := p.multipart(name, data)
	return p.send(p.platform(), "POST", path, body, "Content-Type", ctype)
}

// uploadedFile creates a file and uploads data to it; it returns the file id
// once the review has ended in UPLOADED.
func (p *faultProbe) uploadedFile(data []byte) string {
	id := p.file("probe statement")
	if r := p.upload("/files/"+id+"/upload", "statement.txt", data); r.status != http.StatusOK {
		p.t.Fatalf("upload: status %d; body %s", r.status, r.body)
	}
	deadline := time.After(5 * time.Second)
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for p.must(http.StatusOK, "GET", "/files/"+id, nil).str("status") != "UPLOADED" {
		select {
		case <-deadline:
			p.t.Fatalf("file %s never reached UPLOADED", id)
		case <-tick.C:
		}
	}
	return id
}

// fileWithLinks creates a file with n upload links.
func (p *faultProbe) fileWithLinks(n int) string {
	id := p.file("probe links")
	for range n {
		p.must(http.StatusOK, "POST", "/files/"+id+"/external_links", map[string]any{"type": "UPLOAD"})
	}
	return id
}

func (p *faultProbe) freshAmount() (schedule, amount string) {
	schedule = p.fx.Fixtures.SubscriptionSchedule
	amount = p.must(http.StatusOK, "POST", "/subscription/subscription_schedules/"+schedule+"/subscription_amounts", probeAmountBody(500)).str("id")
	return schedule, amount
}

func probeAmountBody(amount int) map[string]any {
	return map[string]any{"amount_type": "FEE", "nickname": "probe fee", "fee_amount_data": map[string]any{"amount": amount, "currency": "USD", "label": "probe"}}
}

func (p *faultProbe) enroll() probeResp {
	return p.must(http.StatusOK, "POST", "/subscription/subscription_schedules/"+p.fx.Fixtures.SubscriptionSchedule+"/subscription_enrollments",
		map[string]any{"merchant": p.fx.Fixtures.Merchant, "nickname": "probe"})
}

func isUploadedFileEvent(d probeDelivery) bool {
	var ev map[string]any
	if json.Unmarshal(d.body, &ev) != nil || ev["entity"] != "file" {
		return false
	}
	s, _ := validate.FieldAt(ev, "_embedded.files.0.status")
	return s == "UPLOADED"
}

// probeQuietURL is where the webhook under test of a silence probe delivers.
const probeQuietURL = "http://hooks.test/quiet"

// quietGetsSaleEvents creates a control webhook and, with body, the webhook
// under test (at probeQuietURL), makes a sale and then a marker sale, waits
// for the control's delivery of each, and reports whether the webhook under
// test received an event of either sale (see webhookStaysSilent in steps).
// Both webhooks are on one host, whose deliveries keep their publish order,
// so a delivery of the first sale to the webhook under test has been made
// by the time the control has the marker's.
func (p *faultProbe) quietGetsSaleEvents(body map[string]any, disable bool) bool {
	p.webhook()
	body["url"] = probeQuietURL
	quiet := p.must(http.StatusCreated, "POST", "/webhooks", body).str("id")
	if disable {
		p.must(http.StatusOK, "PUT", "/webhooks/"+quiet, map[string]any{"enabled": false})
	}
	var sales [][]byte
	for range 2 {
		id := []byte(p.sale(nil).str("id"))
		sales = append(sales, id)
		if _, ok := p.hooks.await(5*time.Second, func(d probeDelivery) bool {
			return d.url == probeHookURL && bytes.Contains(d.body, id)
		}); !ok {
			p.t.Fatalf("the control webhook got no event of sale %s", id)
		}
	}
	_, got := p.hooks.find(func(d probeDelivery) bool {
		return d.url == probeQuietURL && (bytes.Contains(d.body, sales[0]) || bytes.Contains(d.body, sales[1]))
	})
	return got
}

// idempotentSale creates a sale with an idempotency id as cred.
func (p *faultProbe) idempotentSale(cred *reference.Credential, card, key string) probeResp {
	b := map[string]any{"source": card, "merchant": p.fx.Fixtures.Merchant, "amount": 1000, "currency": "USD", "idempotency_id": key}
	return p.send(cred, "POST", "/transfers", b)
}

func errorItems(r probeResp) []any {
	items, _ := r.field("_embedded.errors").([]any)
	return items
}

func strN(n int) string { return strings.Repeat("x", n) }

// probes shows, per fault, whether the server in front of it behaves as the
// fault says: true means the fault's effect is observed.
func probes() map[string]func(p *faultProbe) bool {
	notFoundHook := "/webhooks/WH0000000000000000000000"
	return map[string]func(p *faultProbe) bool{
		// cards
		"card-number-echoed": func(p *faultProbe) bool {
			return bytes.Contains(p.must(201, "POST", "/payment_instruments", probeCardBody(p.fx.Fixtures.BuyerIdentity)).body, []byte("4111111111111111"))
		},
		"security-code-echoed": func(p *faultProbe) bool {
			return p.must(201, "POST", "/payment_instruments", probeCardBody(p.fx.Fixtures.BuyerIdentity)).field("security_code") != nil
		},
		"bin-wrong": func(p *faultProbe) bool {
			return p.must(200, "GET", "/payment_instruments/"+p.card(), nil).str("bin") != "411111"
		},
		"last-four-wrong": func(p *faultProbe) bool {
			return p.must(200, "GET", "/payment_instruments/"+p.card(), nil).str("last_four") != "1111"
		},
		"card-self-link-missing": func(p *faultProbe) bool {
			return p.must(200, "GET", "/payment_instruments/"+p.card(), nil).field("_links.self") == nil
		},
		"card-line1-36-accepted": func(p *faultProbe) bool {
			b := probeCardBody(p.fx.Fixtures.BuyerIdentity)
			b["address"].(map[string]any)["line1"] = strN(36)
			return p.send(p.platform(), "POST", "/payment_instruments", b).status == 201
		},
		"card-city-21-accepted": func(p *faultProbe) bool {
			b := probeCardBody(p.fx.Fixtures.BuyerIdentity)
			b["address"].(map[string]any)["city"] = strN(21)
			return p.send(p.platform(), "POST", "/payment_instruments", b).status == 201
		},
		"security-code-5-digits-accepted": func(p *faultProbe) bool {
			b := probeCardBody(p.fx.Fixtures.BuyerIdentity)
			b["security_code"] = "12345"
			return p.send(p.platform(), "POST", "/payment_instruments", b).status == 201
		},
		"fingerprint-unstable": func(p *faultProbe) bool {
			a := p.must(200, "GET", "/payment_instruments/"+p.card(), nil).str("fingerprint")
			b := p.must(200, "GET", "/payment_instruments/"+p.card(), nil).str("fingerprint")
			return a != b
		},
		"card-brand-unknown": func(p *faultProbe) bool {
			return p.must(201, "POST", "/payment_instruments", probeCardBody(p.fx.Fixtures.BuyerIdentity)).str("brand") != "VISA"
		},
		"card-number-non-digits-accepted": func(p *faultProbe) bool {
			b := probeCardBody(p.fx.Fixtures.BuyerIdentity)
			b["number"] = "4111 1111 1111 1111"
			return p.send(p.platform(), "POST", "/payment_instruments", b).status == 201
		},
		"card-number-11-digits-accepted": func(p *faultProbe) bool {
			b := probeCardBody(p.fx.Fixtures.BuyerIdentity)
			b["number"] = "48951422327"
			return p.send(p.platform(), "POST", "/payment_instruments", b).status == 201
		},
		"card-number-20-digits-accepted": func(p *faultProbe) bool {
			b := probeCardBody(p.fx.Fixtures.BuyerIdentity)
			b["number"] = "48951422321200064895"
			return p.send(p.platform(), "POST", "/payment_instruments", b).status == 201
		},
		"card-number-19-digits-refused": func(p *faultProbe) bool {
			b := probeCardBody(p.fx.Fixtures.BuyerIdentity)
			b["number"] = "4895142232120006488"
			return p.send(p.platform(), "POST", "/payment_instruments", b).status != 201
		},
		"card-luhn-not-checked": func(p *faultProbe) bool {
			b := probeCardBody(p.fx.Fixtures.BuyerIdentity)
			b["number"] = "4111111111111112"
			return p.send(p.platform(), "POST", "/payment_instruments", b).status == 201
		},
		"expiration-year-2-digits-accepted": func(p *faultProbe) bool {
			b := probeCardBody(p.fx.Fixtures.BuyerIdentity)
			b["expiration_year"] = 30
			return p.send(p.platform(), "POST", "/payment_instruments", b).status == 201
		},
		"response-content-type-plain-json": func(p *faultProbe) bool {
			return !strings.HasPrefix(p.must(200, "GET", "/payment_instruments/"+p.card(), nil).header.Get("Content-Type"), "application/hal+json")
		},
		// idempotency scope
		"idempotency-race-duplicates": func(p *faultProbe) bool {
			card := p.card()
			resps := make([]probeResp, 10)
			var wg sync.WaitGroup
			for i := range resps {
				wg.Add(1)
				go func() {
					defer wg.Done()
					resps[i] = p.idempotentSale(p.platform(), card, "probe-race")
				}()
			}
			wg.Wait()
			ids := map[string]bool{}
			for _, r := range resps {
				ids[r.str("id")] = true
			}
			return len(ids) > 1
		},
		"idempotency-shared-across-operations": func(p *faultProbe) bool {
			card := p.card()
			p.must(201, "POST", "/authorizations", map[string]any{"source": card, "merchant_identity": p.fx.Fixtures.MerchantIdentity, "amount": 1000, "currency": "USD", "idempotency_id": "probe-shared"})
			r := p.idempotentSale(p.platform(), card, "probe-shared")
			return r.status != 201 || !strings.HasPrefix(r.str("id"), "TR")
		},
		"idempotency-shared-across-applications": func(p *faultProbe) bool {
			card := p.card()
			p.idempotentSale(p.platform(), card, "probe-tenant")
			return p.idempotentSale(p.other(), card, "probe-tenant").status == 201
		},
		"idempotency-id-not-echoed": func(p *faultProbe) bool {
			return p.idempotentSale(p.platform(), p.card(), "probe-echo").str("idempotency_id") != "probe-echo"
		},
		// webhook events
		"disabled-webhook-still-delivers": func(p *faultProbe) bool {
			return p.quietGetsSaleEvents(map[string]any{}, true)
		},
		"enabled-events-ignored": func(p *faultProbe) bool {
			return p.quietGetsSaleEvents(map[string]any{"enabled_events": []any{map[string]any{"entity": "authorization"}}}, false)
		},
		// authorizations
		"capture-over-amount-accepted": func(p *faultProbe) bool {
			return p.capture(p.authorize(1000, false), map[string]any{"capture_amount": 1001}).status == 200
		},
		"capture-fee-over-amount-accepted": func(p *faultProbe) bool {
			return p.capture(p.authorize(1000, false), map[string]any{"capture_amount": 500, "fee": 501}).status == 200
		},
		"capture-without-amount-accepted": func(p *faultProbe) bool {
			return p.capture(p.authorize(1000, false), map[string]any{"fee": 0}).status == 200
		},
		"capture-transfer-link-to-authorization": func(p *faultProbe) bool {
			r := p.capture(p.authorize(1000, false), map[string]any{"capture_amount": 1000})
			return !strings.HasSuffix(r.str("_links.transfer.href"), "/"+r.str("transfer"))
		},
		"authorization-expiry-not-7-days": func(p *faultProbe) bool {
			r := p.must(200, "GET", "/authorizations/"+p.authorize(1000, false), nil)
			created, err1 := time.Parse(time.RFC3339Nano, r.str("created_at"))
			expires, err2 := time.Parse(time.RFC3339Nano, r.str("expires_at"))
			return err1 != nil || err2 != nil || expires.Sub(created) != 7*24*time.Hour
		},
		"second-capture-accepted": func(p *faultProbe) bool {
			id := p.authorize(1000, false)
			p.capture(id, map[string]any{"capture_amount": 600})
			return p.capture(id, map[string]any{"capture_amount": 400}).status == 200
		},
		"capture-does-not-set-transfer": func(p *faultProbe) bool {
			return p.capture(p.authorize(1000, false), map[string]any{"capture_amount": 1000}).field("transfer") == nil
		},
		"capture-state-pending": func(p *faultProbe) bool {
			return p.capture(p.authorize(1000, false), map[string]any{"capture_amount": 1000}).str("state") != "SUCCEEDED"
		},
		"authorization-id-prefix-wrong": func(p *faultProbe) bool {
			id := p.authorize(1000, false)
			fetched := p.must(200, "GET", "/authorizations/"+id, nil).str("id")
			return !strings.HasPrefix(id, "AU") && fetched == id
		},
		"timestamp-without-z": func(p *faultProbe) bool {
			return !strings.HasSuffix(p.must(200, "GET", "/authorizations/"+p.authorize(1000, false), nil).str("created_at"), "Z")
		},
		// Level 2/3
		"level3-not-enabled-accepted": func(p *faultProbe) bool {
			b := p.saleBody(1000, p.fx.Fixtures.PlainMerchant)
			b["additional_purchase_data"] = probeLevel3()
			return p.send(p.platform(), "POST", "/transfers", b).status == 201
		},
		"merchant-flag-update-ignored": func(p *faultProbe) bool {
			r := p.must(200, "PUT", "/merchants/"+p.fx.Fixtures.PlainMerchant, map[string]any{"level_two_level_three_data_enabled": true})
			return r.field("level_two_level_three_data_enabled") != true
		},
		"level3-not-enabled-accepted-on-authorization": func(p *faultProbe) bool {
			b := map[string]any{"source": p.card(), "merchant_identity": p.fx.Fixtures.PlainMerchantIdentity, "amount": 1000, "currency": "USD", "additional_purchase_data": probeLevel3()}
			return p.send(p.platform(), "POST", "/authorizations", b).status == 201
		},
		"customer-reference-number-optional-on-create": func(p *faultProbe) bool {
			return p.saleL3(func(apd map[string]any) { delete(apd, "customer_reference_number") }).status == 201
		},
		"capture-requires-customer-reference-number": func(p *faultProbe) bool {
			apd := probeLevel3()
			delete(apd, "customer_reference_number")
			return p.capture(p.authorize(1000, true), map[string]any{"capture_amount": 1000, "additional_purchase_data": apd}).status != 200
		},
		"capture-item-without-description-accepted": func(p *faultProbe) bool {
			item := map[string]any{"quantity": 1, "unit_of_measure": "EA"}
			body := map[string]any{"capture_amount": 1000, "additional_purchase_data": map[string]any{"item_data": []any{item}}}
			return p.capture(p.authorize(1000, true), body).status == 200
		},
		"customer-reference-number-18-accepted": func(p *faultProbe) bool {
			return p.saleL3(func(apd map[string]any) { apd["customer_reference_number"] = strN(18) }).status == 201
		},
		"invoice-reference-number-16-accepted": func(p *faultProbe) bool {
			return p.saleL3(func(apd map[string]any) { apd["invoice_reference_number"] = strN(16) }).status == 201
		},
		"item-description-26-accepted-on-sale": func(p *faultProbe) bool {
			return p.saleL3(func(apd map[string]any) { apd["item_data"] = []any{probeItem("item_description", strN(26))} }).status == 201
		},
		"unit-of-measure-13-accepted-on-capture": func(p *faultProbe) bool {
			item := map[string]any{"item_description": "Widget", "unit_of_measure": strN(13)}
			body := map[string]any{"capture_amount": 1000, "additional_purchase_data": map[string]any{"item_data": []any{item}}}
			return p.capture(p.authorize(1000, true), body).status == 200
		},
		"quantity-zero-accepted": func(p *faultProbe) bool {
			return p.saleL3(func(apd map[string]any) { apd["item_data"] = []any{probeItem("quantity", 0)} }).status == 201
		},
		"order-month-13-accepted": func(p *faultProbe) bool {
			return p.saleL3(func(apd map[string]any) { apd["order_date"] = map[string]any{"day": 1, "month": 13, "year": 2025} }).status == 201
		},
		"order-day-0-accepted-on-capture": func(p *faultProbe) bool {
			apd := probeLevel3()
			apd["order_date"] = map[string]any{"day": 0, "month": 6, "year": 2025}
			return p.capture(p.authorize(1000, true), map[string]any{"capture_amount": 1000, "additional_purchase_data": apd}).status == 200
		},
		"order-month-0-accepted-on-authorization": func(p *faultProbe) bool {
			apd := probeLevel3()
			apd["order_date"] = map[string]any{"day": 15, "month": 0, "year": 2025}
			b := map[string]any{"source": p.card(), "merchant_identity": p.fx.Fixtures.MerchantIdentity, "amount": 1000, "currency": "USD", "additional_purchase_data": apd}
			return p.send(p.platform(), "POST", "/authorizations", b).status == 201
		},
		"updated-at-differs-on-create": func(p *faultProbe) bool {
			r := p.sale(nil)
			return r.str("created_at") != r.str("updated_at")
		},
		"level3-not-carried-over": func(p *faultProbe) bool {
			return p.capture(p.authorize(1000, true), map[string]any{"capture_amount": 1000}).field("additional_purchase_data") == nil
		},
		"tax-exempt-with-sales-tax-accepted": func(p *faultProbe) bool {
			return p.saleL3(func(apd map[string]any) { apd["tax_exempt"], apd["sales_tax"] = true, 50 }).status == 201
		},
		"sales-tax-not-computed": func(p *faultProbe) bool {
			return p.saleL3(func(map[string]any) {}).field("additional_purchase_data.sales_tax") == nil
		},
		// sales
		"sale-returned-succeeded": func(p *faultProbe) bool { return p.sale(nil).str("state") != "PENDING" },
		"sale-self-link-to-collection": func(p *faultProbe) bool {
			r := p.sale(nil)
			return !strings.HasSuffix(r.str("_links.self.href"), "/"+r.str("id"))
		},
		"sale-fee-over-amount-accepted": func(p *faultProbe) bool {
			return p.sale(func(b map[string]any) { b["fee"] = 1001 }).status == 201
		},
		"timestamp-without-fraction": func(p *faultProbe) bool {
			return !strings.Contains(p.sale(nil).str("created_at"), ".")
		},
		"sale-subtype-not-api": func(p *faultProbe) bool { return p.sale(nil).str("subtype") != "API" },
		"sale-created-200":     func(p *faultProbe) bool { return p.sale(nil).status == 200 },
		"sale-decline-ignored": func(p *faultProbe) bool {
			return p.sale(func(b map[string]any) { b["amount"] = 102 }).status == 201
		},
		// idempotency
		"idempotent-replay-duplicates": func(p *faultProbe) bool {
			b := p.saleBody(1000, p.fx.Fixtures.Merchant)
			b["idempotency_id"] = "probe-replay"
			first := p.send(p.platform(), "POST", "/transfers", b).str("id")
			return p.send(p.platform(), "POST", "/transfers", b).str("id") != first
		},
		"idempotency-conflict-accepted": func(p *faultProbe) bool {
			b := p.saleBody(1000, p.fx.Fixtures.Merchant)
			b["idempotency_id"] = "probe-conflict"
			p.send(p.platform(), "POST", "/transfers", b)
			b["amount"] = 1200
			return p.send(p.platform(), "POST", "/transfers", b).status == 201
		},
		// authentication and tenancy
		"unauthenticated-accepted-on-one-operation": func(p *faultProbe) bool {
			return p.send(nil, "GET", "/webhooks", nil).status == 200
		},
		"wrong-password-accepted-on-one-operation": func(p *faultProbe) bool {
			return p.send(&reference.Credential{Username: p.platform().Username, Password: "wrong"}, "GET", "/disputes", nil).status == 200
		},
		"unauthenticated-answered-403": func(p *faultProbe) bool {
			return p.send(nil, "GET", "/disputes", nil).status == 403
		},
		"merchant-user-can-update-merchant": func(p *faultProbe) bool {
			return p.send(p.merchant(), "PUT", "/merchants/"+p.fx.Fixtures.Merchant, map[string]any{"level_two_level_three_data_enabled": true}).status == 200
		},
		"other-application-visible": func(p *faultProbe) bool {
			return p.send(p.other(), "GET", "/payment_instruments/"+p.card(), nil).status == 200
		},
		// merchants
		"api-key-in-clear": func(p *faultProbe) bool {
			return p.must(200, "GET", "/merchants/"+p.fx.Fixtures.Merchant, nil).str("processor_details.api_key") != "<API_KEY>"
		},
		"merchant-self-link-relative": func(p *faultProbe) bool {
			return strings.HasPrefix(p.must(200, "GET", "/merchants/"+p.fx.Fixtures.Merchant, nil).str("_links.self.href"), "/")
		},
		// errors
		"error-envelope-missing-total": func(p *faultProbe) bool {
			return p.must(404, "GET", notFoundHook, nil).field("total") == nil
		},
		"error-envelope-missing-embedded": func(p *faultProbe) bool {
			return p.must(404, "GET", notFoundHook, nil).field("_embedded") == nil
		},
		"error-logref-not-object": func(p *faultProbe) bool {
			_, isObject := p.must(404, "GET", notFoundHook, nil).field("_embedded.errors.0.logref").(map[string]any)
			return !isObject
		},
		"error-source-link-missing": func(p *faultProbe) bool {
			return p.must(404, "GET", notFoundHook, nil).field("_embedded.errors.0._links.source") == nil
		},
		"error-total-miscounted": func(p *faultProbe) bool {
			r := p.must(404, "GET", notFoundHook, nil)
			n, _ := numberOf(r.field("total"))
			return n != int64(len(errorItems(r)))
		},
		"validation-reports-first-only": func(p *faultProbe) bool {
			return len(errorItems(p.send(p.platform(), "POST", "/transfers", map[string]any{"currency": "USD", "amount": 100}))) < 2
		},
		"method-not-allowed-answered-404": func(p *faultProbe) bool {
			return p.send(p.platform(), "DELETE", "/transfers", nil).status == 404
		},
		// content negotiation
		"not-acceptable-without-envelope": func(p *faultProbe) bool {
			r := p.send(p.platform(), "GET", "/webhooks", nil, "Accept", "text/csv")
			return r.status == 406 && r.field("total") == nil
		},
		"unsupported-content-type-accepted": func(p *faultProbe) bool {
			return p.send(p.platform(), "POST", "/webhooks", []byte(`{"url":"`+probeHookURL+`"}`), "Content-Type", "text/plain").status == 201
		},
		"vnd-api-json-refused": func(p *faultProbe) bool {
			b, _ := json.Marshal(p.saleBody(700, p.fx.Fixtures.Merchant))
			return p.send(p.platform(), "POST", "/transfers", b, "Content-Type", "application/vnd.api+json").status == 406
		},
		"hal-json-refused": func(p *faultProbe) bool {
			b, _ := json.Marshal(p.saleBody(700, p.fx.Fixtures.Merchant))
			return p.send(p.platform(), "POST", "/transfers", b, "Content-Type", "application/hal+json").status == 406
		},
		// subscriptions
		"subscription-amount-updated-twice": func(p *faultProbe) bool {
			sched, amt := p.freshAmount()
			base := "/subscription/subscription_schedules/" + sched + "/subscription_amounts/"
			updated := p.must(200, "PATCH", base+amt, probeAmountBody(900)).str("id")
			return p.send(p.platform(), "PATCH", base+updated, probeAmountBody(1200)).status == 200
		},
		"subscription-update-keeps-id": func(p *faultProbe) bool {
			sched, amt := p.freshAmount()
			return p.must(200, "PATCH", "/subscription/subscription_schedules/"+sched+"/subscription_amounts/"+amt, probeAmountBody(900)).str("id") == amt
		},
		"enrollment-fetchable-after-delete": func(p *faultProbe) bool {
			id := p.enroll().str("id")
			p.must(204, "DELETE", "/subscription/subscription_enrollments/"+id, nil)
			return p.send(p.platform(), "GET", "/subscription/subscription_enrollments/"+id, nil).status == 200
		},
		"subscription-update-label-is-nickname": func(p *faultProbe) bool {
			sched, amt := p.freshAmount()
			return p.must(200, "PATCH", "/subscription/subscription_schedules/"+sched+"/subscription_amounts/"+amt, probeAmountBody(900)).str("fee_amount_data.label") != "probe"
		},
		"enrollment-delete-returns-body": func(p *faultProbe) bool {
			r := p.send(p.platform(), "DELETE", "/subscription/subscription_enrollments/"+p.enroll().str("id"), nil)
			return len(r.body) > 0
		},
		"enrollment-id-prefix-wrong": func(p *faultProbe) bool {
			return !strings.HasPrefix(p.enroll().str("id"), "SUBENROLLMENT_")
		},
		// disputes
		"evidence-loses-file-name": func(p *faultProbe) bool {
			return p.upload("/disputes/"+p.fx.Fixtures.Dispute+"/evidence", "receipt.pdf", []byte("%PDF-1.4")).field("tags.file-name") == nil
		},
		"adjustment-wrong-type": func(p *faultProbe) bool {
			items := listItems(p.must(200, "GET", "/disputes/"+p.fx.Fixtures.Dispute+"/adjustment_transfers", nil).doc)
			return len(items) > 0 && items[0].(map[string]any)["type"] != "DISPUTE"
		},
		"adjustment-carries-self-link": func(p *faultProbe) bool {
			items := listItems(p.must(200, "GET", "/disputes/"+p.fx.Fixtures.Dispute+"/adjustment_transfers", nil).doc)
			return len(items) > 0 && objectAt(items[0], "_links.self") != nil
		},
		"dispute-transfer-wrong": func(p *faultProbe) bool {
			tr := p.must(200, "GET", "/disputes/"+p.fx.Fixtures.Dispute, nil).str("transfer")
			return p.send(p.platform(), "GET", "/transfers/"+tr, nil).status != 200
		},
		"evidence-list-empty": func(p *faultProbe) bool {
			return len(listItems(p.must(200, "GET", "/disputes/"+p.fx.Fixtures.Dispute+"/evidence", nil).doc)) == 0
		},
		"dispute-not-found-answered-400": func(p *faultProbe) bool {
			return p.send(p.platform(), "GET", "/disputes/DI0000000000000000000000", nil).status == 400
		},
		// balance transfers
		"balance-transfer-self-link-missing": func(p *faultProbe) bool {
			return p.must(200, "GET", "/balance_transfers/"+p.fx.Fixtures.BalanceTransfer, nil).field("_links.self") == nil
		},
		"balance-transfer-source-renamed": func(p *faultProbe) bool {
			return p.must(200, "GET", "/balance_transfers/"+p.fx.Fixtures.BalanceTransfer, nil).str("source") != "OPERATING_ACCOUNT"
		},
		// files and external links
		"file-created-pending": func(p *faultProbe) bool {
			return p.must(200, "POST", "/files", map[string]any{"display_name": "probe", "linked_to": p.fx.Fixtures.Merchant, "type": "OTHER"}).str("status") != "REQUIRES_UPLOAD"
		},
		"file-uploaded-event-missing": func(p *faultProbe) bool {
			p.webhook()
			p.uploadedFile([]byte("statement"))
			_, got := p.hooks.await(5*time.Second, isUploadedFileEvent)
			return !got
		},
		"file-download-altered": func(p *faultProbe) bool {
			id := p.uploadedFile([]byte("statement body"))
			return string(p.must(200, "POST", "/files/"+id+"/download", nil).body) != "statement body"
		},
		"file-display-name-dropped": func(p *faultProbe) bool {
			return p.must(200, "POST", "/files", map[string]any{"display_name": "probe name", "linked_to": p.fx.Fixtures.Merchant, "type": "OTHER"}).str("display_name") != "probe name"
		},
		"external-link-type-wrong": func(p *faultProbe) bool {
			return p.must(200, "POST", "/files/"+p.file("probe")+"/external_links", map[string]any{"type": "UPLOAD"}).str("type") != "UPLOAD"
		},
		"external-link-url-relative": func(p *faultProbe) bool {
			return strings.HasPrefix(p.must(200, "POST", "/files/"+p.file("probe")+"/external_links", map[string]any{"type": "UPLOAD"}).str("url"), "/")
		},
		// webhooks
		"webhook-url-over-120-accepted": func(p *faultProbe) bool {
			url := "https://example.com/" + strN(121-len("https://example.com/"))
			return p.send(p.platform(), "POST", "/webhooks", map[string]any{"url": url}).status == 201
		},
		"webhook-non-http-url-accepted": func(p *faultProbe) bool {
			return p.send(p.platform(), "POST", "/webhooks", map[string]any{"url": "ftp://example.com/hooks"}).status == 201
		},
		"webhook-secret-in-list": func(p *faultProbe) bool {
			p.webhook()
			for _, it := range listItems(p.must(200, "GET", "/webhooks", nil).doc) {
				if _, ok := it.(map[string]any)["secret_signing_key"]; ok {
					return true
				}
			}
			return false
		},
		"webhook-secret-missing-on-fetch": func(p *faultProbe) bool {
			return p.must(200, "GET", "/webhooks/"+p.webhook().str("id"), nil).field("secret_signing_key") == nil
		},
		"webhook-created-disabled": func(p *faultProbe) bool { return p.webhook().field("enabled") != true },
		"webhook-disable-ignored": func(p *faultProbe) bool {
			return p.must(200, "PUT", "/webhooks/"+p.webhook().str("id"), map[string]any{"enabled": false}).field("enabled") != false
		},
		"event-type-swapped": func(p *faultProbe) bool {
			p.webhook()
			p.authorize(1000, false)
			d, ok := p.hooks.await(5*time.Second, func(d probeDelivery) bool { return decodeFaultJSON(d.body)["entity"] == "authorization" })
			if !ok {
				p.t.Fatal("no event of the authorization")
			}
			return decodeFaultJSON(d.body)["type"] != "created"
		},
		"webhook-signature-bad": func(p *faultProbe) bool {
			secret := p.webhook().str("secret_signing_key")
			p.file("probe signed")
			d, ok := p.hooks.await(5*time.Second, func(probeDelivery) bool { return true })
			if !ok {
				p.t.Fatal("no webhook delivery")
			}
			header := d.header.Get("Finix-Signature")
			ts, _, _ := strings.Cut(strings.TrimPrefix(header, "timestamp="), ",")
			n, _ := strconv.ParseInt(ts, 10, 64)
			mac := hmac.New(sha256.New, []byte(secret))
			fmt.Fprintf(mac, "%d:%s", n, d.body)
			return header != fmt.Sprintf("timestamp=%d, sig=%x", n, mac.Sum(nil))
		},
		"webhook-authentication-not-sent": func(p *faultProbe) bool {
			p.must(http.StatusCreated, "POST", "/webhooks", map[string]any{"url": probeHookURL, "authentication": probeHookAuth()})
			d, ok := p.hooks.await(5*time.Second, func(probeDelivery) bool { return true })
			if !ok {
				p.t.Fatal("no webhook delivery")
			}
			return d.header.Get("Authorization") != "Basic "+base64.StdEncoding.EncodeToString([]byte("probe-user:probe-hook-pass"))
		},
		"webhook-auth-password-echoed": func(p *faultProbe) bool {
			created := p.must(http.StatusCreated, "POST", "/webhooks", map[string]any{"url": probeHookURL, "authentication": probeHookAuth()})
			updated := p.must(http.StatusOK, "PUT", "/webhooks/"+created.str("id"), map[string]any{"authentication": probeHookAuth()})
			return bytes.Contains(created.body, []byte("probe-hook-pass")) || bytes.Contains(updated.body, []byte("probe-hook-pass"))
		},
		// lists
		"default-page-size-not-20": func(p *faultProbe) bool {
			r := p.must(200, "GET", "/files/"+p.fileWithLinks(21)+"/external_links", nil)
			return len(listItems(r.doc)) != 20
		},
		"page-count-is-page-size": func(p *faultProbe) bool {
			n, _ := numberOf(p.must(200, "GET", "/files/"+p.fileWithLinks(21)+"/external_links", nil).field("page.count"))
			return n != 21
		},
		"default-order-ascending": func(p *faultProbe) bool {
			items := listItems(p.must(200, "GET", "/files/"+p.fileWithLinks(3)+"/external_links", nil).doc)
			first, last := items[0].(map[string]any), items[len(items)-1].(map[string]any)
			return first["created_at"].(string)+first["id"].(string) < last["created_at"].(string)+last["id"].(string)
		},
		"self-link-drops-sort": func(p *faultProbe) bool {
			return !strings.Contains(p.must(200, "GET", "/files/"+p.fileWithLinks(1)+"/external_links", nil).str("_links.self.href"), "sort=")
		},
		"offset-ignored": func(p *faultProbe) bool {
			n, _ := numberOf(p.must(200, "GET", "/files/"+p.fileWithLinks(3)+"/external_links?offset=2&limit=5", nil).field("page.offset"))
			return n != 2
		},
		"sort-parameter-ignored": func(p *faultProbe) bool {
			items := listItems(p.must(200, "GET", "/files/"+p.fileWithLinks(3)+"/external_links?sort=created_at,asc&sort=id,asc", nil).doc)
			first, last := items[0].(map[string]any), items[len(items)-1].(map[string]any)
			return first["created_at"].(string)+first["id"].(string) > last["created_at"].(string)+last["id"].(string)
		},
		"webhook-list-ignores-limit": func(p *faultProbe) bool {
			p.webhook()
			p.webhook()
			return len(listItems(p.must(200, "GET", "/webhooks?limit=1", nil).doc)) != 1
		},
		"enrollment-list-count-is-page-size": func(p *faultProbe) bool {
			p.enroll()
			p.enroll()
			n, _ := numberOf(p.must(200, "GET", "/subscription/subscription_enrollments?limit=1", nil).field("page.count"))
			return n < 2
		},
		"file-list-ignores-offset": func(p *faultProbe) bool {
			p.file("probe one")
			p.file("probe two")
			first := listItems(p.must(200, "GET", "/files?limit=1", nil).doc)
			second := listItems(p.must(200, "GET", "/files?offset=1&limit=1", nil).doc)
			return len(first) == 1 && len(second) == 1 && first[0].(map[string]any)["id"] == second[0].(map[string]any)["id"]
		},
		"dispute-list-ignores-limit": func(p *faultProbe) bool {
			n, _ := numberOf(p.must(200, "GET", "/disputes?limit=1", nil).field("page.limit"))
			return n != 1
		},
		"evidence-list-count-is-page-size": func(p *faultProbe) bool {
			path := "/disputes/" + p.fx.Fixtures.Dispute + "/evidence"
			p.upload(path, "one.pdf", []byte("%PDF-1.4"))
			p.upload(path, "two.pdf", []byte("%PDF-1.4"))
			n, _ := numberOf(p.must(200, "GET", path+"?limit=1", nil).field("page.count"))
			return n < 2
		},
		"evidence-list-embedded-null-when-empty": func(p *faultProbe) bool {
			items, ok := p.must(200, "GET", "/disputes/"+p.fx.Fixtures.Dispute+"/evidence?offset=1000", nil).field("_embedded.evidences").([]any)
			return !ok || items == nil
		},
		"limit-over-100-accepted": func(p *faultProbe) bool {
			return p.send(p.platform(), "GET", "/files/"+p.fileWithLinks(1)+"/external_links?limit=101", nil).status == 200
		},
	}
}

// TestFaultEffects shows each fault's effect on the wrapped reference, and
// that the unfaulted reference does not show it.
func TestFaultEffects(t *testing.T) {
	ps := probes()
	for _, f := range Catalog() {
		t.Run(f.Name, func(t *testing.T) {
			t.Parallel()
			probe, ok := ps[f.Name]
			require.True(t, ok, "no probe for fault %s", f.Name)
			assert.False(t, probe(newFaultProbe(t)), "unfaulted reference already shows %s (%s)", f.Name, f.Breaks)
			assert.True(t, probe(newFaultProbe(t, f.Name)), "with fault %s the reference does not show it (%s)", f.Name, f.Breaks)
		})
	}
	for name := range ps {
		_, ok := ByName(name)
		assert.True(t, ok, "probe %s names no fault of the catalog", name)
	}
}

// TestFaultCatalog checks the catalog is well formed: unique names, at least
// 40 faults, an expectation of FAIL or WARN, a catcher and tags for each, and
// every capability of the API covered.
func TestFaultCatalog(t *testing.T) {
	faults := Catalog()
	assert.GreaterOrEqual(t, len(faults), 40, "faults in the catalog")
	seen := map[string]bool{}
	byCapability := map[string]int{}
	for _, f := range faults {
		assert.False(t, seen[f.Name], "fault name %s is not unique", f.Name)
		seen[f.Name] = true
		byCapability[f.Capability]++
		assert.Contains(t, []string{ExpectFail, ExpectWarn}, f.Expect, "fault %s: Expect", f.Name)
		assert.NotEmpty(t, f.Breaks, "fault %s: Breaks", f.Name)
		assert.NotEmpty(t, f.Tags, "fault %s: Tags", f.Name)
		assert.NotEmpty(t, f.Catchers, "fault %s: Catchers", f.Name)
		assert.True(t, (f.wrap == nil) != (f.transport == nil), "fault %s: want exactly one of a handler wrapper and a webhook transport", f.Name)
		got, ok := ByName(f.Name)
		if assert.True(t, ok, "ByName(%q) finds nothing", f.Name) {
			assert.Equal(t, f.Name, got.Name, "ByName(%q)", f.Name)
		}
	}
	for _, c := range []string{
		"auth", "cards", "authorizations", "level3", "transfers", "idempotency", "merchants", "subscriptions",
		"disputes", "balance_transfers", "files", "external_links", "webhooks", "lists", "errors", "content",
	} {
		assert.Positive(t, byCapability[c], "faults breaking capability %s", c)
	}
	for _, c := range slices.Sorted(maps.Keys(byCapability)) {
		t.Logf("%-18s %d faults", c, byCapability[c])
	}
}

// TestUnknownFault checks that an unknown name is refused with the known names listed.
func TestUnknownFault(t *testing.T) {
	tests := []struct {
		name   string
		faults []string
	}{
		{"unknown alone", []string{"no-such-fault"}},
		{"unknown after a known one", []string{"bin-wrong", "no-such-fault"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := Serve(reference.Config{}, tc.faults)
			require.ErrorIs(t, err, ErrUnknown, "Serve with faults %v", tc.faults)
			assert.ErrorContains(t, err, "no-such-fault", "Serve with faults %v: the error names the unknown fault", tc.faults)
			assert.ErrorContains(t, err, "capture-over-amount-accepted", "Serve with faults %v: the error lists the known faults", tc.faults)
			_, err = Handler(http.NotFoundHandler(), tc.faults, reference.Seeded{})
			assert.ErrorIs(t, err, ErrUnknown, "Handler with faults %v", tc.faults)
			_, err = Client(nil, tc.faults)
			assert.ErrorIs(t, err, ErrUnknown, "Client with faults %v", tc.faults)
		})
	}
}

// TestNoFaultsIsTheReference checks that with no faults the webhook client is
// left as given and requests reach the Server unchanged.
func TestNoFaultsIsTheReference(t *testing.T) {
	c := &http.Client{}
	tests := []struct {
		name      string
		faults    []string
		unchanged bool
	}{
		{"no faults", nil, true},
		{"a handler-only fault", []string{"bin-wrong"}, true},
		{"a webhook fault", []string{"webhook-signature-bad"}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Client(c, tc.faults)
			require.NoError(t, err, "Client(c, %v)", tc.faults)
			if tc.unchanged {
				assert.Same(t, c, got, "Client(c, %v) leaves c as it is", tc.faults)
				return
			}
			assert.NotSame(t, c, got, "Client(c, %v) returns a copy", tc.faults)
			assert.NotNil(t, got.Transport, "Client(c, %v) wraps the transport", tc.faults)
			assert.Nil(t, c.Transport, "Client(c, %v) leaves c's transport alone", tc.faults)
		})
	}
}
