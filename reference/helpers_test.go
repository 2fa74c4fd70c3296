package reference

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/conform-kit/conform/reference/internal/fake"
	"github.com/conform-kit/conform/reference/ledger"
	"github.com/conform-kit/conform/reference/memstore"
	"github.com/conform-kit/conform/validate"
)

// testBase is the BaseURL of test servers.
const testBase = "http://reference.test"

// clock is the tests' settable clock (package fake).
type clock = fake.Clock

func newClock() *clock { return fake.NewClock() }

// counterIDs returns an id source producing prefix + a 22-digit counter.
func counterIDs() func(string) string { return fake.CounterIDs() }

// harness is a test server with its clock and fixtures.
type harness struct {
	t     testing.TB
	srv   *Server
	clock *clock
	fx    ledger.Seeded
	v     *validate.Validator
	// db is the test's own pool on the harness's database (sandboxReplica;
	// pgPool), nil for a sandbox in memory.
	db *pgxpool.Pool

	mu     sync.Mutex
	bodies [][]byte // every response body, for the secrets walk
}

func newHarness(t testing.TB, mutate ...func(*Config)) *harness {
	t.Helper()
	c := newClock()
	// Tests move the clock by days: resources do not expire by age unless a
	// test asks for it.
	cfg := Config{BaseURL: testBase, Now: c.Now, NewID: counterIDs(), Seed: 7, ReviewDelay: time.Millisecond, RetryScale: 0.0001,
		Limits: ledger.Limits{MaxAge: -1}, WebhookClient: loopbackOnly()}
	for _, m := range mutate {
		m(&cfg)
	}
	srv, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	t.Cleanup(func() {
		if st := srv.memory(); st != nil {
			checkIndexes(t, st)
		}
	})
	v, err := validate.Default()
	if err != nil {
		t.Fatalf("validate.Default: %v", err)
	}
	return &harness{t: t, srv: srv, clock: c, fx: srv.Seeded(), v: v}
}

// response is one recorded response.
type response struct {
	status int
	header http.Header
	body   []byte
}

func (r response) json(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.body, &m); err != nil {
		t.Fatalf("decode body %q: %v", truncate(r.body), err)
	}
	return m
}

func (r response) str(t testing.TB, key string) string {
	t.Helper()
	s, _ := r.json(t)[key].(string)
	return s
}

func truncate(b []byte) string {
	if len(b) > 512 {
		return string(b[:512]) + "..."
	}
	return string(b)
}

// call sends a request as cred; body may be nil, a string or a value to encode as JSON.
func (h *harness) call(cred ledger.Credential, method, path string, body any, headers ...string) response {
	h.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		enc, err := json.Marshal(b)
		if err != nil {
			h.t.Fatalf("encode body: %v", err)
		}
		rd = bytes.NewReader(enc)
	}
	req := httptest.NewRequest(method, testBase+path, rd)
	if body != nil {
		req.Header.Set("Content-Type", "application/vnd.json+api")
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	if cred.Username != "" {
		req.SetBasicAuth(cred.Username, cred.Password)
	}
	rec := httptest.NewRecorder()
	h.srv.ServeHTTP(rec, req)
	h.mu.Lock()
	h.bodies = append(h.bodies, rec.Body.Bytes())
	h.mu.Unlock()
	return response{status: rec.Code, header: rec.Header(), body: rec.Body.Bytes()}
}

// expect asserts the status and, for JSON bodies, that the body matches
// schema (the error envelope for errors).
func (h *harness) expect(r response, status int, schema string) response {
	h.t.Helper()
	if r.status != status {
		h.t.Fatalf("status %d, want %d; body: %s", r.status, status, truncate(r.body))
	}
	if r.status >= 400 {
		schema = "error"
	}
	if schema != "" {
		if err := h.v.Resource(schema, r.body); err != nil {
			h.t.Fatalf("body does not match %s: %v\nbody: %s", schema, err, truncate(r.body))
		}
	}
	return r
}

// errorCode returns the code of the first envelope item.
func errorCode(t testing.TB, r response) string {
	t.Helper()
	items, _ := r.json(t)["_embedded"].(map[string]any)["errors"].([]any)
	if len(items) == 0 {
		t.Fatalf("no error items in %s", truncate(r.body))
	}
	code, _ := items[0].(map[string]any)["code"].(string)
	return code
}

func (h *harness) platform() ledger.Credential { return h.fx.Credentials.Platform }
func (h *harness) merchant() ledger.Credential { return h.fx.Credentials.Merchant }
func (h *harness) other() ledger.Credential    { return h.fx.Credentials.OtherApplication }

// card creates a Visa card for the buyer identity and returns its id.
func (h *harness) card() string {
	h.t.Helper()
	r := h.call(h.platform(), "POST", "/payment_instruments", cardBody(h.fx.Fixtures.BuyerIdentity, "4111111111111111"))
	return h.expect(r, 201, "payment_instrument").str(h.t, "id")
}

func cardBody(identity, number string) map[string]any {
	return map[string]any{
		"type": "PAYMENT_CARD", "name": "Jane Buyer", "number": number,
		"expiration_month": 12, "expiration_year": 2030, "security_code": "737",
		"identity": identity, "address": map[string]any{"postal_code": "94110", "line1": "1 Main St"},
	}
}

// purchaseDataBody is complete Level 3 data for a create or sale.
func purchaseDataBody() map[string]any {
	return map[string]any{
		"customer_reference_number": "CRN-1", "customs_duty_amount": 0, "discount_amount": 0, "shipping_amount": 100,
		"item_data": []any{map[string]any{
			"amount_excluding_sales_tax": 1000, "amount_including_sales_tax": 1080, "commodity_code": "12345",
			"cost_per_unit": 1000, "item_description": "Widget", "item_discount_amount": 0,
			"merchant_product_code": "W-1", "quantity": 1, "unit_of_measure": "EA",
		}},
	}
}

// eventually polls cond until it holds or a minute passes. The minute is
// a stall detector, not a timing assertion: what it waits for (a delivery,
// a retry, the outbox) takes milliseconds on a quiet machine and seconds at
// a load of 35, where 5 seconds failed TestPendingDeliveriesAreBounded; a
// condition that holds returns at once whatever the bound.
func eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	eventuallyWithin(t, time.Minute, what, cond)
}

// eventuallyWithin is eventually with a deadline of d, for a condition that
// waits on the reference's own timers (webhook retries).
func eventuallyWithin(t testing.TB, d time.Duration, what string, cond func() bool) {
	t.Helper()
	if !within(d, cond) {
		t.Fatalf("timed out waiting for %s", what)
	}
}

// within polls cond every millisecond until it holds (true) or d has
// passed (false), so a caller can say what it saw when it did not.
func within(d time.Duration, cond func() bool) bool {
	deadline := time.After(d)
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for !cond() {
		select {
		case <-deadline:
			return false
		case <-tick.C:
		}
	}
	return true
}

// loopbackOnly is the tests' default webhook client: it connects to
// loopback addresses only and refuses any other host before resolving it,
// so no delivery a test causes ever leaves the machine.
func loopbackOnly() *http.Client {
	d := &net.Dialer{Timeout: time.Second}
	return &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			host, _, err := net.SplitHostPort(addr)
			if err != nil {
				return nil, fmt.Errorf("test transport: %w", err)
			}
			if ip, err := netip.ParseAddr(host); err != nil || !ip.IsLoopback() {
				return nil, fmt.Errorf("test transport: %s is not a loopback address", addr)
			}
			return d.DialContext(ctx, network, addr)
		},
	}}
}

func urlQuery(s string) (url.Values, error) { return url.ParseQuery(s) }

// containsToken reports whether text holds token as a token of its own: not
// inside a longer run of letters and digits. A security code is a few
// digits, which a random hex value (a logref, a request id) or a logged
// duration holds now and then; a leaked one stands apart ("9731",
// security_code=9731).
func containsToken(text, token string) bool {
	alnum := func(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
	for from := 0; ; {
		i := strings.Index(text[from:], token)
		if i < 0 {
			return false
		}
		start, end := from+i, from+i+len(token)
		if (start == 0 || !alnum(text[start-1])) && (end == len(text) || !alnum(text[end])) {
			return true
		}
		from = start + 1
	}
}

// memory is the in-memory store of a Server whose sandbox is in memory
// (MemoryStore or PostgresLedger), nil for one in PostgreSQL.
func (s *Server) memory() *memstore.Store {
	switch st := s.units.(type) {
	case *memstore.Store:
		return st
	case interface{ Memory() *memstore.Store }: // PostgresLedger's
		return st.Memory()
	}
	return nil
}

// heldRecords is a copy of every record a memory store holds, of every
// application, taken through its copy-out (memstore.Store.PutRecords)
// into tables that keep what is put.
type heldRecords struct {
	ledger.Tx   // the tables below are all PutRecords reaches
	identities  keptTable[ledger.Identity]
	cards       keptTable[ledger.PaymentInstrument]
	auths       keptTable[ledger.Authorization]
	transfers   keptTable[ledger.Transfer]
	merchants   keptTable[ledger.Merchant]
	disputes    keptTable[ledger.Dispute]
	schedules   keptTable[ledger.SubscriptionSchedule]
	amounts     keptTable[ledger.SubscriptionAmount]
	enrollments keptTable[ledger.SubscriptionEnrollment]
	balances    keptTable[ledger.BalanceTransfer]
	evidence    keptTable[ledger.Evidence]
	files       keptTable[ledger.File]
	links       keptTable[ledger.ExternalLink]
	webhooks    keptTable[ledger.Webhook]
}

// keptTable keeps every record put into it, in the order put.
type keptTable[T any] struct {
	ledger.Table[T] // only Put is used
	got             []T
}

func (k *keptTable[T]) Put(v *T) { k.got = append(k.got, *v) }

// held copies out what st holds.
func held(st *memstore.Store) *heldRecords {
	r := &heldRecords{}
	st.PutRecords(r)
	return r
}

func (r *heldRecords) Identities() ledger.Table[ledger.Identity]            { return &r.identities }
func (r *heldRecords) Cards() ledger.Table[ledger.PaymentInstrument]        { return &r.cards }
func (r *heldRecords) Authorizations() ledger.Table[ledger.Authorization]   { return &r.auths }
func (r *heldRecords) Transfers() ledger.Table[ledger.Transfer]             { return &r.transfers }
func (r *heldRecords) Merchants() ledger.Table[ledger.Merchant]             { return &r.merchants }
func (r *heldRecords) Disputes() ledger.Table[ledger.Dispute]               { return &r.disputes }
func (r *heldRecords) Schedules() ledger.Table[ledger.SubscriptionSchedule] { return &r.schedules }
func (r *heldRecords) Amounts() ledger.Table[ledger.SubscriptionAmount]     { return &r.amounts }
func (r *heldRecords) Enrollments() ledger.Table[ledger.SubscriptionEnrollment] {
	return &r.enrollments
}
func (r *heldRecords) BalanceTransfers() ledger.Table[ledger.BalanceTransfer] { return &r.balances }
func (r *heldRecords) Evidence() ledger.Table[ledger.Evidence]                { return &r.evidence }
func (r *heldRecords) Files() ledger.Table[ledger.File]                       { return &r.files }
func (r *heldRecords) Links() ledger.Table[ledger.ExternalLink]               { return &r.links }
func (r *heldRecords) Webhooks() ledger.Table[ledger.Webhook]                 { return &r.webhooks }

// pgPool is a connection pool of the test's own on the database of a
// harness whose sandbox is in PostgreSQL (sandboxReplica), to read and
// change its rows as an operator would; the Server's store is not reached.
func (h *harness) pgPool() *pgxpool.Pool {
	h.t.Helper()
	if h.db == nil {
		h.t.Fatal("reference test: the harness has no PostgreSQL database")
	}
	return h.db
}

// testPool is a connection pool on dsn of the test's own, closed when the
// test ends.
func testPool(t testing.TB, dsn string) *pgxpool.Pool {
	t.Helper()
	pool, err := pgxpool.New(context.Background(), dsn)
	if err != nil {
		t.Fatalf("connect to %s: %v", dsn, err)
	}
	t.Cleanup(pool.Close)
	return pool
}
