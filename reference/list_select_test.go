package reference

import (
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/conform-kit/conform/reference/ledger"
	"github.com/conform-kit/conform/reference/memstore"
)

// TestRepeatedSortKeysCountOnce: a sort field given again is dropped.
func TestRepeatedSortKeysCountOnce(t *testing.T) {
	q, err := urlQuery("sort=amount,asc&sort=id,desc&sort=amount,desc&sort=id,asc")
	if err != nil {
		t.Fatal(err)
	}
	lq, err := ledger.ParseListQuery(q)
	if err != nil {
		t.Fatal(err)
	}
	if want := []ledger.SortKey{{Field: "amount", Desc: false}, {Field: "id", Desc: true}}; !slices.Equal(lq.Sort, want) {
		t.Errorf("sort keys %v, want %v", lq.Sort, want)
	}
}

// BenchmarkSortedPage measures a page of 20 through the whole handler at
// 2,000, 20,000 and 200,000 balance transfers (-short: the first two): the
// default order (a walk of the series) beside sorted orders, which the
// series' index selects (first page, a deep page, descending, a second
// key over tied amounts). A sorted page grows with log n, not n.
func BenchmarkSortedPage(b *testing.B) {
	sizes := []int{2000, 20000, 200000}
	if testing.Short() {
		sizes = sizes[:2]
	}
	for _, n := range sizes {
		h := newHarness(b, func(c *Config) {
			c.Limits = ledger.Limits{MaxAge: -1, MaxRetained: -1, MaxBytes: -1, CreatesPerMinute: -1}
		})
		for i := range n {
			r := h.call(h.platform(), "POST", "/balance_transfers", map[string]any{
				"amount": 1 + (i*7919)%100000, "currency": "USD", "description": "d", "source": "OPERATING_ACCOUNT",
				"destination": "FOR_BENEFIT_OF_ACCOUNT", "processor_type": "LITLE_V1",
			})
			if r.status != 201 {
				b.Fatalf("status %d: %s", r.status, truncate(r.body))
			}
			if i%100 == 99 {
				h.clock.Advance(time.Millisecond) // ties in updated_at, 100 records each
			}
		}
		h.bodies = nil
		for _, tc := range []struct{ name, query string }{
			{"default", "?limit=20"},
			{"amount_asc", "?limit=20&sort=amount,asc"},
			{"amount_desc_deep", fmt.Sprintf("?limit=20&offset=%d&sort=amount,desc", n/2)},
			{"updated_desc_id", "?limit=20&sort=updated_at,desc&sort=id,asc"},
		} {
			b.Run(fmt.Sprintf("%d/%s", n, tc.name), func(b *testing.B) {
				runBench(b, h.srv, "GET", "/balance_transfers"+tc.query, nil, h, 200)
			})
		}
	}
}

// checkIndexes fails t when any list's index of st is out of date: a
// change of updated_at or amount without series.touch. Every harness runs
// it when its test ends.
func checkIndexes(t testing.TB, st *memstore.Store) {
	t.Helper()
	if err := st.CheckIndexes(); err != nil {
		t.Error(err)
	}
}

// TestSortedListsFollowUpdates: a record whose updated_at changes moves in
// the lists sorted by it, for each store change that sets updated_at on a
// listed record (checkIndexes then compares every index with its records).
func TestSortedListsFollowUpdates(t *testing.T) {
	// Reviews and dispute steps run only when the test calls them.
	h := newHarness(t, func(c *Config) { c.ReviewDelay = time.Hour })
	first := func(t *testing.T, list, plural string) string {
		t.Helper()
		m := h.expect(h.call(h.platform(), "GET", "/"+list+"?limit=1&sort=updated_at,desc", nil), 200, "").json(t)
		items := m["_embedded"].(map[string]any)[plural].([]any)
		if len(items) == 0 {
			t.Fatalf("%s: an empty list", list)
		}
		return items[0].(map[string]any)["id"].(string)
	}
	later := func() time.Time { h.clock.Advance(time.Second); return h.clock.Now() }

	t.Run("webhook update", func(t *testing.T) {
		a := h.webhook("http://127.0.0.1:9/a", map[string]any{"enabled": false})["id"].(string)
		later()
		h.webhook("http://127.0.0.1:9/b", map[string]any{"enabled": false})
		later()
		h.expect(h.call(h.platform(), "PUT", "/webhooks/"+a, map[string]any{"enabled": false}), 200, "webhook")
		if got := first(t, "webhooks", "webhooks"); got != a {
			t.Errorf("latest updated webhook %s, want the updated %s", got, a)
		}
	})
	t.Run("file upload and review", func(t *testing.T) {
		a := h.newFile("Passport")
		later()
		b := h.newFile("Licence")
		later()
		ct, body := multipartBody(t, "scan.png", "image/png", []byte("png bytes"))
		h.expect(h.call(h.platform(), "POST", "/files/"+a+"/upload", body, "Content-Type", ct), 200, "file")
		if got := first(t, "files", "files"); got != a {
			t.Errorf("after the upload: latest updated file %s, want %s", got, a)
		}
		later()
		h.expect(h.call(h.platform(), "POST", "/files/"+b+"/upload", body, "Content-Type", ct), 200, "file")
		later()
		h.srv.fileReview(testBase, appOf(t, h, h.platform()), a)
		if got := h.fileStatus(a); got != ledger.FileUploaded {
			t.Fatalf("the reviewed file is %s, not %s", got, ledger.FileUploaded)
		}
		if got := first(t, "files", "files"); got != a {
			t.Errorf("after the review: latest updated file %s, want %s", got, a)
		}
	})
	t.Run("dispute step", func(t *testing.T) {
		card := h.card()
		h.expect(h.call(h.platform(), "POST", "/transfers", map[string]any{"source": card, "merchant": h.fx.Fixtures.Merchant, "amount": ledger.AmountDisputed, "currency": "USD"}), 201, "transfer")
		m := h.expect(h.call(h.platform(), "GET", "/disputes?limit=1", nil), 200, "").json(t)
		d := m["_embedded"].(map[string]any)["disputes"].([]any)[0].(map[string]any)["id"].(string)
		later()
		h.expect(h.call(h.platform(), "POST", "/transfers", map[string]any{"source": card, "merchant": h.fx.Fixtures.Merchant, "amount": ledger.AmountDisputed, "currency": "USD"}), 201, "transfer")
		later()
		h.srv.disputeStep(testBase, appOf(t, h, h.platform()), d)
		if state := h.expect(h.call(h.platform(), "GET", "/disputes/"+d, nil), 200, "").str(t, "state"); state != "PENDING" {
			t.Fatalf("the dispute is %s, not PENDING", state)
		}
		if got := first(t, "disputes", "disputes"); got != d {
			t.Errorf("latest updated dispute %s, want the advanced %s", got, d)
		}
	})
}

// TestSortedPagesDuringWrites: pages sorted by amount, read while other
// clients create balance transfers, are always in order and never hold a
// record twice (under -race: the index is read without the store's lock
// while it changes).
func TestSortedPagesDuringWrites(t *testing.T) {
	h := newHarness(t)
	const writes, reads = 300, 150
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := range writes {
			r := h.call(h.platform(), "POST", "/balance_transfers", map[string]any{
				"amount": 1 + (i*37)%50, "currency": "USD", "description": "d", "source": "OPERATING_ACCOUNT",
				"destination": "FOR_BENEFIT_OF_ACCOUNT", "processor_type": "LITLE_V1",
			})
			if r.status != 201 {
				t.Errorf("create: status %d", r.status)
				return
			}
		}
	})
	for range 2 {
		wg.Go(func() {
			for i := range reads {
				r := h.call(h.platform(), "GET", fmt.Sprintf("/balance_transfers?limit=50&offset=%d&sort=amount,desc&sort=created_at,desc", i%5*20), nil)
				if r.status != 200 {
					t.Errorf("list: status %d", r.status)
					return
				}
				var page struct {
					Embedded struct {
						Items []struct {
							ID        string `json:"id"`
							Amount    int64  `json:"amount"`
							CreatedAt string `json:"created_at"`
						} `json:"balance_transfers"`
					} `json:"_embedded"`
				}
				if err := json.Unmarshal(r.body, &page); err != nil {
					t.Errorf("list: %v", err)
					return
				}
				items := page.Embedded.Items
				seen := map[string]bool{}
				for j, it := range items {
					if seen[it.ID] {
						t.Errorf("page holds %s twice", it.ID)
					}
					seen[it.ID] = true
					if j > 0 && (items[j-1].Amount < it.Amount || (items[j-1].Amount == it.Amount && items[j-1].CreatedAt < it.CreatedAt)) {
						t.Errorf("page out of order at %d: %+v before %+v", j, items[j-1], it)
						return
					}
				}
			}
		})
	}
	wg.Wait()
}

func TestParseListQuery(t *testing.T) {
	tests := []struct {
		query string
		ok    bool
	}{
		{"", true}, {"limit=100", true}, {"limit=0", false}, {"limit=101", false}, {"limit=x", false},
		{"offset=3", true}, {"offset=-1", false}, {"offset=99999999999", false}, {"sort=amount,asc&sort=id,desc", true}, {"sort=secret,asc", false},
		{"sort=id,sideways", false},
	}
	for _, tc := range tests {
		q, _ := urlQuery(tc.query)
		_, err := ledger.ParseListQuery(q)
		if tc.ok {
			assert.NoError(t, err, "parseListQuery(%q)", tc.query)
		} else {
			assert.Error(t, err, "parseListQuery(%q)", tc.query)
		}
	}
}
