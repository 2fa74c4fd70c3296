package steps

import (
	"cmp"
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/conform-kit/conform/validate/judging"
)

// listSteps is the vocabulary of lists.feature and of every list check: pages, order, items.
func listSteps() []stepDef {
	return []stepDef{
		step(`a file with (\d+) upload links`, func(s *scenario) any { return s.fileWithLinks }),
		step(`the list holds (\d+) items`, func(s *scenario) any { return s.listHolds }),
		step(`the list holds at least (\d+) items?`, func(s *scenario) any { return s.listHoldsAtLeast }),
		step(`the page (offset|limit|count) is (\d+)`, func(s *scenario) any { return s.pageIs }),
		step(`the list contains the ([a-z ]+)`, func(s *scenario) any { return s.listContains }),
		step(`the list does not contain the ([a-z ]+)`, func(s *scenario) any { return s.listLacks }),
		step(`the items are ordered by created_at then id, (newest|oldest) first`, func(s *scenario) any { return s.listOrdered }),
		step(`the items are ordered by "([^"]*)"`, func(s *scenario) any { return s.listSortedBy }),
		step(`the page count is at least (\d+)`, func(s *scenario) any { return s.pageCountAtLeast }),
		step(`the self link carries "([^"]*)"`, func(s *scenario) any { return s.selfLinkCarries }),
		step(`I remember the items`, func(s *scenario) any { return s.rememberItems }),
		step(`the items are items (\d+) to (\d+) of the remembered items`, func(s *scenario) any { return s.itemsSlice }),
		step(`every item has "([^"]*)" equal to "([^"]*)"`, func(s *scenario) any { return s.everyItemHas }),
		step(`no item has the field "([^"]*)"`, func(s *scenario) any { return s.noItemHas }),
		step(`every item has "([^"]*)" present`, func(s *scenario) any { return s.everyItemHasField }),
		step(`the list holds as many items as its page allows`, func(s *scenario) any { return s.listHoldsPage }),
		step(`the items share none with the remembered items`, func(s *scenario) any { return s.itemsDisjoint }),
		step(`I list the upload links of the file with a limit over the declared maximum`, func(s *scenario) any { return s.listLinksOverMax }),
		step(`the limit over the maximum is handled as the profile declares`, func(s *scenario) any { return s.overMaxAsDeclared }),
	}
}

// items returns the one array under _embedded of the last response.
func (s *scenario) items() (*exchange, []any, error) {
	ex, err := s.lastExchange()
	if err != nil {
		return nil, nil, err
	}
	emb, _ := lookup(ex.doc, "_embedded")
	m, ok := emb.(map[string]any)
	if !ok || len(m) != 1 {
		return ex, nil, s.failf(ex, "the list envelope has no single _embedded array")
	}
	for _, v := range m {
		if list, ok := v.([]any); ok {
			return ex, list, nil
		}
	}
	return ex, nil, s.failf(ex, "_embedded holds no array")
}

func (s *scenario) fileWithLinks(ctx context.Context, n int) error {
	if err := s.aFile(ctx, "conform list document"); err != nil {
		return err
	}
	for i := 0; i < n; i++ {
		if err := s.createLink(ctx); err != nil {
			return err
		}
		if err := s.checkSuccess(s.last); err != nil {
			return err
		}
	}
	return nil
}

func (s *scenario) listHolds(n int) error {
	ex, list, err := s.items()
	if err != nil {
		return err
	}
	if len(list) != n {
		return s.judge(s.failf(ex, "the list holds %d items, want %d", len(list), n))
	}
	return nil
}

func (s *scenario) listHoldsAtLeast(n int) error {
	ex, list, err := s.items()
	if err != nil {
		return err
	}
	if len(list) < n {
		return s.judge(s.failf(ex, "the list holds %d items, want at least %d", len(list), n))
	}
	return nil
}

func (s *scenario) pageIs(field string, n int64) error { return s.fieldIsInt("page."+field, n) }

func (s *scenario) findItem(role string) (*exchange, bool, error) {
	ex, list, err := s.items()
	if err != nil {
		return ex, false, err
	}
	id, err := s.id(role)
	if err != nil {
		return ex, false, err
	}
	for _, it := range list {
		if got, _ := lookupString(it, "id"); got == id {
			return ex, true, nil
		}
	}
	return ex, false, nil
}

func (s *scenario) listContains(role string) error {
	ex, found, err := s.findItem(role)
	if err != nil || found {
		return err
	}
	return s.judge(s.failf(ex, "the list does not contain the %s %s", role, s.ids[role]))
}

func (s *scenario) listLacks(role string) error {
	ex, found, err := s.findItem(role)
	if err != nil || !found {
		return err
	}
	return s.judge(s.failf(ex, "the list still contains the %s %s", role, s.ids[role]))
}

// listOrdered: items by created_at then id, descending for "newest" (the
// default order, §2.12) or ascending for "oldest" (an explicit sort). Items
// whose created_at is equal as shown are not judged by id: a target may keep
// and order by a finer time than it shows (milliseconds shown, microseconds
// kept), and the order of its true times cannot be seen.
func (s *scenario) listOrdered(which string) error {
	ex, list, err := s.items()
	if err != nil {
		return err
	}
	dir := "desc"
	if which == "oldest" {
		dir = "asc"
	}
	for i := 1; i < len(list); i++ {
		a, b := list[i-1], list[i]
		if dir == "asc" {
			a, b = b, a
		}
		if itemTime(a).Before(itemTime(b)) {
			return s.judge(s.failf(ex, "items %d and %d are not in created_at %s, id %s order", i-1, i, dir, dir))
		}
	}
	return nil
}

// listSortedBy: the items are in the order of sort values ("amount,desc
// then created_at,asc"; §2.12, §4.10). Each value in turn is judged on
// amounts and timestamps, the next only where an amount ties: a timestamp
// may be shown coarser than a server orders it, and how string ids
// compare the spec does not say.
func (s *scenario) listSortedBy(order string) error {
	ex, list, err := s.items()
	if err != nil {
		return err
	}
	keys := strings.Split(order, " then ")
	for i := 1; i < len(list); i++ {
		for j, key := range keys {
			field, dir, _ := strings.Cut(key, ",")
			c, ok := compareItems(field, list[i-1], list[i])
			if !ok {
				break
			}
			if dir != "asc" {
				c = -c
			}
			if c > 0 {
				return s.judge(s.failf(ex, "items %d and %d are not in %s order (by %s)", i-1, i, order, key))
			}
			if c < 0 || field != "amount" || j == len(keys)-1 {
				break
			}
		}
	}
	return nil
}

// compareItems compares a field of two list items in ascending order: an
// integer amount or a timestamp; ok is false for anything else.
func compareItems(field string, a, b any) (int, bool) {
	switch field {
	case "amount":
		va, _ := lookup(a, field)
		vb, _ := lookup(b, field)
		x, ok1 := asInt(va)
		y, ok2 := asInt(vb)
		if !ok1 || !ok2 {
			return 0, false
		}
		return cmp.Compare(x, y), true
	case "created_at", "updated_at":
		sa, _ := lookupString(a, field)
		sb, _ := lookupString(b, field)
		ta, err1 := time.Parse(time.RFC3339Nano, sa)
		tb, err2 := time.Parse(time.RFC3339Nano, sb)
		if err1 != nil || err2 != nil {
			return 0, false
		}
		return ta.Compare(tb), true
	}
	return 0, false
}

// pageCountAtLeast: page.count is the total number of records, so at least n
// when the scenario made n (§2.12).
func (s *scenario) pageCountAtLeast(n int64) error {
	ex, v, _, err := s.field("page.count")
	if err != nil {
		return err
	}
	if got, ok := asInt(v); !ok || got < n {
		return s.judge(s.failf(ex, "page.count = %s, want at least %d (the total number of records)", render(v), n))
	}
	return nil
}

func itemTime(it any) time.Time {
	v, _ := lookupString(it, "created_at")
	t, _ := time.Parse(time.RFC3339Nano, v)
	return t
}

// selfLinkCarries: the self link has the query parameter name=value, or name when no value is given.
func (s *scenario) selfLinkCarries(param string) error {
	ex, v, _, err := s.field("_links.self.href")
	if err != nil {
		return err
	}
	href, _ := v.(string)
	u, perr := url.Parse(href)
	if perr != nil {
		return s.fail(ex, "self link %q is not a URL", href)
	}
	name, want, hasValue := strings.Cut(param, "=")
	got, ok := u.Query()[name]
	if !ok || (hasValue && !containsString(got, want)) {
		return s.judge(s.failf(ex, "self link %q does not carry %s", href, param))
	}
	return nil
}

func (s *scenario) rememberItems() error {
	_, list, err := s.items()
	if err != nil {
		return err
	}
	s.remembered = list
	return nil
}

func (s *scenario) itemsSlice(from, to int) error {
	ex, list, err := s.items()
	if err != nil {
		return err
	}
	if from < 0 || to > len(s.remembered) || from > to {
		return &kitError{fmt.Errorf("items %d to %d are outside the %d remembered", from, to, len(s.remembered))}
	}
	want := s.remembered[from:to]
	ids := func(l []any) []string {
		out := make([]string, 0, len(l))
		for _, it := range l {
			id, _ := lookupString(it, "id")
			out = append(out, id)
		}
		return out
	}
	if render(ids(list)) != render(ids(want)) {
		return s.judge(s.failf(ex, "items %v, want %v", ids(list), ids(want)))
	}
	return nil
}

func (s *scenario) everyItemHas(path, want string) error {
	ex, list, err := s.items()
	if err != nil {
		return err
	}
	for i, it := range list {
		if got, _ := lookupString(it, path); got != want {
			return s.judge(s.failf(ex, "item %d has %s = %q, want %q", i, path, got, want))
		}
	}
	return nil
}

func (s *scenario) noItemHas(path string) error {
	ex, list, err := s.items()
	if err != nil {
		return err
	}
	for i, it := range list {
		if v, ok := lookup(it, path); ok {
			return s.judge(s.failf(ex, "item %d carries %s (%d bytes)", i, path, len(render(v))))
		}
	}
	return nil
}

func (s *scenario) everyItemHasField(path string) error {
	ex, list, err := s.items()
	if err != nil {
		return err
	}
	for i, it := range list {
		if _, ok := lookup(it, path); !ok {
			return s.judge(s.failf(ex, "item %d lacks %s", i, path))
		}
	}
	return nil
}

// listLinksOverMax lists the upload links with limit list_max_limit + 1.
func (s *scenario) listLinksOverMax(ctx context.Context) error {
	return s.listLinksQuery(ctx, fmt.Sprintf("limit=%d", s.suite.profile.ListMaxLimit+1))
}

// overMaxAsDeclared judges a list asked for more than the declared maximum
// (assumed: list_over_max, list_max_limit): refused as an invalid limit, or
// answered with page.limit clamped to the maximum. A limit over the
// declared maximum taken as asked says only that the maximum is higher:
// the observed maximum is searched (searchListMax), never read from one probe.
func (s *scenario) overMaxAsDeclared(ctx context.Context) error {
	ex, err := s.lastExchange()
	if err != nil {
		return err
	}
	p := &s.suite.profile
	refused := ex.status >= 400 && ex.status <= 499
	if refused {
		if p.ListOverMax == judging.ListOverMaxRefuse {
			return s.refusedInvalidField("limit")
		}
		return s.assume("list_over_max", p.ListOverMax, judging.ListOverMaxRefuse, map[string]any{"list_over_max": judging.ListOverMaxRefuse},
			s.failf(ex, "a limit over %d was refused; the profile declares it clamped", p.ListMaxLimit))
	}
	if err := s.checkSuccess(ex); err != nil {
		return err
	}
	limit, _ := lookup(ex.doc, "page.limit")
	got, _ := asInt(limit)
	if got > int64(p.ListMaxLimit) {
		// Taken as asked: the maximum is higher than declared.
		bound, err := s.searchListMax(ctx, got)
		if err != nil {
			return err
		}
		patch := map[string]any{"list_max_limit": bound.max}
		observed := fmt.Sprintf("limit %d accepted; maximum %d", got, bound.max)
		switch {
		case bound.over != "":
			patch["list_over_max"] = bound.over
			observed += ", " + bound.over + " above"
		default:
			patch[keyObservedOnce] = []string{"list_max_limit"} // no limit up to the search's end was refused
			observed += " or more"
		}
		return s.checkListMax(ex, bound, patch, observed)
	}
	if p.ListOverMax == judging.ListOverMaxRefuse {
		observed, patch := judging.ListOverMaxClamp, any(map[string]any{"list_over_max": judging.ListOverMaxClamp})
		if got > 0 && got < int64(p.ListMaxLimit) {
			patch = map[string]any{"list_over_max": judging.ListOverMaxClamp, "list_max_limit": got}
		}
		return s.assume("list_over_max", judging.ListOverMaxRefuse, observed, patch,
			s.failf(ex, "a limit over %d was answered with page.limit %s; the profile declares it refused", p.ListMaxLimit, render(limit)))
	}
	if got != int64(p.ListMaxLimit) {
		return s.assume("list_max_limit", strconv.Itoa(p.ListMaxLimit), render(limit), map[string]any{"list_max_limit": got},
			s.failf(ex, "page.limit %s, want the declared maximum %d", render(limit), p.ListMaxLimit))
	}
	return nil
}

// checkListMax warns under list_max_limit that a list took a limit over the
// declared maximum, with the searched bound as the observed choice.
func (s *scenario) checkListMax(ex *exchange, b listBound, patch map[string]any, observed string) error {
	p := &s.suite.profile
	return s.assume("list_max_limit", fmt.Sprintf("%d (%s above)", p.ListMaxLimit, p.ListOverMax), observed, patch,
		s.failf(ex, "a limit over the declared maximum %d was taken as asked; searched, the maximum is %d (%d probes)", p.ListMaxLimit, b.max, b.probes))
}

// listSearchEnd is the largest limit searchListMax asks for.
const listSearchEnd = 10000

// listBound is what searchListMax found: the largest limit taken as asked,
// what the list did above it (list_over_max; "" when nothing up to
// listSearchEnd was refused or clamped) and the requests it took.
type listBound struct {
	max    int64
	over   string
	probes int
}

// searchListMax finds the largest limit the upload links list takes as
// asked, from one it took (from): doubling until a limit is refused or
// clamped (clamped to c: the maximum is c), then bisecting between the last
// limit taken and the first refused.
func (s *scenario) searchListMax(ctx context.Context, from int64) (listBound, error) {
	b := listBound{max: from}
	probe := func(limit int64) (taken bool, clampedTo int64, err error) {
		b.probes++
		if err := s.listLinksQuery(ctx, fmt.Sprintf("limit=%d", limit)); err != nil {
			return false, 0, err
		}
		ex, err := s.lastExchange()
		if err != nil {
			return false, 0, err
		}
		if ex.status < 200 || ex.status > 299 {
			return false, 0, nil
		}
		got, _ := asInt(mustLookup(ex.doc, "page.limit"))
		if got < limit {
			return false, got, nil
		}
		return true, 0, nil
	}
	hi := int64(0)
	for next := from * 2; next <= listSearchEnd; next *= 2 {
		taken, clamped, err := probe(next)
		if err != nil {
			return b, err
		}
		if clamped > 0 {
			b.max, b.over = clamped, judging.ListOverMaxClamp
			return b, nil
		}
		if !taken {
			hi = next
			break
		}
		b.max = next
	}
	if hi == 0 {
		return b, nil // nothing refused up to the search's end
	}
	for hi-b.max > 1 {
		mid := b.max + (hi-b.max)/2
		taken, clamped, err := probe(mid)
		if err != nil {
			return b, err
		}
		if clamped > 0 {
			b.max, b.over = clamped, judging.ListOverMaxClamp
			return b, nil
		}
		if taken {
			b.max = mid
		} else {
			hi = mid
		}
	}
	b.over = judging.ListOverMaxRefuse
	return b, nil
}

// mustLookup is lookup without the found flag (nil when absent).
func mustLookup(doc any, path string) any {
	v, _ := lookup(doc, path)
	return v
}

// withRawQuery appends a raw query ("offset=2&limit=2") to path, if any.
func withRawQuery(path, query string) string {
	if query == "" {
		return path
	}
	return path + "?" + query
}

// listHoldsPage: the page holds min(page.limit, page.count - page.offset)
// items, none when the offset is past the total (§2.12). Items and page come
// from one response, so the relation holds while other clients create records.
func (s *scenario) listHoldsPage() error {
	ex, list, err := s.items()
	if err != nil {
		return err
	}
	var n [3]int64
	for i, f := range []string{"page.offset", "page.limit", "page.count"} {
		_, v, _, err := s.field(f)
		if err != nil {
			return err
		}
		got, ok := asInt(v)
		if !ok {
			return s.judge(s.failf(ex, "%s = %s, want an integer", f, render(v)))
		}
		n[i] = got
	}
	offset, limit, count := n[0], n[1], n[2]
	if want := max(min(limit, count-offset), 0); int64(len(list)) != want {
		return s.judge(s.failf(ex, "the list holds %d items, want %d (limit %d, count %d, offset %d)", len(list), want, limit, count, offset))
	}
	return nil
}

// itemsDisjoint: the page shares no item with the remembered page, as two
// windows at different offsets of one stable order must not.
func (s *scenario) itemsDisjoint() error {
	ex, list, err := s.items()
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	for _, it := range s.remembered {
		id, _ := lookupString(it, "id")
		seen[id] = true
	}
	for i, it := range list {
		if id, _ := lookupString(it, "id"); id != "" && seen[id] {
			return s.judge(s.failf(ex, "item %d (%s) was already on the remembered page", i, id))
		}
	}
	return nil
}
