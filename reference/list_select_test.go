package reference

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// TestSelectPageMatchesStableSort: the bounded selection returns exactly
// the page a stable sort of the whole series gives, for every key
// combination, offset and limit, ties included.
func TestSelectPageMatchesStableSort(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var ser series[*transfer]
	for i := range 300 {
		tr := &transfer{meta: newMeta(fmt.Sprintf("TR%03d", rnd.IntN(1000)), "app", base.Add(time.Duration(rnd.IntN(50))*time.Second)), Amount: int64(rnd.IntN(20))}
		tr.UpdatedAt = jsonTime(base.Add(time.Duration(rnd.IntN(30)) * time.Second))
		tr.ID += fmt.Sprint(i) // unique ids, random order
		ser.add(tr)
	}
	orders := [][]sortKey{
		{{"amount", false}}, {{"amount", true}}, {{"id", false}}, {{"id", true}}, {{"updated_at", true}},
		{{"created_at", false}}, {{"amount", true}, {"updated_at", false}}, {{"updated_at", false}, {"amount", true}, {"id", true}},
	}
	for _, keys := range orders {
		want := slices.Clone(ser.items)
		slices.SortStableFunc(want, func(a, b *transfer) int {
			for _, k := range keys {
				c := a.sortValue(k.field).compare(b.sortValue(k.field))
				if k.desc {
					c = -c
				}
				if c != 0 {
					return c
				}
			}
			return 0
		})
		rows := snapshotRows(ser.items, keys)
		for _, pg := range []struct{ offset, limit int }{{0, 1}, {0, 20}, {7, 13}, {280, 100}, {299, 5}, {300, 5}, {0, 100}} {
			got := rows.selectPage(pg.offset, pg.limit)
			end := min(pg.offset+pg.limit, len(want))
			var exp []*transfer
			if pg.offset < len(want) {
				exp = want[pg.offset:end]
			}
			if !slices.Equal(got, exp) {
				t.Errorf("keys %v offset %d limit %d: the page differs from a stable sort", keys, pg.offset, pg.limit)
			}
		}
	}
}

// TestRepeatedSortKeysCountOnce: a sort field given again is dropped.
func TestRepeatedSortKeysCountOnce(t *testing.T) {
	q, err := urlQuery("sort=amount,asc&sort=id,desc&sort=amount,desc&sort=id,asc")
	if err != nil {
		t.Fatal(err)
	}
	lq, err := parseListQuery(q)
	if err != nil {
		t.Fatal(err)
	}
	if want := []sortKey{{"amount", false}, {"id", true}}; !slices.Equal(lq.sort, want) {
		t.Errorf("sort keys %v, want %v", lq.sort, want)
	}
}

// BenchmarkSortedPage measures a page of 20 sorted by amount through the
// whole handler at 2,000 and 20,000 balance transfers, beside a page in the
// default order (a walk) of the same list.
func BenchmarkSortedPage(b *testing.B) {
	for _, n := range []int{2000, 20000} {
		h := newHarness(b, func(c *Config) { c.Limits = Limits{MaxAge: -1, MaxRetained: -1, MaxBytes: -1, CreatesPerMinute: -1} })
		for i := range n {
			r := h.call(h.platform(), "POST", "/balance_transfers", map[string]any{
				"amount": 1 + (i*7919)%100000, "currency": "USD", "description": "d", "source": "OPERATING_ACCOUNT",
				"destination": "FOR_BENEFIT_OF_ACCOUNT", "processor_type": "LITLE_V1",
			})
			if r.status != 201 {
				b.Fatalf("status %d: %s", r.status, truncate(r.body))
			}
		}
		h.bodies = nil
		for _, tc := range []struct{ name, query string }{
			{"sorted", "?limit=20&sort=amount,asc"},
			{"default", "?limit=20"},
		} {
			b.Run(fmt.Sprintf("%d/%s", n, tc.name), func(b *testing.B) {
				runBench(b, h.srv, "GET", "/balance_transfers"+tc.query, nil, h, 200)
			})
		}
	}
}
