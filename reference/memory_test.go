package reference

import (
	"encoding/json"
	"runtime"
	"testing"

	"github.com/conform-kit/conform/reference/ledger"
)

// TestMemoryPerLevel3Transfer measures the heap a stored Level 3 sale with
// five items keeps (the transfer, its purchase data, its retention entry),
// from runtime.MemStats before and after 2,000 sales: at most 3 KB each.
func TestMemoryPerLevel3Transfer(t *testing.T) {
	if testing.Short() {
		t.Skip("measures 2,000 sales")
	}
	const n = 2000
	h := newHarness(t, func(c *Config) {
		c.Limits = ledger.Limits{MaxAge: -1, MaxRetained: -1, MaxBytes: -1, CreatesPerMinute: -1}
	})
	card := h.card()
	data := purchaseDataBody() // with five items
	item := data["item_data"].([]any)[0]
	data["item_data"] = []any{item, item, item, item, item}
	sale, err := json.Marshal(map[string]any{
		"source": card, "merchant": h.fx.Fixtures.Merchant, "amount": 1000, "currency": "USD",
		"additional_purchase_data": data,
	})
	if err != nil {
		t.Fatal(err)
	}
	h.expect(h.call(h.platform(), "POST", "/transfers", sale), 201, "transfer")
	h.bodies = nil
	before := heapInUse()
	for range n {
		if r := h.call(h.platform(), "POST", "/transfers", sale); r.status != 201 {
			t.Fatalf("status %d", r.status)
		}
	}
	h.bodies = nil // the harness keeps every answer for other tests
	per := float64(heapInUse()-before) / n
	t.Logf("%.0f bytes of heap per stored Level 3 transfer (%d-byte request)", per, len(sale))
	if per > 3000 {
		t.Errorf("%.0f bytes per Level 3 transfer, want at most 3000", per)
	}
	runtime.KeepAlive(h)
}

// heapInUse is the live heap after a full collection.
func heapInUse() int64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}
