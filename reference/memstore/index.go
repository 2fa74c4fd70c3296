package memstore

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"

	"github.com/conform-kit/conform/reference/ledger"
)

// A series' index orders its records by each sortable field, so that a
// page in any order is found in O(log n + limit) steps, or O(limit·log n)
// when the page crosses that many groups of equal values, without the
// store's lock. Each field has a treap (a binary search tree balanced by
// random priorities) whose nodes count their subtree, so the record at a
// rank, and the rank of a value, cost O(log n) and an offset costs nothing
// to skip. A tree orders by the field's value, then by creation order
// (created_at, id): the tie order of the lists.
//
// The index keeps its own copy of each record's sort values, taken under
// the store's lock whenever the series adds, touches or removes a record,
// and has its own lock: a reader finds a page under that lock alone, and
// orders a tie group by further keys after releasing it.

// indexField is a sortable field: a tree of every index.
type indexField int

const (
	byCreated indexField = iota
	byID
	byUpdated
	byAmount
	indexFields // the number of fields
)

// indexFieldOf maps a sort field's name (one of sortableFields) to its tree.
func indexFieldOf(name string) indexField {
	switch name {
	case "id":
		return byID
	case "updated_at":
		return byUpdated
	case "amount":
		return byAmount
	}
	return byCreated
}

// indexEntry is one record in an index: its sort values and its node in
// each field's tree, in one allocation.
type indexEntry[P ledger.Record] struct {
	p P
	sortValues
	prio  uint64 // the treap priority, shared by the trees
	nodes [indexFields]indexNode[P]
}

// sortValues are a record's values of the sortable fields.
type sortValues struct {
	id   string
	vals [indexFields]int64 // by field; vals[byID] is unused, id is the value
}

// indexNode is an entry's place in one tree.
type indexNode[P ledger.Record] struct {
	left, right *indexNode[P]
	e           *indexEntry[P]
	size        int // nodes in this subtree
}

// load copies p's sort values. Callers hold the store's lock.
func (e *sortValues) load(p ledger.Record) {
	e.id = p.SortValue("id").Str
	e.vals[byCreated] = p.SortValue("created_at").Int
	e.vals[byUpdated] = p.SortValue("updated_at").Int
	e.vals[byAmount] = p.SortValue("amount").Int
}

func (e *sortValues) value(f indexField) ledger.SortVal {
	if f == byID {
		return ledger.SortVal{Str: e.id}
	}
	return ledger.SortVal{Int: e.vals[f]}
}

// compareCreation orders records as the series does: created_at, then id.
func compareCreation(a, b *sortValues) int {
	if c := cmp.Compare(a.vals[byCreated], b.vals[byCreated]); c != 0 {
		return c
	}
	return strings.Compare(a.id, b.id)
}

// compareAt is the order of field f's tree: the value, then creation order.
func compareAt[P ledger.Record](f indexField, a, b *indexEntry[P]) int {
	if c := a.value(f).Compare(b.value(f)); c != 0 {
		return c
	}
	return compareCreation(&a.sortValues, &b.sortValues)
}

func sizeOf[P ledger.Record](n *indexNode[P]) int {
	if n == nil {
		return 0
	}
	return n.size
}

func (n *indexNode[P]) fix() { n.size = 1 + sizeOf(n.left) + sizeOf(n.right) }

// insertNode adds n (not in t) to the tree t ordered by f; it returns the new root.
func insertNode[P ledger.Record](t, n *indexNode[P], f indexField) *indexNode[P] {
	if t == nil {
		n.left, n.right, n.size = nil, nil, 1
		return n
	}
	if n.e.prio > t.e.prio {
		n.left, n.right = splitNode(t, n.e, f)
		n.fix()
		return n
	}
	if compareAt(f, n.e, t.e) < 0 {
		t.left = insertNode(t.left, n, f)
	} else {
		t.right = insertNode(t.right, n, f)
	}
	t.fix()
	return t
}

// splitNode splits t into the nodes before e and those after it.
func splitNode[P ledger.Record](t *indexNode[P], e *indexEntry[P], f indexField) (before, after *indexNode[P]) {
	if t == nil {
		return nil, nil
	}
	if compareAt(f, t.e, e) < 0 {
		t.right, after = splitNode(t.right, e, f)
		t.fix()
		return t, after
	}
	before, t.left = splitNode(t.left, e, f)
	t.fix()
	return before, t
}

// mergeNodes joins two trees, every node of a before every node of b.
func mergeNodes[P ledger.Record](a, b *indexNode[P]) *indexNode[P] {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	case a.e.prio > b.e.prio:
		a.right = mergeNodes(a.right, b)
		a.fix()
		return a
	}
	b.left = mergeNodes(a, b.left)
	b.fix()
	return b
}

// deleteNode removes e's node from t; it returns the new root.
func deleteNode[P ledger.Record](t *indexNode[P], e *indexEntry[P], f indexField) *indexNode[P] {
	if t == nil {
		return nil
	}
	switch c := compareAt(f, e, t.e); {
	case c < 0:
		t.left = deleteNode(t.left, e, f)
	case c > 0:
		t.right = deleteNode(t.right, e, f)
	default:
		return mergeNodes(t.left, t.right)
	}
	t.fix()
	return t
}

// entryAt returns the entry of rank k (from 0) in t; k < sizeOf(t).
func entryAt[P ledger.Record](t *indexNode[P], k int) *indexEntry[P] {
	for {
		l := sizeOf(t.left)
		switch {
		case k < l:
			t = t.left
		case k == l:
			return t.e
		default:
			k -= l + 1
			t = t.right
		}
	}
}

// countBelow counts the entries of t whose value of f is below v (or equal
// to it, with orEqual).
func countBelow[P ledger.Record](t *indexNode[P], f indexField, v ledger.SortVal, orEqual bool) int {
	n := 0
	for t != nil {
		if c := t.e.value(f).Compare(v); c < 0 || (orEqual && c == 0) {
			n += sizeOf(t.left) + 1
			t = t.right
		} else {
			t = t.left
		}
	}
	return n
}

// ascend calls fn on the entries of t from rank from on, in order, until
// fn returns false; it costs O(log n) plus the entries visited.
func ascend[P ledger.Record](t *indexNode[P], from int, fn func(*indexEntry[P]) bool) bool {
	if t == nil {
		return true
	}
	l := sizeOf(t.left)
	if from < l && !ascend(t.left, from, fn) {
		return false
	}
	if from <= l && !fn(t.e) {
		return false
	}
	return ascend(t.right, max(from-l-1, 0), fn)
}

// index is the ordered trees of one series, under their own lock.
type index[P ledger.Record] struct {
	mu    sync.RWMutex
	roots [indexFields]*indexNode[P]
	// moves counts the changes of the trees' order (an entry added,
	// removed or moved), so that a page taken without the store's lock
	// can tell whether the order changed before its records were copied.
	moves uint64
}

// movesNow is how many times the trees' order has changed.
func (x *index[P]) movesNow() uint64 {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.moves
}

// find returns p's entry, or nil. Callers hold x.mu.
func (x *index[P]) find(p P) *indexEntry[P] {
	id := p.SortValue("id").Str
	for t := x.roots[byID]; t != nil; {
		switch c := strings.Compare(id, t.e.id); {
		case c < 0:
			t = t.left
		case c > 0:
			t = t.right
		default:
			return t.e
		}
	}
	return nil
}

// add indexes p. Callers hold the store's lock.
func (x *index[P]) add(p P) {
	e := &indexEntry[P]{p: p, prio: rand.Uint64()}
	e.load(p)
	x.mu.Lock()
	defer x.mu.Unlock()
	for f := range indexFields {
		n := &e.nodes[f]
		n.e = e
		x.roots[f] = insertNode(x.roots[f], n, f)
	}
	x.moves++
}

// remove forgets p. Callers hold the store's lock.
func (x *index[P]) remove(p P) {
	x.mu.Lock()
	defer x.mu.Unlock()
	e := x.find(p)
	if e == nil {
		return
	}
	for f := range indexFields {
		x.roots[f] = deleteNode(x.roots[f], e, f)
	}
	x.moves++
}

// touch moves p in the trees of the values that changed (updated_at,
// amount). Callers hold the store's lock, having just changed p.
func (x *index[P]) touch(p P) {
	x.mu.Lock()
	defer x.mu.Unlock()
	e := x.find(p)
	if e == nil {
		return
	}
	var now sortValues
	now.load(p)
	for _, f := range []indexField{byUpdated, byAmount} {
		if now.vals[f] == e.vals[f] {
			continue
		}
		x.roots[f] = deleteNode(x.roots[f], e, f)
		e.vals[f] = now.vals[f]
		x.roots[f] = insertNode(x.roots[f], &e.nodes[f], f)
		x.moves++
	}
}

// len is the number of records indexed.
func (x *index[P]) len() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return sizeOf(x.roots[byCreated])
}

// page returns the records at [offset, offset+limit) of the order keys
// (the first key, ties by the others, then by creation order) and the
// number of records. It never takes the store's lock.
//
// The first key's tree gives the page. Where the page meets a group of
// records equal in the first key, the group's place is two rank counts
// (O(log n)); a group in creation order (no more keys, or created_at asc
// and id asc) is walked from the page's rank within it, so a page costs
// O(log n + limit) inside one group and O(limit·log n) at most. A group
// ordered by further keys is copied whole under the index's lock (O(g) for
// a group of g records) and its part of the page selected after the lock
// is released, with a bounded heap: O(g·log(offset in group + limit)),
// which is all of n when every record shares the first key's value (a list
// sorted by amount, then updated_at, of equal amounts).
func (x *index[P]) page(keys []ledger.SortKey, offset, limit int) ([]P, int) {
	f, desc, rest := indexFieldOf(keys[0].Field), keys[0].Desc, keys[1:]
	inCreationOrder := creationOrdered(rest)
	type pending struct {
		at       int // where the group's part goes in out
		rows     []groupRow[P]
		from, to int // the part, as ranks in the group's order
	}
	var groups []pending
	x.mu.RLock()
	root := x.roots[f]
	n := sizeOf(root)
	end := min(offset+limit, n)
	if offset >= end {
		x.mu.RUnlock()
		return nil, n
	}
	out := make([]P, 0, end-offset)
	collect := func(want int) func(*indexEntry[P]) bool {
		return func(e *indexEntry[P]) bool {
			out = append(out, e.p)
			return len(out) < want
		}
	}
	if !desc && inCreationOrder { // the tree's own order
		ascend(root, offset, collect(end-offset))
		x.mu.RUnlock()
		return out, n
	}
	for r := offset; r < end; {
		at := r
		if desc {
			at = n - 1 - r
		}
		v := entryAt(root, at).value(f)
		lo, hi := countBelow(root, f, v, false), countBelow(root, f, v, true) // the group's ranks in the tree
		start, stop := lo, hi                                                 // and in the page's order
		if desc {
			start, stop = n-hi, n-lo
		}
		from, to := r-start, min(end, stop)-start // the page's part of the group
		if inCreationOrder {
			ascend(root, lo+from, collect(len(out)+to-from))
		} else {
			rows := make([]groupRow[P], 0, hi-lo)
			ascend(root, lo, func(e *indexEntry[P]) bool {
				rows = append(rows, groupRow[P]{e.p, e.sortValues})
				return len(rows) < hi-lo
			})
			groups = append(groups, pending{at: len(out), rows: rows, from: from, to: to})
			var zero P
			for range to - from {
				out = append(out, zero)
			}
		}
		r = stop
	}
	x.mu.RUnlock()
	byRest := func(a, b groupRow[P]) int {
		for _, k := range rest {
			g := indexFieldOf(k.Field)
			c := a.value(g).Compare(b.value(g))
			if k.Desc {
				c = -c
			}
			if c != 0 {
				return c
			}
		}
		return compareCreation(&a.sortValues, &b.sortValues)
	}
	for _, g := range groups {
		for i, row := range selectRange(g.rows, byRest, g.from, g.to-g.from) {
			out[g.at+i] = row.p
		}
	}
	return out, n
}

// groupRow is a copy of an entry's values, read after the index's lock is
// released.
type groupRow[P ledger.Record] struct {
	p P
	sortValues
}

// creationOrdered reports whether keys order records of equal first key
// as creation order does.
func creationOrdered(keys []ledger.SortKey) bool {
	switch len(keys) {
	case 0:
		return true
	case 1:
		return keys[0] == ledger.SortKey{Field: "created_at", Desc: false}
	case 2:
		return keys[0] == ledger.SortKey{Field: "created_at", Desc: false} && keys[1] == ledger.SortKey{Field: "id", Desc: false}
	}
	return false
}

// selectRange returns items [offset, offset+limit) of the order compare (a
// total order) without sorting them all: a bounded max-heap keeps the best
// offset+limit items, O(len(items)·log(offset+limit)).
func selectRange[T any](items []T, compare func(a, b T) int, offset, limit int) []T {
	k := min(offset+limit, len(items))
	if offset >= k {
		return nil
	}
	heap := make([]T, 0, k) // the worst of the kept items on top
	worse := func(a, b int) bool { return compare(heap[a], heap[b]) > 0 }
	for _, it := range items {
		switch {
		case len(heap) < k:
			heap = append(heap, it)
			for c := len(heap) - 1; c > 0; {
				parent := (c - 1) / 2
				if !worse(c, parent) {
					break
				}
				heap[c], heap[parent] = heap[parent], heap[c]
				c = parent
			}
		case compare(it, heap[0]) < 0:
			heap[0] = it
			for i := 0; ; {
				l, m := 2*i+1, i
				if l < len(heap) && worse(l, m) {
					m = l
				}
				if l+1 < len(heap) && worse(l+1, m) {
					m = l + 1
				}
				if m == i {
					break
				}
				heap[i], heap[m] = heap[m], heap[i]
				i = m
			}
		}
	}
	slices.SortFunc(heap, compare)
	return heap[offset:]
}
