package ledger

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
	DefaultLimit = 20
	maxLimit     = 100
	maxOffset    = 1<<31 - 1
)

// Record is what the store keeps in ordered series.
type Record interface {
	AppID() string
	RecordKey() (time.Time, string)
	SortValue(field string) SortVal
}

// SortVal is the value of a sortable field: an integer (an amount, a time
// in Unix nanoseconds) or a string (an id).
type SortVal struct {
	Int int64
	Str string
}

// Compare orders two values: integers first, then strings.
func (a SortVal) Compare(b SortVal) int {
	if c := cmp.Compare(a.Int, b.Int); c != 0 {
		return c
	}
	return strings.Compare(a.Str, b.Str)
}

// sortableFields are the fields a list may be sorted by.
var sortableFields = map[string]bool{"id": true, "created_at": true, "updated_at": true, "amount": true}

// SortKey is one key of a list's order: a sortable field, either way.
type SortKey struct {
	Field string
	Desc  bool
}

// defaultSort is created_at,desc then id,desc: creation order reversed.
var defaultSort = []SortKey{{"created_at", true}, {"id", true}}

// DefaultOrder is the order of a list query that names none (a copy of
// defaultSort).
func DefaultOrder() []SortKey { return slices.Clone(defaultSort) }

// ListQuery is a page of a list: offset, limit and order.
type ListQuery struct {
	Offset int
	Limit  int
	Sort   []SortKey
}

// ParseListQuery reads offset, limit and sort; bad values are 422 INVALID_FIELD.
func ParseListQuery(q url.Values) (ListQuery, error) {
	lq := ListQuery{Limit: DefaultLimit}
	if v := q.Get("offset"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > maxOffset {
			return lq, ErrInvalidField("offset", "offset must be an integer from 0 to %d", maxOffset)
		}
		lq.Offset = n
	}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > maxLimit {
			return lq, ErrInvalidField("limit", "limit must be an integer from 1 to %d", maxLimit)
		}
		lq.Limit = n
	}
	for _, v := range q["sort"] {
		field, dir, _ := strings.Cut(v, ",")
		if !sortableFields[field] || (dir != "" && dir != "asc" && dir != "desc") {
			return lq, ErrInvalidField("sort", "sort must be <field>,<asc|desc> with field one of id, created_at, updated_at, amount")
		}
		// A later key on a field already sorted by never breaks a tie: at
		// most one key per field is kept, so sort= repeated a thousand
		// times costs what one does.
		if !slices.ContainsFunc(lq.Sort, func(k SortKey) bool { return k.Field == field }) {
			lq.Sort = append(lq.Sort, SortKey{Field: field, Desc: dir != "asc"})
		}
	}
	if len(lq.Sort) == 0 {
		lq.Sort = defaultSort
	}
	return lq, nil
}

// IsDefaultOrder reports whether the query asks for the default order.
func (q ListQuery) IsDefaultOrder() bool {
	return slices.Equal(q.Sort, defaultSort)
}

// Encode renders the query with another offset, as carried by list links.
func (q ListQuery) Encode(offset int) string {
	var b strings.Builder
	b.WriteString("?offset=")
	b.WriteString(strconv.Itoa(offset))
	b.WriteString("&limit=")
	b.WriteString(strconv.Itoa(q.Limit))
	for _, k := range q.Sort {
		b.WriteString("&sort=")
		b.WriteString(k.Field)
		if k.Desc {
			b.WriteString(",desc")
		} else {
			b.WriteString(",asc")
		}
	}
	return b.String()
}
