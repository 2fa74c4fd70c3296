package reference

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/conform-kit/conform/reference/ledger"
)

// stableSorted is the reference order: a stable sort of the series (in
// creation order) by keys.
func stableSorted(items []*ledger.Transfer, keys []ledger.SortKey) []*ledger.Transfer {
	want := slices.Clone(items)
	slices.SortStableFunc(want, func(a, b *ledger.Transfer) int {
		for _, k := range keys {
			c := a.SortValue(k.Field).Compare(b.SortValue(k.Field))
			if k.Desc {
				c = -c
			}
			if c != 0 {
				return c
			}
		}
		return 0
	})
	return want
}

// allSortOrders lists every order parseListQuery can produce from up to
// two keys (each sequence of distinct fields, each direction) and some of
// three.
func allSortOrders() [][]ledger.SortKey {
	fields := []string{"id", "created_at", "updated_at", "amount"}
	var out [][]ledger.SortKey
	var grow func(prefix []ledger.SortKey)
	grow = func(prefix []ledger.SortKey) {
		if len(prefix) > 0 {
			out = append(out, slices.Clone(prefix))
		}
		if len(prefix) == 2 {
			return
		}
		for _, f := range fields {
			if slices.ContainsFunc(prefix, func(k ledger.SortKey) bool { return k.Field == f }) {
				continue
			}
			for _, desc := range []bool{false, true} {
				grow(append(prefix, ledger.SortKey{Field: f, Desc: desc}))
			}
		}
	}
	grow(nil)
	return append(out,
		[]ledger.SortKey{{Field: "amount", Desc: false}, {Field: "updated_at", Desc: true}, {Field: "id", Desc: false}},
		[]ledger.SortKey{{Field: "amount", Desc: true}, {Field: "created_at", Desc: false}, {Field: "id", Desc: true}},
		[]ledger.SortKey{{Field: "updated_at", Desc: false}, {Field: "amount", Desc: true}, {Field: "id", Desc: true}},
		[]ledger.SortKey{{Field: "updated_at", Desc: true}, {Field: "created_at", Desc: false}, {Field: "id", Desc: false}},
		[]ledger.SortKey{{Field: "created_at", Desc: true}, {Field: "amount", Desc: false}, {Field: "updated_at", Desc: true}},
		[]ledger.SortKey{{Field: "amount", Desc: false}, {Field: "created_at", Desc: false}, {Field: "updated_at", Desc: false}},
	)
}

// randomSeries fills a series with n transfers whose created_at, updated_at
// and amount repeat often, so that every order has ties.
func randomSeries(rnd *rand.Rand, n, values int) *series[*ledger.Transfer] {
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	ser := &series[*ledger.Transfer]{}
	for i := range n {
		tr := &ledger.Transfer{Meta: ledger.NewMeta(fmt.Sprintf("TR%03d-%d", rnd.IntN(1000), i), "app", base.Add(time.Duration(rnd.IntN(values))*time.Second)), Amount: int64(rnd.IntN(values))}
		tr.UpdatedAt = ledger.JSONTime(base.Add(time.Duration(rnd.IntN(values)) * time.Second))
		ser.add(tr)
	}
	return ser
}

// checkPages compares pages of the index with a stable sort of the series.
func checkPages(t *testing.T, ser *series[*ledger.Transfer], orders [][]ledger.SortKey, pages [][2]int) {
	t.Helper()
	for _, keys := range orders {
		want := stableSorted(ser.items, keys)
		for _, pg := range pages {
			offset, limit := pg[0], pg[1]
			got, total := ser.idx.page(keys, offset, limit)
			var exp []*ledger.Transfer
			if offset < len(want) {
				exp = want[offset:min(offset+limit, len(want))]
			}
			if total != len(want) || !slices.Equal(got, exp) {
				t.Fatalf("keys %v offset %d limit %d: got %d of %d records %v, want %d of %d %v",
					keys, offset, limit, len(got), total, transferIDs(got), len(exp), len(want), transferIDs(exp))
			}
		}
	}
}

func transferIDs(ts []*ledger.Transfer) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.ID
	}
	return out
}

// TestIndexPageMatchesStableSort: the index returns exactly the page a
// stable sort of the whole series gives, for every order of up to two
// keys and some of three, offsets and limits across tie groups, and still
// after records are touched (updated_at and amount changed) and removed.
func TestIndexPageMatchesStableSort(t *testing.T) {
	orders := allSortOrders()
	pages := [][2]int{{0, 1}, {0, 20}, {7, 13}, {40, 3}, {95, 100}, {280, 100}, {299, 5}, {300, 5}, {0, 100}}
	for _, tc := range []struct {
		name      string
		n, values int
	}{
		{"many ties", 300, 6},
		{"few ties", 300, 500},
		{"one value", 120, 1},
		{"empty", 0, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rnd := rand.New(rand.NewPCG(uint64(tc.n), uint64(tc.values)))
			ser := randomSeries(rnd, tc.n, tc.values)
			checkPages(t, ser, orders, pages)
			if tc.n == 0 {
				return
			}
			base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			for range tc.n / 2 {
				tr := ser.items[rnd.IntN(len(ser.items))]
				tr.UpdatedAt = ledger.JSONTime(base.Add(time.Duration(rnd.IntN(tc.values)) * time.Second))
				tr.Amount = int64(rnd.IntN(tc.values))
				ser.touch(tr)
			}
			for range tc.n / 3 {
				ser.remove(ser.items[rnd.IntN(len(ser.items))])
			}
			if got := ser.idx.len(); got != len(ser.items) {
				t.Fatalf("the index holds %d records, the series %d", got, len(ser.items))
			}
			checkPages(t, ser, orders, pages)
		})
	}
}

// TestIndexPageNeedsNoStoreLock: a sorted page is selected while another
// goroutine holds the store's lock, so a selection never waits for (or
// stalls) the rest of the store.
func TestIndexPageNeedsNoStoreLock(t *testing.T) {
	st := newStore(ledger.RandomID, time.Now)
	app := &appData{id: "app"}
	st.apps["app"] = app
	rnd := rand.New(rand.NewPCG(3, 4))
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 50 {
		app.balanceTransfers.add(&ledger.BalanceTransfer{Meta: ledger.NewMeta(fmt.Sprintf("BT_%02d", i), "app", base), Amount: int64(rnd.IntN(10))})
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	done := make(chan []*ledger.BalanceTransfer)
	go func() {
		page, _ := app.balanceTransfers.idx.page([]ledger.SortKey{{Field: "amount", Desc: true}}, 10, 20)
		done <- page
	}()
	select {
	case page := <-done:
		if len(page) != 20 || page[0].Amount < page[19].Amount {
			t.Errorf("a page of %d records, amounts %d to %d, want 20 in descending order", len(page), page[0].Amount, page[len(page)-1].Amount)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the selection waited for the store's lock")
	}
}

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

// BenchmarkIndexPage measures the selection alone (no handler, no
// copies) of a page of 20 from a series of n records, in the orders of
// BenchmarkSortedPage: it grows with log n.
func BenchmarkIndexPage(b *testing.B) {
	sizes := []int{2000, 20000, 200000}
	if testing.Short() {
		sizes = sizes[:2]
	}
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, n := range sizes {
		ser := &series[*ledger.BalanceTransfer]{}
		for i := range n {
			bt := &ledger.BalanceTransfer{Meta: ledger.NewMeta(fmt.Sprintf("BT_%07d", i), "app", base.Add(time.Duration(i)*time.Microsecond)), Amount: int64(1 + (i*7919)%100000)}
			bt.UpdatedAt = ledger.JSONTime(base.Add(time.Duration(i/100) * time.Millisecond))
			ser.add(bt)
		}
		for _, tc := range []struct {
			name   string
			keys   []ledger.SortKey
			offset int
		}{
			{"amount_asc", []ledger.SortKey{{Field: "amount", Desc: false}}, 0},
			{"amount_desc_deep", []ledger.SortKey{{Field: "amount", Desc: true}}, n / 2},
			{"updated_desc_id", []ledger.SortKey{{Field: "updated_at", Desc: true}, {Field: "id", Desc: false}}, 0},
		} {
			b.Run(fmt.Sprintf("%d/%s", n, tc.name), func(b *testing.B) {
				for b.Loop() {
					if page, _ := ser.idx.page(tc.keys, tc.offset, 20); len(page) != 20 {
						b.Fatalf("a page of %d", len(page))
					}
				}
			})
		}
	}
}

// checkSeries reports a series whose index does not hold exactly its
// records with their current sort values. Callers hold the store's lock.
func checkSeries[P ledger.Record](name string, s *series[P]) error {
	s.idx.mu.RLock()
	defer s.idx.mu.RUnlock()
	if n := sizeOf(s.idx.roots[byCreated]); n != len(s.items) {
		return fmt.Errorf("%s: the index holds %d records, the series %d", name, n, len(s.items))
	}
	for _, p := range s.items {
		var now sortValues
		now.load(p)
		if e := s.idx.find(p); e == nil || e.id != now.id || e.vals != now.vals {
			return fmt.Errorf("%s: the index lost %s or its current sort values", name, now.id)
		}
	}
	return nil
}

// checkIndexes fails t when any series' index of st is out of date: a
// change of updated_at or amount without series.touch. Every harness runs
// it when its test ends.
func checkIndexes(t testing.TB, st *store) {
	t.Helper()
	st.mu.Lock()
	defer st.mu.Unlock()
	var errs []error
	for id, a := range st.apps {
		errs = append(errs, checkSeries(id+" disputes", &a.disputes), checkSeries(id+" enrollments", &a.enrollments),
			checkSeries(id+" balance transfers", &a.balanceTransfers), checkSeries(id+" files", &a.files), checkSeries(id+" webhooks", &a.webhooks))
	}
	for id, s := range st.evidenceByDispute {
		errs = append(errs, checkSeries(id+" evidence", s))
	}
	for id, s := range st.adjustmentsByDispute {
		errs = append(errs, checkSeries(id+" adjustments", s))
	}
	for id, s := range st.enrollmentsBySchedule {
		errs = append(errs, checkSeries(id+" enrollments", s))
	}
	for id, s := range st.linksByFile {
		errs = append(errs, checkSeries(id+" links", s))
	}
	if err := errors.Join(errs...); err != nil {
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
		h.srv.fileReview(testBase, h.srv.memory().users[h.platform().Username].App, a)
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
		h.srv.disputeStep(testBase, h.srv.memory().users[h.platform().Username].App, d)
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
