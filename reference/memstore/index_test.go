package memstore

import (
	"fmt"
	"math/rand/v2"
	"slices"
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
