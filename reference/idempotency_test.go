package reference

import (
	"bytes"
	"sync"
	"testing"
)

func (h *harness) transferCount() int {
	h.srv.st.mu.Lock()
	defer h.srv.st.mu.Unlock()
	return len(h.srv.st.transfers)
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
	body := map[string]any{"source": h.card(), "merchant": h.fx.Fixtures.Merchant, "amount": amountDeclined, "currency": "USD", "idempotency_id": "d-1"}
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
