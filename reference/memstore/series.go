package memstore

import (
	"slices"
	"strings"
	"time"

	"github.com/conform-kit/conform/reference/ledger"
)

// The in-memory store's lists: each a series of records in creation order
// with an index for the other orders (index.go).

// series keeps records in ascending (created_at, id) order, so the default
// list order is a walk from the end and a page costs O(limit), and an index
// of them by every sortable field for the other orders (index.go).
type series[P ledger.Record] struct {
	items []P
	idx   index[P]
}

func keyLess(at time.Time, aid string, bt time.Time, bid string) int {
	if c := at.Compare(bt); c != 0 {
		return c
	}
	return strings.Compare(aid, bid)
}

func (s *series[P]) position(p P) (int, bool) {
	t, id := p.RecordKey()
	return slices.BinarySearchFunc(s.items, p, func(e P, _ P) int {
		et, eid := e.RecordKey()
		return keyLess(et, eid, t, id)
	})
}

// add inserts p in order; records usually arrive last, so this is an append.
func (s *series[P]) add(p P) {
	i, _ := s.position(p)
	s.items = slices.Insert(s.items, i, p)
	s.idx.add(p)
}

// remove deletes p if present; a nil series holds nothing.
func (s *series[P]) remove(p P) {
	if s == nil {
		return
	}
	if i, ok := s.position(p); ok {
		s.items = slices.Delete(s.items, i, i+1)
		s.idx.remove(p)
	}
}

// touch tells the index that p's updated_at or amount changed; callers
// hold the store's lock and call it after every such change. A nil series
// holds nothing.
func (s *series[P]) touch(p P) {
	if s != nil {
		s.idx.touch(p)
	}
}

// pageOf returns one page of s in the default order, each record copied
// through view, and the total count. Callers hold the store lock; a page
// costs O(offset+limit).
func pageOf[P ledger.Record, V any](s *series[P], q ledger.ListQuery, view func(P) V) ([]V, int) {
	total := len(s.items)
	out := make([]V, 0, min(q.Limit, max(total-q.Offset, 0)))
	for i := total - 1 - q.Offset; i >= 0 && len(out) < q.Limit; i-- {
		out = append(out, view(s.items[i]))
	}
	return out, total
}
