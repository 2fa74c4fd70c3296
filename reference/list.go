package reference

import (
	"cmp"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// List parameters (features/README.md, "Behaviour": lists).
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
