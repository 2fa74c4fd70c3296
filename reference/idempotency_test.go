package reference

import (
	"bytes"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/conform-kit/conform/reference/ledger"
)

func (h *harness) transferCount() int {
	return h.srv.memory().Counts()["transfers"]
}

func TestIdempotentSale(t *testing.T) {
	h := newHarness(t)
	card := h.card()
	body := map[string]any{"source": card, "merchant": h.fx.Fixtures.Merchant, "amount": 700, "currency": "USD", "idempotency_id": "order-1"}
	first := h.expect(h.call(h.platform(), "POST", "/transfers", body), 201, "transfer")
	before := h.transferCount()
	again := h.expect(h.call(h.platform(), "POST", "/transfers", body), 201, "transfer")
	if !bytes.Equal(first.body, again.body) {
		t.Errorf("replay body differs:\n%s\n%s", first.body, again.body)
	}
	if h.transferCount() != before {
		t.Error("replay created a transfer")
	}
	// The same body re-serialised (other key order, spacing, 700.0) is the
	// same request.
	reordered := `{ "idempotency_id":"order-1", "currency":"USD","amount":700.0,` +
		`"merchant":"` + h.fx.Fixtures.Merchant + `", "source":"` + card + `"}`
	h.expect(h.call(h.platform(), "POST", "/transfers", reordered), 201, "transfer")
	if h.transferCount() != before {
		t.Error("a re-serialised replay created a transfer")
	}
	body["amount"] = 701
	r := h.expect(h.call(h.platform(), "POST", "/transfers", body), 422, "")
	if code := errorCode(t, r); code != "UNPROCESSABLE_ENTITY" {
		t.Errorf("reuse with another body: code %s", code)
	}
	// Scoped per application and operation: another application or the
	// authorization operation may use the same id.
	h.expect(h.call(h.platform(), "POST", "/authorizations", map[string]any{
		"source": card, "merchant": h.fx.Fixtures.Merchant, "amount": 700, "currency": "USD", "idempotency_id": "order-1",
	}), 201, "authorization")
}

func TestIdempotentDeclineReplays(t *testing.T) {
	h := newHarness(t)
	body := map[string]any{"source": h.card(), "merchant": h.fx.Fixtures.Merchant, "amount": ledger.AmountDeclined, "currency": "USD", "idempotency_id": "d-1"}
	first := h.expect(h.call(h.platform(), "POST", "/transfers", body), 402, "")
	again := h.expect(h.call(h.platform(), "POST", "/transfers", body), 402, "")
	if !bytes.Equal(first.body, again.body) {
		t.Errorf("declined replay differs:\n%s\n%s", first.body, again.body)
	}
}

func TestConcurrentIdempotentSales(t *testing.T) {
	h := newHarness(t)
	body := map[string]any{"source": h.card(), "merchant": h.fx.Fixtures.Merchant, "amount": 900, "currency": "USD", "idempotency_id": "race-1"}
	before := h.transferCount()
	const n = 50
	bodies := make([][]byte, n)
	statuses := make([]int, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := h.call(h.platform(), "POST", "/transfers", body)
			statuses[i], bodies[i] = r.status, r.body
		}()
	}
	wg.Wait()
	if got := h.transferCount() - before; got != 1 {
		t.Fatalf("%d transfers created, want exactly 1", got)
	}
	for i := range n {
		if statuses[i] != 201 || !bytes.Equal(bodies[i], bodies[0]) {
			t.Fatalf("request %d: status %d body %s, want 201 and the first body", i, statuses[i], truncate(bodies[i]))
		}
	}
}

func TestConcurrentCaptures(t *testing.T) {
	h := newHarness(t)
	id := h.expect(h.call(h.platform(), "POST", "/authorizations", map[string]any{
		"source": h.card(), "merchant": h.fx.Fixtures.Merchant, "amount": 1000, "currency": "USD",
	}), 201, "authorization").str(t, "id")
	const n = 50
	statuses := make(chan int, n)
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			statuses <- h.call(h.platform(), "PUT", "/authorizations/"+id, map[string]any{"capture_amount": 1000}).status
		}()
	}
	wg.Wait()
	close(statuses)
	counts := map[int]int{}
	for s := range statuses {
		counts[s]++
	}
	if counts[200] != 1 || counts[422] != n-1 {
		t.Errorf("statuses %v, want one 200 and %d 422", counts, n-1)
	}
}

// TestCanonicalIsMarshal compares the canonical encodings the idempotency
// hash reads with json.Marshal of the same decoded bodies (the encoding the
// hash was defined by), zero values included, so a field added to an input
// type without its canonical encoding fails here.
func TestCanonicalIsMarshal(t *testing.T) {
	bodies := []string{
		`{}`,
		`{"source":"PI1","merchant":"MU1","amount":1000,"fee":3,"currency":"USD","idempotency_id":"k<&>","tags":{"b":"1","a":"é"},"additional_purchase_data":{"z":1.50,"a":[{"q":2}],"s":"\u2028"}}`,
		`{"source":"PI1","merchant_identity":"ID1","amount":1e3,"currency":"USD","processor":"DUMMY_V1","idempotency_id":"k","additional_purchase_data":{}}`,
		`{"tags":{},"fee":null,"idempotency_id":null,"additional_purchase_data":null}`,
	}
	for _, body := range bodies {
		for _, in := range []canonical{(*saleBody)(&ledger.TransferCreate{}), (*authorizationBody)(&ledger.AuthorizationCreate{})} {
			dec := json.NewDecoder(strings.NewReader(body))
			dec.UseNumber()
			var doc any
			if err := dec.Decode(&doc); err != nil {
				t.Fatal(err)
			}
			if err := decodeTree(doc, in); err != nil {
				t.Fatalf("%s: %v", body, err)
			}
			got, err := in.appendCanonical(nil)
			if err != nil {
				t.Fatal(err)
			}
			want, err := json.Marshal(in)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(want) {
				t.Errorf("%T from %s:\ncanonical    %s\njson.Marshal %s", in, body, got, want)
			}
		}
	}
}
