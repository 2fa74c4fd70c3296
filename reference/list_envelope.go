package reference

import (
	"encoding/json"

	"github.com/conform-kit/conform/reference/ledger"
)

// The answer of a list operation: one page, its items and its links.

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
	q      ledger.ListQuery
	Page   page
}

// listItems are a page's views.
type listItems interface {
	// appendJSON writes them as a JSON array; ok is false when they have
	// no encoder of their own.
	AppendJSON(b []byte) (out []byte, ok bool)
	// slice is the []V, for encoding by reflection.
	slice() any
}

// newList builds the list envelope for items under _embedded.<plural>, with
// self, next and prev links carrying the query.
func newList[V any](rq *request, plural string, q ledger.ListQuery, items []V, total int) listEnvelope {
	return listEnvelope{
		plural: plural,
		items:  viewList[V](items),
		self:   rq.base + rq.r.URL.Path,
		q:      q,
		Page:   page{Offset: q.Offset, Limit: q.Limit, Count: total},
	}
}

// links are the page's links as a map, as json.Marshal encodes them.
func (l listEnvelope) links() links {
	ls := links{"self": {l.self + l.q.Encode(l.q.Offset)}}
	if next, ok := l.next(); ok {
		ls["next"] = link{l.self + l.q.Encode(next)}
	}
	if prev, ok := l.prev(); ok {
		ls["prev"] = link{l.self + l.q.Encode(prev)}
	}
	return ls
}

// next is the offset of the next page, when there is one.
func (l listEnvelope) next() (int, bool) {
	return l.q.Offset + l.q.Limit, l.q.Offset+l.q.Limit < l.Page.Count
}

// prev is the offset of the previous page, when there is one.
func (l listEnvelope) prev() (int, bool) {
	return max(l.q.Offset-l.q.Limit, 0), l.q.Offset > 0
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
