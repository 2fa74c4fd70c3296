package reference

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/conform-kit/conform/reference/ledger"
)

// The hostile-client test: a bounded attack on a loopback test server, a
// few thousand requests per class, written on raw connections so that
// methods, targets and headers reach the server exactly as sent. Every
// answer must be below 500, every 4xx in the error envelope (and small),
// and no answer may hold a card number, a security code, a password or a
// signing secret. Afterwards the ordinary flow must still work.

// attack is one request as written on the wire.
type attack struct {
	method, target string
	header         [][2]string
	body           []byte
}

// attackClass generates the requests of one class.
type attackClass struct {
	name string
	n    int
	gen  func(rnd *rand.Rand, i int) attack
}

// attackEnv is what the generators draw on.
type attackEnv struct {
	fx                     ledger.Seeded
	platform, merchant     string // Authorization header values
	other                  string
	card, transfer, file   string
	number, code, password string
	valid                  []validBody // built once by withBodies
	sale                   []byte      // a plain sale's JSON
	pad                    []byte      // maxUploadBytes+1 spaces, sliced for large bodies
}

// validBody is a body an operation accepts, as a document and as JSON.
type validBody struct {
	method, path string
	body         map[string]any
	json         []byte
}

func basic(c ledger.Credential) string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(c.Username+":"+c.Password))
}

func TestHostileClients(t *testing.T) {
	recv := newCountingReceiver(t)
	// Deliveries reach the counting receiver; those to webhooks the attack
	// itself registers are answered 204 in process, without a connection.
	h := newHarness(t, func(c *Config) { c.WebhookClient = &http.Client{Transport: onlyTo{recv.host, http.DefaultTransport}} })
	srv := httptest.NewUnstartedServer(h.srv)
	srv.Config.DisableGeneralOptionsHandler = true
	srv.Start()
	t.Cleanup(srv.Close)

	const number, code = "5555555555554444", "7391"
	body := cardBody(h.fx.Fixtures.BuyerIdentity, number)
	body["security_code"] = code
	card := h.expect(h.call(h.platform(), "POST", "/payment_instruments", body), 201, "").str(t, "id")
	transfer := h.expect(h.call(h.platform(), "POST", "/transfers", map[string]any{"source": card, "merchant": h.fx.Fixtures.Merchant, "amount": 500, "currency": "USD"}), 201, "").str(t, "id")
	// The webhook exists (its secret must never leak) but delivers only
	// after the attack, which would otherwise be mostly deliveries.
	wh := h.webhook(recv.url, map[string]any{"enabled": false})
	secret := wh["secret_signing_key"].(string)
	env := attackEnv{
		fx: h.fx, platform: basic(h.platform()), merchant: basic(h.merchant()), other: basic(h.other()),
		card: card, transfer: transfer, file: h.newFile("Passport"),
		number: number, code: code, password: h.platform().Password,
	}.withBodies()
	leaks := map[string]string{
		"card number": number, "security code": `"` + code + `"`, "signing secret": secret,
		"platform password": h.platform().Password, "merchant password": h.merchant().Password,
		"other password": h.other().Password,
	}

	// 3,000 requests per class; 1,000 under the race detector (make test),
	// which costs about ten times as much per request.
	n := 3000
	if raceBuild {
		n = 1000
	}
	classes := []attackClass{
		{"malformed JSON", n, env.malformedJSON},
		{"wrong types", n, env.wrongTypes},
		{"header and body limits", n, env.limits},
		{"path and method tricks", n, env.pathTricks},
		{"multipart bombs", n, env.multipartBombs},
		{"auth tricks", n, env.authTricks},
		{"query tricks", n, env.queryTricks},
	}
	addr := srv.Listener.Addr().String()
	// The classes attack at once, as clients of a shared sandbox would
	// (goroutines, not parallel subtests, which -parallel would queue).
	var wg sync.WaitGroup
	for _, c := range classes {
		wg.Go(func() {
			start := time.Now()
			statuses := runAttack(t, addr, c, h, leaks)
			t.Logf("%-24s %5d requests in %5.2fs: %s", c.name, c.n, time.Since(start).Seconds(), statuses)
		})
	}
	wg.Wait()

	// The ordinary flow still works, deliveries included.
	h.expect(h.call(h.platform(), "PUT", "/webhooks/"+wh["id"].(string), map[string]any{"enabled": true}), 200, "webhook")
	before := recv.count.Load()
	card2 := h.card()
	sale := h.expect(h.call(h.platform(), "POST", "/transfers", map[string]any{"source": card2, "merchant": h.fx.Fixtures.Merchant, "amount": 700, "currency": "USD"}), 201, "transfer")
	h.expect(h.call(h.platform(), "GET", "/transfers/"+sale.str(t, "id"), nil), 200, "transfer")
	auth := h.expect(h.call(h.platform(), "POST", "/authorizations", map[string]any{"source": card2, "merchant": h.fx.Fixtures.Merchant, "amount": 900, "currency": "USD"}), 201, "authorization").str(t, "id")
	h.expect(h.call(h.platform(), "PUT", "/authorizations/"+auth, map[string]any{"capture_amount": 900}), 200, "authorization")
	h.expect(h.call(h.platform(), "GET", "/disputes?limit=2", nil), 200, "dispute_list")
	eventually(t, "deliveries after the attack", func() bool { return recv.count.Load() >= before+3 })
}

// statusCounts counts answers by status, printed in order.
type statusCounts map[int]int

func (s statusCounts) String() string {
	keys := make([]int, 0, len(s))
	for k := range s {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	for i, k := range keys {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%d×%d", s[k], k)
	}
	return b.String()
}

// runAttack sends the class's requests from 4 workers, each on its own
// keep-alive connection, and checks every answer.
func runAttack(t *testing.T, addr string, c attackClass, h *harness, leaks map[string]string) statusCounts {
	t.Helper()
	const workers = 4
	var (
		mu       sync.Mutex
		counts   = statusCounts{}
		failures []string
		next     atomic.Int64
		wg       sync.WaitGroup
	)
	fail := func(msg string) {
		mu.Lock()
		defer mu.Unlock()
		if len(failures) < 10 {
			failures = append(failures, msg)
		}
	}
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rnd := rand.New(rand.NewPCG(uint64(w), 11))
			var conn *rawConn
			defer func() {
				if conn != nil {
					conn.Close()
				}
			}()
			for {
				i := int(next.Add(1)) - 1
				if i >= c.n {
					return
				}
				a := c.gen(rnd, i)
				status, header, body, err := conn.send(addr, a, &conn)
				if err != nil {
					fail(fmt.Sprintf("%s %.80s: %v", a.method, a.target, err))
					continue
				}
				mu.Lock()
				counts[status]++
				mu.Unlock()
				if msg := checkAnswer(h, a, status, header, body, leaks); msg != "" {
					fail(fmt.Sprintf("%s %.80s: %s", a.method, a.target, msg))
				}
			}
		}()
	}
	wg.Wait()
	for _, f := range failures {
		t.Errorf("%s: %s", c.name, f)
	}
	return counts
}

// checkAnswer returns what is wrong with one answer, or "".
func checkAnswer(h *harness, a attack, status int, header http.Header, body []byte, leaks map[string]string) string {
	_, unparsable := url.ParseRequestURI(a.target)
	switch {
	case status >= 500:
		return fmt.Sprintf("status %d: %s", status, truncate(body))
	case status == http.StatusBadRequest && unparsable != nil:
		// net/http refuses a target it cannot parse ("/%zz") with its own
		// plain 400 before any handler runs; nothing else may.
		if string(body) != "400 Bad Request" && a.method != http.MethodHead {
			return fmt.Sprintf("unparsable target answered %q", truncate(body))
		}
	case status >= 400 && a.method != http.MethodHead:
		if ct := header.Get("Content-Type"); ct != halJSON {
			return fmt.Sprintf("status %d with content type %q: %s", status, ct, truncate(body))
		}
		if err := h.v.Resource("error", body); err != nil {
			return fmt.Sprintf("status %d not in the envelope (%v): %s", status, err, truncate(body))
		}
		if len(body) > 32<<10 {
			return fmt.Sprintf("status %d: a %d-byte error answer", status, len(body))
		}
	}
	for name, s := range leaks {
		if bytes.Contains(body, []byte(s)) {
			return "the answer holds the " + name
		}
	}
	return ""
}

// rawConn is a keep-alive connection to the test server.
type rawConn struct {
	c    net.Conn
	r    *bufio.Reader
	head []byte // the last request's head, its memory reused
}

func (rc *rawConn) Close() { _ = rc.c.Close() }

// send writes a and reads the answer, dialing (or redialing) as needed.
func (rc *rawConn) send(addr string, a attack, slot **rawConn) (int, http.Header, []byte, error) {
	for attempt := 0; ; attempt++ {
		if *slot == nil {
			c, err := net.DialTimeout("tcp", addr, 5*time.Second)
			if err != nil {
				return 0, nil, nil, fmt.Errorf("dial: %w", err)
			}
			*slot = &rawConn{c: c, r: bufio.NewReader(c)}
		}
		conn := *slot
		_ = conn.c.SetDeadline(time.Now().Add(20 * time.Second))
		status, header, body, closed, err := conn.roundTrip(a)
		if err == nil {
			if closed {
				conn.Close()
				*slot = nil
			}
			return status, header, body, nil
		}
		conn.Close()
		*slot = nil
		if attempt > 0 {
			return 0, nil, nil, err
		}
		// A keep-alive connection the server closed in between: once more.
	}
}

func (rc *rawConn) roundTrip(a attack) (status int, header http.Header, body []byte, closed bool, err error) {
	head := append(rc.head[:0], a.method...)
	head = append(head, ' ')
	head = append(head, a.target...)
	head = append(head, " HTTP/1.1\r\nHost: reference.test\r\n"...)
	chunked := false
	for _, kv := range a.header {
		head = append(append(append(append(head, kv[0]...), ": "...), kv[1]...), "\r\n"...)
		chunked = chunked || (strings.EqualFold(kv[0], "Transfer-Encoding") && kv[1] == "chunked")
	}
	if !chunked {
		head = append(append(append(head, "Content-Length: "...), strconv.Itoa(len(a.body))...), "\r\n"...)
	}
	head = append(head, "\r\n"...)
	rc.head = head
	// The body goes out as it is, without a copy, beside the head.
	out := net.Buffers{head, a.body}
	if chunked {
		var b bytes.Buffer
		for rest := a.body; len(rest) > 0; {
			n := min(len(rest), 4096)
			fmt.Fprintf(&b, "%x\r\n", n)
			b.Write(rest[:n])
			b.WriteString("\r\n")
			rest = rest[n:]
		}
		b.WriteString("0\r\n\r\n")
		out[1] = b.Bytes()
	}
	// A server may answer and close before the whole body is written (a
	// refused upload): the answer is read all the same.
	_, werr := out.WriteTo(rc.c)
	resp, err := http.ReadResponse(rc.r, &http.Request{Method: a.method})
	for err == nil && resp.StatusCode == http.StatusContinue {
		resp, err = http.ReadResponse(rc.r, &http.Request{Method: a.method})
	}
	if err != nil {
		return 0, nil, nil, false, fmt.Errorf("read answer (write: %v): %w", werr, err)
	}
	closed = resp.Close || werr != nil
	defer resp.Body.Close()
	body, err = io.ReadAll(resp.Body)
	if err != nil {
		return 0, nil, nil, false, fmt.Errorf("read body: %w", err)
	}
	return resp.StatusCode, resp.Header, body, closed, nil
}

// countingReceiver is a loopback webhook receiver counting deliveries.
type countingReceiver struct {
	url, host string
	count     atomic.Int64
}

// onlyTo sends requests for host through next and answers every other one
// 204 itself.
type onlyTo struct {
	host string
	next http.RoundTripper
}

func (o onlyTo) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.URL.Host == o.host {
		return o.next.RoundTrip(r)
	}
	if r.Body != nil {
		_ = r.Body.Close()
	}
	return &http.Response{StatusCode: http.StatusNoContent, Body: http.NoBody, Header: http.Header{}, Request: r}, nil
}

func newCountingReceiver(t *testing.T) *countingReceiver {
	t.Helper()
	r := &countingReceiver{}
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		_, _ = io.Copy(io.Discard, req.Body)
		r.count.Add(1)
	}))
	t.Cleanup(s.Close)
	r.url = s.URL + "/hooks"
	r.host = s.Listener.Addr().String()
	return r
}

// ---- the classes ----

func pickOf[T any](rnd *rand.Rand, xs ...T) T { return xs[rnd.IntN(len(xs))] }

func jsonHeader(auth string) [][2]string {
	return [][2]string{{"Authorization", auth}, {"Content-Type", "application/json"}}
}

// withBodies returns e with the bodies the generators break, encoded
// once rather than on every request.
func (e attackEnv) withBodies() attackEnv {
	fx := e.fx.Fixtures
	e.valid = []validBody{
		{"POST", "/transfers", map[string]any{"source": e.card, "merchant": fx.Merchant, "amount": 100, "currency": "USD", "tags": map[string]any{"k": "v"}, "additional_purchase_data": purchaseDataBody()}, nil},
		{"POST", "/authorizations", map[string]any{"source": e.card, "merchant_identity": fx.MerchantIdentity, "amount": 100, "currency": "USD"}, nil},
		{"POST", "/payment_instruments", map[string]any{"type": "PAYMENT_CARD", "name": "J", "number": e.number, "expiration_month": 12, "expiration_year": 2030, "security_code": e.code, "identity": fx.BuyerIdentity, "address": map[string]any{"postal_code": "94110"}}, nil},
		{"POST", "/webhooks", map[string]any{"url": "http://127.0.0.1:9/hostile", "enabled": false, "enabled_events": []any{map[string]any{"entity": "transfer", "types": []any{"created"}}}}, nil},
		{"PUT", "/authorizations/AU0000000000000000000000", map[string]any{"capture_amount": 100, "fee": 0}, nil},
		{"POST", "/files", map[string]any{"display_name": "d", "linked_to": fx.Merchant, "type": "PASSPORT"}, nil},
		{"POST", "/subscription/subscription_schedules", map[string]any{"line_item_type": "FEE", "nickname": "n", "subscription_type": "PERIODIC_MONTHLY", "period_offset": map[string]any{"day": 1}}, nil},
		{"POST", "/balance_transfers", map[string]any{"amount": 100, "currency": "USD", "description": "d", "source": "OPERATING_ACCOUNT", "destination": "FOR_BENEFIT_OF_ACCOUNT", "processor_type": "LITLE_V1"}, nil},
	}
	for i := range e.valid {
		e.valid[i].json, _ = json.Marshal(e.valid[i].body)
	}
	e.sale, _ = json.Marshal(map[string]any{"source": e.card, "merchant": fx.Merchant, "amount": 100, "currency": "USD"})
	e.pad = bytes.Repeat([]byte(" "), maxUploadBytes+1)
	return e
}

func (e attackEnv) malformedJSON(rnd *rand.Rand, i int) attack {
	v := e.valid[i%len(e.valid)]
	valid := v.json
	var body []byte
	heavy := i%50 == 0 // large documents now and then, small ones otherwise
	size := func(n int) int {
		if heavy {
			return n
		}
		return n / 50
	}
	switch rnd.IntN(14) {
	case 0:
		body = valid[:rnd.IntN(len(valid))]
	case 1:
		body = make([]byte, rnd.IntN(512))
		for j := range body {
			body[j] = byte(rnd.IntN(256))
		}
	case 2:
		d := 1 + rnd.IntN(size(10000))
		body = []byte(strings.Repeat("[", d) + strings.Repeat("]", d))
	case 3:
		body = []byte(strings.Repeat(`{"a":`, 1+rnd.IntN(size(5000))) + "1" + strings.Repeat("}", rnd.IntN(size(5000))))
	case 4:
		body = bytes.Replace(valid, []byte(`100`), []byte(pickOf(rnd, "NaN", "Infinity", "-Infinity", "1e999999", "0x10", "01", "1.", ".5", "-", "1e", "+1")), 1)
	case 5:
		body = append([]byte("\xef\xbb\xbf"), valid...)
	case 6:
		body = append(append([]byte{}, valid[:len(valid)-1]...), []byte(`,"amount":1,"amount":"x"}`)...)
	case 7:
		body = append(append([]byte{}, valid...), pickOf(rnd, "x", "{}", "]", "\x00", ",")...)
	case 8:
		body = []byte(pickOf(rnd, `"\ud800"`, `{"currency":"\ud800\udfff\u0000"}`, `{"currency":"\xff\xfe"}`, `{"tags":{"\u0000":"\u0000"}}`))
	case 9:
		body = []byte(pickOf(rnd, "", " ", "\n\t", "null", "true", "[]", `"str"`, "0", "{}"))
	case 10:
		body = []byte(`{"amount":` + strings.Repeat("9", 1+rnd.IntN(size(100000))) + `}`)
	case 11:
		body = []byte(`{"tags":{` + strings.Repeat(`"k":"v",`, rnd.IntN(size(20000))) + `"z":"v"}}`)
	case 12:
		body = bytes.ReplaceAll(valid, []byte(`"`), []byte(`'`))
	default:
		body = []byte(strings.Repeat(" ", rnd.IntN(1000)) + string(valid[:len(valid)/2]) + strings.Repeat("\x00", rnd.IntN(10)))
	}
	return attack{method: v.method, target: v.path, header: jsonHeader(e.platform), body: body}
}

// otherTypes are values of every JSON type.
var otherTypes = []any{nil, true, false, 0, -1, 1.5, 1e300, "", "x", strings.Repeat("s", 300), []any{}, []any{1, "a"}, map[string]any{}, map[string]any{"a": map[string]any{"b": []any{nil}}}}

func (e attackEnv) wrongTypes(rnd *rand.Rand, i int) attack {
	v := e.valid[i%len(e.valid)]
	var doc map[string]any
	_ = json.Unmarshal(v.json, &doc) // a fresh copy to change
	// Replace one field somewhere in the document (nested ones included).
	paths := jsonPaths(doc, "")
	p := paths[rnd.IntN(len(paths))]
	setAt(doc, p, otherTypes[rnd.IntN(len(otherTypes))])
	if rnd.IntN(4) == 0 { // and sometimes a second one, or an extra field
		doc[pickOf(rnd, "extra", "amount", "_links", "id", "created_at")] = otherTypes[rnd.IntN(len(otherTypes))]
	}
	body, _ := json.Marshal(doc)
	return attack{method: v.method, target: v.path, header: jsonHeader(e.platform), body: body}
}

// jsonPaths lists the paths of every value in doc ("a/b/0").
func jsonPaths(v any, prefix string) []string {
	var out []string
	switch x := v.(type) {
	case map[string]any:
		for k, c := range x {
			p := strings.TrimPrefix(prefix+"/"+k, "/")
			out = append(out, p)
			out = append(out, jsonPaths(c, p)...)
		}
	case []any:
		for i, c := range x {
			p := strings.TrimPrefix(fmt.Sprintf("%s/%d", prefix, i), "/")
			out = append(out, p)
			out = append(out, jsonPaths(c, p)...)
		}
	}
	slices.Sort(out)
	return out
}

func setAt(doc any, path string, val any) {
	parts := strings.Split(path, "/")
	cur := doc
	for i, p := range parts {
		last := i == len(parts)-1
		switch x := cur.(type) {
		case map[string]any:
			if last {
				x[p] = val
				return
			}
			cur = x[p]
		case []any:
			var n int
			fmt.Sscan(p, &n)
			if last {
				x[n] = val
				return
			}
			cur = x[n]
		}
	}
}

// padded returns n spaces followed by body, in a new slice.
func (e attackEnv) padded(n int, body []byte) []byte {
	return append(e.pad[:n:n], body...)
}

func (e attackEnv) limits(rnd *rand.Rand, i int) attack {
	fx := e.fx.Fixtures
	sale := e.sale
	a := attack{method: "POST", target: "/transfers", header: jsonHeader(e.platform), body: sale}
	heavy := i%60 < 12 // the costly variants run on one request in five
	if !heavy && i%12 >= 3 && i%12 <= 11 && i%12 != 5 && i%12 != 6 && i%12 != 7 {
		a.body = e.padded(rnd.IntN(100), sale)
		a.header = append(a.header, [2]string{"X-Variant", fmt.Sprint(i % 12)})
		return a
	}
	switch i % 12 {
	case 0: // just over the JSON limit, a few times; otherwise just under a small one
		if i%240 != 0 {
			a.body = e.padded(rnd.IntN(20000), sale)
			break
		}
		a.body = append(append([]byte(`{"pad":"`), e.pad[:maxJSONBytes+rnd.IntN(1000)]...), `"}`...)
	case 1: // chunked, over the limit (a few times)
		a.header = append(a.header, [2]string{"Transfer-Encoding", "chunked"})
		if i%240 == 1 {
			a.body = e.pad[:maxJSONBytes+1+rnd.IntN(100)]
		}
	case 2: // chunked, valid
		a.header = append(a.header, [2]string{"Transfer-Encoding", "chunked"})
	case 3: // many headers
		for j := range 100 + rnd.IntN(300) {
			a.header = append(a.header, [2]string{fmt.Sprintf("X-Junk-%d", j), strings.Repeat("j", rnd.IntN(100))})
		}
	case 4: // long header values
		a.header = append(a.header, [2]string{"X-Request-Id", strings.Repeat("r", 1+rnd.IntN(30000))}, [2]string{"X-Long", strings.Repeat("l", rnd.IntN(30000))})
	case 5: // Accept tricks
		a.header = append(a.header, [2]string{"Accept", pickOf(rnd, "text/html", "application/json;q=0", "*/*;q=0", strings.Repeat("application/x;q=0.1,", 2000)+"text/plain", "application/hal+json;q=abc", ";;;", "*/*;q=0.0001")})
	case 6: // Content-Type tricks
		a.header = [][2]string{{"Authorization", e.platform}, {"Content-Type", pickOf(rnd, "", "text/plain", "application/json; charset=utf-16", "application/json;;", "multipart/form-data", "application/json; x="+strings.Repeat("v", 5000), "application/xml", "*/*")}}
	case 7: // duplicate Content-Type
		a.header = append(a.header, [2]string{"Content-Type", "text/plain"})
	case 8: // GET with a body
		a.method, a.target = "GET", "/transfers/"+e.transfer
		a.body = e.pad[:rnd.IntN(100000)]
	case 9: // Level 3 with very many items (under the limit)
		item := purchaseDataBody()["item_data"].([]any)[0]
		items := make([]any, 1+rnd.IntN(50))
		for j := range items {
			items[j] = item
		}
		pd := purchaseDataBody()
		pd["item_data"] = items
		a.body, _ = json.Marshal(map[string]any{"source": e.card, "merchant": fx.Merchant, "amount": 100, "currency": "USD", "additional_purchase_data": pd})
	case 10: // an external upload over 10 MiB, a few times only
		if i == 10 { // once: the server answers and closes before reading it
			a = attack{method: "PUT", target: "/external_links/EL0000000000000000000000/upload", header: [][2]string{{"Content-Type", "application/pdf"}}, body: e.pad}
		} else {
			a.header = append(a.header, [2]string{"Expect", "100-continue"})
		}
	default: // an upload to a file, over the limit or not
		ct, body := multipartBytes("f.pdf", "application/pdf", bytes.Repeat([]byte("%"), rnd.IntN(20000)))
		a = attack{method: "POST", target: "/files/" + e.file + "/upload", header: [][2]string{{"Authorization", e.platform}, {"Content-Type", ct}}, body: body}
	}
	return a
}

func multipartBytes(name, contentType string, data []byte) (string, []byte) {
	const boundary = "hostileboundary"
	var b bytes.Buffer
	fmt.Fprintf(&b, "--%s\r\nContent-Disposition: form-data; name=\"file\"; filename=%q\r\nContent-Type: %s\r\n\r\n", boundary, name, contentType)
	b.Write(data)
	fmt.Fprintf(&b, "\r\n--%s--\r\n", boundary)
	return "multipart/form-data; boundary=" + boundary, b.Bytes()
}

var attackPaths = []string{
	"/authorizations", "/authorizations/{id}", "/balance_transfers", "/balance_transfers/{id}", "/disputes", "/disputes/{id}",
	"/disputes/{id}/evidence", "/disputes/{id}/evidence/{id}", "/disputes/{id}/adjustment_transfers", "/external_links/{id}/upload",
	"/files", "/files/{id}", "/files/{id}/download", "/files/{id}/external_links", "/files/{id}/external_links/{id}", "/files/{id}/upload",
	"/merchants/{id}", "/payment_instruments", "/payment_instruments/{id}", "/subscription/subscription_enrollments",
	"/subscription/subscription_enrollments/{id}", "/subscription/subscription_schedules", "/subscription/subscription_schedules/{id}",
	"/subscription/subscription_schedules/{id}/subscription_amounts", "/subscription/subscription_schedules/{id}/subscription_amounts/{id}",
	"/subscription/subscription_schedules/{id}/subscription_enrollments", "/transfers", "/transfers/{id}", "/webhooks", "/webhooks/{id}",
}

func (e attackEnv) pathTricks(rnd *rand.Rand, i int) attack {
	method := pickOf(rnd, "GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "TRACE", "CONNECT", "get", "Post", "FOO", "M-SEARCH", "PROPFIND", "PRI")
	id := pickOf(rnd, e.transfer, e.card, e.fx.Fixtures.Dispute, e.file, "", "x", "..", ".", "%2e%2e", "%2F", "%00", "%ff", "%zz", "ü", "\u202e", strings.Repeat("i", 1+rnd.IntN(3000)), "a;b", "a%3Bb", "*")
	p := strings.ReplaceAll(pickOf(rnd, attackPaths...), "{id}", id)
	switch rnd.IntN(10) {
	case 0:
		p = strings.ToUpper(p)
	case 1:
		p = "/" + p
	case 2:
		p += "/"
	case 3:
		p = strings.Replace(p, "/", "/./", 1)
	case 4:
		p = strings.Replace(p, "/", "/x/../", 1)
	case 5:
		p = strings.ReplaceAll(p, "/", "%2F")
		p = "/" + strings.TrimPrefix(p, "%2F")
	case 6:
		p = pickOf(rnd, "*", "/", "//", "/\\transfers", "/transfers\\..\\webhooks", "/%", "/%%", "/?", "/#", "reference.test:443", "http://reference.test/transfers", "HTTP://evil.example/webhooks")
	case 7:
		p = strings.Repeat("/a", 1+rnd.IntN(5000))
	}
	if method == "CONNECT" && rnd.IntN(2) == 0 {
		p = "reference.test:443"
	}
	if strings.ContainsAny(p, " \r\n") || p == "" {
		p = "/x"
	}
	return attack{method: method, target: p, header: [][2]string{{"Authorization", e.platform}}}
}

func (e attackEnv) multipartBombs(rnd *rand.Rand, i int) attack {
	target := pickOf(rnd, "/disputes/"+e.fx.Fixtures.Dispute+"/evidence", "/files/"+e.file+"/upload")
	const boundary = "bomb"
	ct := "multipart/form-data; boundary=" + boundary
	var b bytes.Buffer
	switch i % 8 {
	case 0: // very many parts
		for j := range 1 + rnd.IntN(300) {
			fmt.Fprintf(&b, "--%s\r\nContent-Disposition: form-data; name=\"p%d\"\r\n\r\nv\r\n", boundary, j)
		}
		fmt.Fprintf(&b, "--%s--\r\n", boundary)
	case 1: // a part with very many headers
		fmt.Fprintf(&b, "--%s\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.pdf\"\r\n", boundary)
		for j := range 1 + rnd.IntN(1000) {
			fmt.Fprintf(&b, "X-H%d: v\r\n", j)
		}
		fmt.Fprintf(&b, "\r\n%%PDF\r\n--%s--\r\n", boundary)
	case 2: // no boundary, or a wrong one
		ct = pickOf(rnd, "multipart/form-data", "multipart/form-data; boundary=", "multipart/form-data; boundary=other", "multipart/form-data; boundary="+strings.Repeat("b", 100))
		fmt.Fprintf(&b, "--%s\r\nContent-Disposition: form-data; name=\"file\"\r\n\r\nx\r\n--%s--\r\n", boundary, boundary)
	case 3: // never terminated
		fmt.Fprintf(&b, "--%s\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.pdf\"\r\n\r\n%s", boundary, strings.Repeat("%PDF", rnd.IntN(2000)))
	case 4: // nested multipart
		fmt.Fprintf(&b, "--%s\r\nContent-Disposition: form-data; name=\"file\"; filename=\"n.pdf\"\r\nContent-Type: multipart/mixed; boundary=inner\r\n\r\n--inner\r\n\r\nx\r\n--inner--\r\n--%s--\r\n", boundary, boundary)
	case 5: // hostile file names and types
		name := pickOf(rnd, "../../etc/passwd", "a\x00.pdf", strings.Repeat("n", 5000)+".pdf", "", ".pdf", "a.exe", "ü.png", "a.pdf\r\nX: y")
		ctype := pickOf(rnd, "application/pdf", "", "text/html", "application/x-msdownload", strings.Repeat("t", 3000))
		fmt.Fprintf(&b, "--%s\r\nContent-Disposition: form-data; name=\"file\"; filename=%q\r\nContent-Type: %s\r\n\r\n%%PDF\r\n--%s--\r\n", boundary, name, ctype, boundary)
	case 6: // an empty file part, or many file parts
		for range 1 + rnd.IntN(50) {
			fmt.Fprintf(&b, "--%s\r\nContent-Disposition: form-data; name=\"file\"; filename=\"e.pdf\"\r\n\r\n\r\n", boundary)
		}
		fmt.Fprintf(&b, "--%s--\r\n", boundary)
	default: // garbage framing
		b.WriteString(pickOf(rnd, "--bomb", "--bomb\r\n", "----", "\r\n\r\n", "--bomb--", "--bomb\r\nContent-Disposition: form-data; name=\r\n\r\n"))
	}
	return attack{method: "POST", target: target, header: [][2]string{{"Authorization", e.platform}, {"Content-Type", ct}}, body: b.Bytes()}
}

func (e attackEnv) authTricks(rnd *rand.Rand, i int) attack {
	enc := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	user := e.fx.Credentials.Platform.Username
	auth := pickOf(rnd,
		"", "Basic", "Basic ", "Basic !!!", "Basic "+enc(user), "Basic "+enc(user+":"), "Basic "+enc(user+":wrong"),
		"Basic "+enc(":"+e.password), "Basic "+enc(strings.Repeat("u", 4000)+":"+strings.Repeat("p", 4000)),
		"basic "+enc(user+":"+e.password+"x"), "Bearer "+e.password, "Digest x", "Basic "+enc("ü:ö"),
		"Basic "+enc(user + ":" + e.password)[:10], e.other, e.merchant, e.platform+"x", "Basic "+enc(user+":"+e.password+":extra"),
	)
	v := e.valid[i%len(e.valid)]
	a := attack{method: v.method, target: v.path, body: v.json, header: [][2]string{{"Content-Type", "application/json"}}}
	if rnd.IntN(2) == 0 { // reads of application A's resources
		a = attack{method: "GET", target: pickOf(rnd, "/transfers/"+e.transfer, "/payment_instruments/"+e.card, "/disputes/"+e.fx.Fixtures.Dispute, "/files/"+e.file, "/merchants/"+e.fx.Fixtures.Merchant, "/webhooks", "/disputes")}
	}
	if auth != "" {
		a.header = append(a.header, [2]string{"Authorization", auth})
	}
	if rnd.IntN(10) == 0 { // two Authorization headers
		a.header = append(a.header, [2]string{"Authorization", e.platform})
	}
	return a
}

func (e attackEnv) queryTricks(rnd *rand.Rand, i int) attack {
	list := pickOf(rnd, "/disputes", "/balance_transfers", "/files", "/webhooks", "/subscription/subscription_enrollments",
		"/disputes/"+e.fx.Fixtures.Dispute+"/evidence", "/disputes/"+e.fx.Fixtures.Dispute+"/adjustment_transfers", "/files/"+e.file+"/external_links")
	val := func() string {
		return pickOf(rnd, "", "-1", "0", "1", "100", "101", "2147483648", "99999999999999999999", "1e3", "0x10", "+1", "1+", "%20", "%zz", "%00", "ü", "NaN",
			"id", "id,asc", "amount,desc", "created_at,sideways", "id,", ",asc", "id,asc,desc", strings.Repeat("9", 1+rnd.IntN(3000)))
	}
	var q []string
	for range 1 + rnd.IntN(6) {
		q = append(q, pickOf(rnd, "limit", "offset", "sort", "LIMIT", "limit[]", "x", "sort%00", "")+"="+val())
	}
	switch rnd.IntN(8) {
	case 0:
		for range 100 + rnd.IntN(1500) {
			q = append(q, "sort=id,asc")
		}
	case 1:
		q = append(q, "a;b=c")
	case 2:
		q = append(q, strings.Repeat("&", rnd.IntN(3000)))
	}
	target := list + "?" + strings.Join(q, "&")
	if rnd.IntN(10) == 0 {
		target += "#frag"
	}
	return attack{method: "GET", target: target, header: [][2]string{{"Authorization", e.platform}}}
}
