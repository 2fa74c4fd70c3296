package reference

import (
	"cmp"
	"encoding/json"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// List parameters (DESIGN.md "Lists").
const (
	defaultLimit = 20
	maxLimit     = 100
	maxOffset    = 1<<31 - 1
)

// record is what the store keeps in ordered series.
type record interface {
	appID() string
	recordKey() (time.Time, string)
	sortValue(field string) sortVal
}

// sortVal is the value of a sortable field: an integer (an amount, a time
// in Unix nanoseconds) or a string (an id).
type sortVal struct {
	n int64
	s string
}

func (a sortVal) compare(b sortVal) int {
	if c := cmp.Compare(a.n, b.n); c != 0 {
		return c
	}
	return strings.Compare(a.s, b.s)
}

// sortableFields are the fields a list may be sorted by.
var sortableFields = map[string]bool{"id": true, "created_at": true, "updated_at": true, "amount": true}

type sortKey struct {
	field string
	desc  bool
}

// defaultSort is created_at,desc then id,desc: creation order reversed.
var defaultSort = []sortKey{{"created_at", true}, {"id", true}}

type listQuery struct {
	offset int
	limit  int
	sort   []sortKey
}

// parseListQuery reads offset, limit and sort; bad values are 422 INVALID_FIELD.
func parseListQuery(q url.Values) (listQuery, error) {
	lq := listQuery{limit: defaultLimit}
	if v := q.Get("offset"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > maxOffset {
			return lq, errInvalidField("offset", "offset must be an integer from 0 to %d", maxOffset)
		}
		lq.offset = n
	}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > maxLimit {
			return lq, errInvalidField("limit", "limit must be an integer from 1 to %d", maxLimit)
		}
		lq.limit = n
	}
	for _, v := range q["sort"] {
		field, dir, _ := strings.Cut(v, ",")
		if !sortableFields[field] || (dir != "" && dir != "asc" && dir != "desc") {
			return lq, errInvalidField("sort", "sort must be <field>,<asc|desc> with field one of id, created_at, updated_at, amount")
		}
		// A later key on a field already sorted by never breaks a tie: at
		// most one key per field is kept, so sort= repeated a thousand
		// times costs what one does.
		if !slices.ContainsFunc(lq.sort, func(k sortKey) bool { return k.field == field }) {
			lq.sort = append(lq.sort, sortKey{field: field, desc: dir != "asc"})
		}
	}
	if len(lq.sort) == 0 {
		lq.sort = defaultSort
	}
	return lq, nil
}

func (q listQuery) isDefaultOrder() bool {
	return slices.Equal(q.sort, defaultSort)
}

// encode renders the query with another offset, as carried by list links.
func (q listQuery) encode(offset int) string {
	var b strings.Builder
	b.WriteString("?offset=")
	b.WriteString(strconv.Itoa(offset))
	b.WriteString("&limit=")
	b.WriteString(strconv.Itoa(q.limit))
	for _, k := range q.sort {
		b.WriteString("&sort=")
		b.WriteString(k.field)
		if k.desc {
			b.WriteString(",desc")
		} else {
			b.WriteString(",asc")
		}
	}
	return b.String()
}

// series keeps records in ascending (created_at, id) order, so the default
// list order is a walk from the end and a page costs O(limit), and an index
// of them by every sortable field for the other orders (index.go).
type series[P record] struct {
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
	t, id := p.recordKey()
	return slices.BinarySearchFunc(s.items, p, func(e P, _ P) int {
		et, eid := e.recordKey()
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
func pageOf[P record, V any](s *series[P], q listQuery, view func(P) V) ([]V, int) {
	total := len(s.items)
	out := make([]V, 0, min(q.limit, max(total-q.offset, 0)))
	for i := total - 1 - q.offset; i >= 0 && len(out) < q.limit; i-- {
		out = append(out, view(s.items[i]))
	}
	return out, total
}

type page struct {
	Offset int `json:"offset"`
	Limit  int `json:"limit"`
	Count  int `json:"count"`
}

// listEnvelope is one page of a list: the items under _embedded.<plural>,
// the self, next and prev links carrying the query (next and prev when
// there is such a page) and the page. Its links are written from self and
// the query, not kept as strings (listEnvelope.appendJSON).
type listEnvelope struct {
	plural string
	items  listItems
	self   string // the list's URL without a query
	q      listQuery
	Page   page
}

// listItems are a page's views.
type listItems interface {
	// appendJSON writes them as a JSON array; ok is false when they have
	// no encoder of their own.
	appendJSON(b []byte) (out []byte, ok bool)
	// slice is the []V, for encoding by reflection.
	slice() any
}

// newList builds the list envelope for items under _embedded.<plural>, with
// self, next and prev links carrying the query.
func newList[V any](rq *request, plural string, q listQuery, items []V, total int) listEnvelope {
	return listEnvelope{
		plural: plural,
		items:  viewList[V](items),
		self:   rq.base + rq.r.URL.Path,
		q:      q,
		Page:   page{Offset: q.offset, Limit: q.limit, Count: total},
	}
}

// links are the page's links as a map, as json.Marshal encodes them.
func (l listEnvelope) links() links {
	ls := links{"self": {l.self + l.q.encode(l.q.offset)}}
	if next, ok := l.next(); ok {
		ls["next"] = link{l.self + l.q.encode(next)}
	}
	if prev, ok := l.prev(); ok {
		ls["prev"] = link{l.self + l.q.encode(prev)}
	}
	return ls
}

// next is the offset of the next page, when there is one.
func (l listEnvelope) next() (int, bool) {
	return l.q.offset + l.q.limit, l.q.offset+l.q.limit < l.Page.Count
}

// prev is the offset of the previous page, when there is one.
func (l listEnvelope) prev() (int, bool) {
	return max(l.q.offset-l.q.limit, 0), l.q.offset > 0
}

// MarshalJSON encodes the page by reflection (for items without an encoder
// of their own): _embedded, _links, page.
func (l listEnvelope) MarshalJSON() ([]byte, error) {
	var items any
	if l.items != nil {
		items = l.items.slice()
	}
	return json.Marshal(struct {
		Embedded map[string]any `json:"_embedded"`
		Links    links          `json:"_links"`
		Page     page           `json:"page"`
	}{map[string]any{l.plural: items}, l.links(), l.Page})
}
