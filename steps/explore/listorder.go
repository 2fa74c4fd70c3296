package explore

import (
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// List questions: the sort a walk asks for, the order its items must
// show, and what its self link must carry (§2.12, §4.10).

// sortKey is one sort value of a list query: a field and its direction.
type sortKey struct {
	Field string
	Desc  bool
}

// String is the key as a query's sort value: "amount,desc".
func (k sortKey) String() string {
	if k.Desc {
		return k.Field + ",desc"
	}
	return k.Field + ",asc"
}

// defaultOrder is the order §2.12 states for a list without sort:
// created_at,desc then id,desc.
var defaultOrder = []sortKey{{"created_at", true}, {"id", true}}

// sortsOf reads the sort values of a walk's extra query ("&sort=a,desc&...").
func sortsOf(query string) []sortKey {
	vals, _ := url.ParseQuery(strings.TrimPrefix(query, "&"))
	var out []sortKey
	for _, v := range vals["sort"] {
		f, dir, _ := strings.Cut(v, ",")
		out = append(out, sortKey{Field: f, Desc: dir != "asc"})
	}
	return out
}

// sortQuery renders sort keys as a walk's extra query.
func sortQuery(keys []sortKey) string {
	var b strings.Builder
	for _, k := range keys {
		b.WriteString("&sort=" + k.String())
	}
	return b.String()
}

// sortFields are the fields of a list's items a sort may name: every
// resource's id and timestamps (§2), and amount where the resource shows
// one (disputes §2.7, transfers §2.2, balance transfers §2.9).
func sortFields(items string) []string {
	fields := []string{"created_at", "updated_at", "id"}
	switch items {
	case "disputes", "transfers", "balance_transfers":
		fields = append(fields, "amount")
	}
	return fields
}

// drawSort draws a list's sort: none (the default order) first, then one
// sortable field in either direction, then two.
func (g *generator) drawSort(items string) []sortKey {
	fields := sortFields(items)
	n := g.c.draw(3)
	var keys []sortKey
	for range n {
		f := fields[g.c.draw(len(fields))]
		desc := g.c.draw(2) == 1
		if !slices.ContainsFunc(keys, func(k sortKey) bool { return k.Field == f }) {
			keys = append(keys, sortKey{Field: f, Desc: desc})
		}
	}
	return keys
}

// exactSortField reports whether two items' values of a field compare as
// a client sees them: an amount. Timestamps may be shown coarser than a
// server orders them (two records a microsecond apart shown alike), and
// how string ids compare the spec does not say (a server may order them
// by creation): a tie on either says nothing of the next key.
func exactSortField(f string) bool { return f == "amount" }

// compareField compares a field of two list items in ascending order; ok
// is false where either item lacks a value the kit can compare: ids are
// never compared (see exactSortField).
func compareField(f string, a, b map[string]any) (int, bool) {
	switch f {
	case "amount":
		x, ok1 := intField(a[f])
		y, ok2 := intField(b[f])
		if !ok1 || !ok2 {
			return 0, false
		}
		return cmpInt(x, y), true
	case "created_at", "updated_at":
		s1, _ := a[f].(string)
		s2, _ := b[f].(string)
		t1, err1 := time.Parse(time.RFC3339Nano, s1)
		t2, err2 := time.Parse(time.RFC3339Nano, s2)
		if err1 != nil || err2 != nil {
			return 0, false
		}
		return t1.Compare(t2), true
	}
	return 0, false
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func intField(v any) (int64, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	i, err := n.Int64()
	return i, err == nil
}

// outOfOrder reports the key by which item b, listed after a, breaks the
// order of keys: each key in turn, the next one asked only where the
// previous ties on a value the kit compares exactly (exactSortField). It
// returns "" where the order holds or cannot be judged.
func outOfOrder(keys []sortKey, a, b map[string]any) (sortKey, bool) {
	for i, k := range keys {
		c, ok := compareField(k.Field, a, b)
		if !ok {
			return sortKey{}, false
		}
		if k.Desc {
			c = -c
		}
		switch {
		case c > 0:
			return k, true
		case c < 0:
			return sortKey{}, false
		}
		if i+1 < len(keys) && !exactSortField(k.Field) {
			return sortKey{}, false
		}
	}
	return sortKey{}, false
}

// orderText describes keys for a finding: "amount,desc then created_at,asc".
func orderText(keys []sortKey) string {
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k.String()
	}
	return strings.Join(parts, " then ")
}

// selfLinkMisses reports what the self link href of a page at offset and
// limit (page.limit; or a limit asked, which a target clamping it may
// carry; limit < 0: not judged), of a list asked with the sort keys sent, fails to carry (§2.12:
// "The list self link carries query parameters offset, limit and repeated
// sort values"): "" when it carries them all, the sort values sent in
// their order (a server may add more, such as a tie-breaking id).
func selfLinkMisses(href string, offset, limit int, sent []sortKey, asked ...int) string {
	u, err := url.Parse(href)
	if err != nil {
		return fmt.Sprintf("the self link %q is not a URL", href)
	}
	q := u.Query()
	if got := q.Get("offset"); got != strconv.Itoa(offset) {
		return fmt.Sprintf("offset=%d (it carries %q)", offset, got)
	}
	if got := q.Get("limit"); limit >= 0 && got != strconv.Itoa(limit) && !slices.ContainsFunc(asked, func(n int) bool { return got == strconv.Itoa(n) }) {
		return fmt.Sprintf("limit=%d (it carries %q)", limit, got)
	}
	have := q["sort"]
	at := 0
	for _, k := range sent {
		i := slices.Index(have[at:], k.String())
		if i < 0 {
			return "sort=" + k.String()
		}
		at += i + 1
	}
	return ""
}

// relative is href as a path and query under the side's base, or ok false
// when href is not under it.
func (s *side) relative(href string) (string, bool) {
	if rest, ok := strings.CutPrefix(href, s.base); ok && (rest == "" || rest[0] == '/' || rest[0] == '?') {
		return rest, true
	}
	return "", false
}
