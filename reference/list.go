package reference

import (
	"cmp"
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

type listEnvelope struct {
	// plural and appendItems write the page without reflection (see
	// listEnvelope.appendJSON); appendItems is nil when the items have no
	// encoder of their own.
	plural      string
	appendItems func(b []byte) []byte

	Embedded map[string]any `json:"_embedded"`
	Links    links          `json:"_links"`
	Page     page           `json:"page"`
}

// newList builds the list envelope for items under _embedded.<plural>, with
// self, next and prev links carrying the query.
func newList[V any](rq *request, plural string, q listQuery, items []V, total int) listEnvelope {
	self := rq.base + rq.r.URL.Path
	l := links{"self": {self + q.encode(q.offset)}}
	if q.offset+q.limit < total {
		l["next"] = link{self + q.encode(q.offset+q.limit)}
	}
	if q.offset > 0 {
		l["prev"] = link{self + q.encode(max(q.offset-q.limit, 0))}
	}
	return listEnvelope{
		plural:      plural,
		appendItems: itemsAppender(items),
		Embedded:    map[string]any{plural: items},
		Links:       l,
		Page:        page{Offset: q.offset, Limit: q.limit, Count: total},
	}
}
