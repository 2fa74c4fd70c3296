package explore

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/conform-kit/conform/validate"
	"github.com/conform-kit/conform/validate/judging"
)

// List walks: a list read page by page to page.count, judged by §2.12.

// defaultPageSize is the list page size §2.12 and §8 state ("Default
// limit is 20"); a larger page's size is not stated ("Maximum list page
// size: not shown").
const defaultPageSize = 20

// walk lists page by page and judges §2.12: every page of the requested
// size, page.count steady, each item once, newest first, and what the run
// made of the kind present (or, for another application, absent).
func (r *runner) walk(ctx context.Context, st Step, target *side, secrets []string) (*Finding, []Exchange, error) {
	f, exs, err := r.walkPages(ctx, st, target, secrets)
	if f != nil && (f.Check == checkListWalk || f.Check == checkListComplete) && !r.phases.settled(listKind(st.Path)) {
		// A write of this kind went unanswered a moment ago: the target
		// may have carried it out during the walk.
		return nil, exs, err
	}
	return f, exs, err
}

// pageWalk is one walk of a list's pages: where it is, what it saw, and
// the order its items must keep.
type pageWalk struct {
	st       Step
	w        *walk
	op       validate.Operation
	maxPages int
	seen     map[string]bool
	order    []string       // the ids in the order the walk showed them
	prev     map[string]any // the item listed last
	count    int64          // page.count (-1 before the first page)
	limit    int            // the page size the target answers with: a target may clamp a limit (page.limit says so)
	offset   int
	sent     []sortKey // the sort the query sends
	keys     []sortKey // the order the items keep
	// moving: a record's updated_at may move on its own between two reads
	// (a file's review, §3.1; "Transitions: not shown", §3.3): in that
	// order only a page, one read, is judged; across pages and reads an
	// item may move.
	moving   bool
	followed bool // the self link was followed (or is not to be)
}

// newPageWalk is the walk of st's list before its first page.
func (r *runner) newPageWalk(st Step) *pageWalk {
	w := st.Walk
	op, _ := r.v.Operation(st.Op)
	p := &pageWalk{st: st, w: w, op: op, maxPages: 8, seen: map[string]bool{}, count: -1, limit: w.Limit, sent: sortsOf(w.Query)}
	if len(w.Gone) > 0 {
		// A list asked after a delete: what it deleted was made moments
		// ago, newest first in the default order, so on the first page
		// unless twenty were made since; two pages at most keep the
		// question's cost near the fetch's.
		p.maxPages = 2
	}
	p.keys = p.sent
	if len(p.keys) == 0 {
		p.keys = defaultOrder
	}
	p.moving = slices.ContainsFunc(p.keys, func(k sortKey) bool { return k.Field == "updated_at" })
	p.followed = p.moving || !w.Follow
	return p
}

// walkPages walks and judges the pages of st's list (walk).
func (r *runner) walkPages(ctx context.Context, st Step, target *side, secrets []string) (*Finding, []Exchange, error) {
	p := r.newPageWalk(st)
	w := st.Walk
	var exs []Exchange
	complete := false
	for page := 0; page < p.maxPages; page++ {
		q := fmt.Sprintf("%s?limit=%d&offset=%d%s", st.Path, w.Limit, p.offset, w.Query)
		ex, err := target.send(ctx, st, q)
		r.requests.Add(1)
		if err != nil {
			return nil, exs, err
		}
		ex.Page = page > 0
		exs = append(exs, ex)
		if page == 0 {
			r.coverage.add(st, ex)
		}
		list, f, stop := r.judgePage(p, ex, secrets)
		if stop {
			return f, exs, nil
		}
		if f := r.judgeItems(p, target, list); f != nil {
			return f, exs, nil
		}
		if !p.followed && !w.Other {
			// The self link, followed, is the same page (§2.12: it carries
			// the query's offset, limit and sort values).
			p.followed = true
			f, fex, err := r.followSelf(ctx, st, target, ex, list)
			exs = append(exs, fex...)
			if err != nil || f != nil {
				return f, exs, err
			}
		}
		p.offset += p.limit
		if int64(p.offset) >= p.count {
			complete = true
			break
		}
	}
	if !complete {
		return nil, exs, nil
	}
	f, fex, err := r.walkEnd(ctx, p, target)
	return f, append(exs, fex...), err
}

// judgePage judges one page's answer: its status, its shape, its
// page.count and page.limit, its self link and its size. stop ends the
// walk (with f or without a finding); else list is the page's items.
func (r *runner) judgePage(p *pageWalk, ex Exchange, secrets []string) (list []any, f *Finding, stop bool) {
	st, w := p.st, p.w
	if ex.Status >= 500 {
		return nil, r.finding(checkServerError, st, basisServerError, fmt.Sprintf("GET %s answered %d", ex.Path, ex.Status), "status 200", strconv.Itoa(ex.Status), "the request succeeds"), true
	}
	if f := r.secretsIn(st, ex, secrets); f != nil {
		return nil, f, true
	}
	over := r.profile.ListMaxLimit > 0 && w.Limit > r.profile.ListMaxLimit
	if over && r.profile.ListOverMax == judging.ListOverMaxRefuse && !r.declaredOtherwise("list_over_max") && !r.declaredOtherwise("list_max_limit") {
		if is2xx(ex.Status) {
			return nil, r.finding(checkForbidden, st, assumed("list_over_max", "4.10"), fmt.Sprintf("GET %s was answered %d; a limit over the maximum %d is refused", ex.Path, ex.Status, r.profile.ListMaxLimit),
				"a 4xx refusal", strconv.Itoa(ex.Status), "the request is refused"), true
		}
		return nil, nil, true
	}
	if !is2xx(ex.Status) {
		if w.Other || over {
			return nil, nil, true
		}
		return nil, r.finding(checkAllowed, st, assumed("reference_rules"), fmt.Sprintf("GET %s was refused with %d", ex.Path, ex.Status), "status 200", strconv.Itoa(ex.Status), "the request succeeds"), true
	}
	if err := r.validateAnswer(p.op.Response, ex); err != nil {
		b, _ := r.j.SchemaBasis(p.op.Response)
		if b = r.basisFor(checkShape, st, b); !r.declaredOtherwise(b.Assumed) {
			return nil, r.finding(checkShape, st, b, fmt.Sprintf("the page of %s breaks the %s schema: %v", st.Op, p.op.Response, err), p.op.Response, firstLine(ex.Response), "the request succeeds"), true
		}
	}
	c, ok := lookupInt(ex.doc, "page.count")
	if !ok {
		return nil, nil, true
	}
	if p.count >= 0 && c != p.count {
		return nil, r.finding(checkListWalk, st, basisList, fmt.Sprintf("page.count changed from %d to %d while walking %s", p.count, c, st.Path),
			fmt.Sprintf("page.count = %d", p.count), strconv.FormatInt(c, 10), fmt.Sprintf("the page count is %d", p.count)), true
	}
	p.count = c
	if l, ok := lookupInt(ex.doc, "page.limit"); ok && l > 0 && l < int64(p.limit) {
		p.limit = int(l)
	}
	if f := r.judgeSelfLink(st, ex, p.offset, p.sent); f != nil {
		return nil, f, true
	}
	items, _ := lookup(ex.doc, "_embedded."+w.Items)
	list, _ = items.([]any)
	want := min(int64(p.limit), max(p.count-int64(p.offset), 0))
	if int64(len(list)) != want {
		b := basisList
		if p.limit > defaultPageSize && int64(len(list)) < want {
			// A page short of a size over the default: the largest
			// page is not shown (§8), the target may hold fewer.
			b = assumed("list_max_limit", "2.12", "4.10")
			if r.declaredOtherwise(b.Assumed) {
				return nil, nil, true
			}
		}
		return nil, r.finding(checkListWalk, st, b, fmt.Sprintf("the page at offset %d of %s holds %d items; with page.count %d and limit %d it holds %d", p.offset, st.Path, len(list), p.count, p.limit, want),
			fmt.Sprintf("%d items", want), fmt.Sprintf("%d items", len(list)), "the list holds as many items as its page allows"), true
	}
	return list, nil, false
}

// judgeItems judges a page's items: each once in the walk, none deleted,
// each in the order after the one before.
func (r *runner) judgeItems(p *pageWalk, target *side, list []any) *Finding {
	st := p.st
	first := true // the page's first item
	for _, it := range list {
		m, _ := it.(map[string]any)
		id, _ := m["id"].(string)
		if p.seen[id] && !p.moving {
			return r.finding(checkListWalk, st, basisList, fmt.Sprintf("%s appears twice while walking %s", id, st.Path), "each item once", id+" twice", "the items share none with the remembered items")
		}
		p.seen[id] = true
		p.order = append(p.order, id)
		if role := goneRole(p.w.Gone, target, id); role != "" {
			return r.finding(checkGone, st, basisGoneList, fmt.Sprintf("the %s %s, deleted, is listed at offset %d of %s (page.count %d)", role, id, p.offset, st.Path, p.count),
				"not listed", "listed", "the list does not contain the "+role)
		}
		if p.prev != nil && (!p.moving || !first) {
			if k, bad := outOfOrder(p.keys, p.prev, m); bad {
				return r.finding(checkListWalk, st, basisSort, fmt.Sprintf("items of %s are not in %s order: %s (%s %v) after %s (%s %v)", st.Path+"?"+strings.TrimPrefix(p.w.Query, "&"), orderText(p.keys),
					id, k.Field, m[k.Field], p.prev["id"], k.Field, p.prev[k.Field]),
					orderText(p.keys), fmt.Sprintf("%s %v after %v", k.Field, m[k.Field], p.prev[k.Field]), orderAssert(p.keys))
			}
		}
		p.prev, first = m, false
	}
	return nil
}

// walkEnd judges a walk that reached page.count: the whole list in one
// page, one page past the end, and the roles it must (or, for another
// application, must not) show.
func (r *runner) walkEnd(ctx context.Context, p *pageWalk, target *side) (*Finding, []Exchange, error) {
	st, w := p.st, p.w
	var exs []Exchange
	if w.Whole && !w.Other && !p.moving && p.offset > p.limit {
		// Walked in several pages: one page of the whole list shows the
		// same items (in the same order where the order is total: the
		// default's created_at then id).
		f, fex, err := r.wholePage(ctx, st, target, p.count, p.order, len(p.sent) == 0)
		exs = append(exs, fex...)
		if err != nil || f != nil {
			return f, exs, err
		}
	}
	// One page past the end: no items, the same page.count.
	past := fmt.Sprintf("%s?limit=%d&offset=%d%s", st.Path, w.Limit, int(p.count)+w.Limit, w.Query)
	ex, err := target.send(ctx, st, past)
	r.requests.Add(1)
	if err != nil {
		return nil, exs, err
	}
	ex.Page = true
	exs = append(exs, ex)
	if ex.Status >= 500 {
		return r.finding(checkServerError, st, basisServerError, fmt.Sprintf("GET %s answered %d", ex.Path, ex.Status), "status 200", strconv.Itoa(ex.Status), "the request succeeds"), exs, nil
	}
	if is2xx(ex.Status) {
		items, _ := lookup(ex.doc, "_embedded."+w.Items)
		if list, _ := items.([]any); len(list) > 0 {
			return r.finding(checkListWalk, st, basisList, fmt.Sprintf("the page past the end of %s (offset %d, page.count %d) holds %d items", st.Path, int(p.count)+w.Limit, p.count, len(list)),
				"0 items", fmt.Sprintf("%d items", len(list)), "the list holds as many items as its page allows"), exs, nil
		}
	}
	return r.walkRoles(p, target), exs, nil
}

// walkRoles judges the roles a walk to page.count must show (or, for
// another application, must not).
func (r *runner) walkRoles(p *pageWalk, target *side) *Finding {
	st, w := p.st, p.w
	for _, role := range w.Roles {
		id := target.ids[role]
		if id == "" {
			continue
		}
		if w.Other && p.seen[id] {
			return r.finding(checkTenancy, st, judging.Basis{Clauses: []string{"2.12"}, Invariants: []string{"tenancy"}}, fmt.Sprintf("another application's list %s shows the %s %s", st.Path, role, id),
				"absent", "listed", "the list does not contain the "+role)
		}
		if !w.Other && !p.seen[id] && !p.moving {
			return r.finding(checkListComplete, st, basisList, fmt.Sprintf("walking %s to page.count %d never shows the %s %s", st.Path, p.count, role, id),
				"listed", "absent", "the list contains the "+role)
		}
	}
	return nil
}

// goneRole is the role of gone whose id on the target is id ("" for none).
func goneRole(gone []string, target *side, id string) string {
	for _, role := range gone {
		if id != "" && target.ids[role] == id {
			return role
		}
	}
	return ""
}

var (
	basisSort     = saying(basisOf("2.12", "4.10"), "the default order is created_at,desc then id,desc; repeated sort values of the form <field>,<asc|desc>; lists use offset, limit and sort")
	basisSelfLink = saying(basisOf("2.12", "4.10"), "the list self link carries query parameters offset, limit and repeated sort values of the form <field>,<asc|desc>")
)

// orderAssert is the suite's step asserting the order of keys.
func orderAssert(keys []sortKey) string {
	if len(keys) == 2 && keys[0].Field == "created_at" && keys[1].Field == "id" && keys[0].Desc == keys[1].Desc || len(keys) == 1 && keys[0].Field == "created_at" {
		return "the items are ordered by created_at then id, " + map[bool]string{true: "newest", false: "oldest"}[keys[0].Desc] + " first"
	}
	return fmt.Sprintf("the items are ordered by %q", orderText(keys))
}

// judgeSelfLink judges the self link of a page of st's walk at offset:
// it carries the page's offset and limit (page.limit, which a target may
// clamp) and the sort values sent, in their order.
func (r *runner) judgeSelfLink(st Step, ex Exchange, offset int, sent []sortKey) *Finding {
	v, ok := lookup(ex.doc, "_links.self.href")
	href, _ := v.(string)
	if !ok || href == "" {
		return nil // the schema names what a page must hold
	}
	limit, ok := lookupInt(ex.doc, "page.limit")
	if !ok {
		return nil
	}
	if st.Walk.Limit > defaultPageSize {
		// A page over the default: its size is not shown (§8), nor
		// which limit the link of a page the target sized carries.
		limit = -1
	}
	miss := selfLinkMisses(href, offset, int(limit), sent, st.Walk.Limit)
	if miss == "" {
		return nil
	}
	param, _, _ := strings.Cut(miss, " ")
	return r.finding(checkListWalk, st, basisSelfLink, fmt.Sprintf("the self link of %s does not carry %s: %s", ex.Path, miss, href),
		"a self link carrying "+param, href, fmt.Sprintf("the self link carries %q", param))
}

// readPage reads one more page of st's walk at path: the exchange, or a
// finding when the target answered 5xx.
func (r *runner) readPage(ctx context.Context, st Step, target *side, path string) (Exchange, *Finding, error) {
	ex, err := target.send(ctx, st, path)
	r.requests.Add(1)
	if err != nil {
		return ex, nil, err
	}
	ex.Page = true
	if ex.Status >= 500 {
		return ex, r.finding(checkServerError, st, basisServerError, fmt.Sprintf("GET %s answered %d", ex.Path, ex.Status), "status 200", strconv.Itoa(ex.Status), "the request succeeds"), nil
	}
	return ex, nil, nil
}

// followSelf follows the self link of a page of st's walk (list, its
// items): the same items in the same order.
func (r *runner) followSelf(ctx context.Context, st Step, target *side, page Exchange, list []any) (*Finding, []Exchange, error) {
	v, _ := lookup(page.doc, "_links.self.href")
	href, _ := v.(string)
	rel, ok := target.relative(href)
	if !ok {
		return nil, nil, nil // a link to another host (a proxy's): not the kit's to follow
	}
	ex, f, err := r.readPage(ctx, st, target, rel)
	if err != nil {
		return nil, nil, err
	}
	exs := []Exchange{ex}
	if f != nil {
		return f, exs, nil
	}
	if !is2xx(ex.Status) {
		return r.finding(checkListWalk, st, basisSelfLink, fmt.Sprintf("the self link %s of a page of %s was refused with %d", href, st.Path, ex.Status),
			"status 200", strconv.Itoa(ex.Status), "the request succeeds"), exs, nil
	}
	items, _ := lookup(ex.doc, "_embedded."+st.Walk.Items)
	again, _ := items.([]any)
	if a, b := idsOf(list), idsOf(again); !slices.Equal(a, b) {
		return r.finding(checkListWalk, st, basisSelfLink, fmt.Sprintf("the self link %s of a page of %s lists %v; the page lists %v", href, st.Path, b, a),
			fmt.Sprintf("%d items", len(a)), fmt.Sprintf("%d items", len(b)), fmt.Sprintf("the list holds %d items", len(a))), exs, nil
	}
	return nil, exs, nil
}

// wholePage reads st's list, which a walk showed as order in pages, in one
// page of count items (when the target's largest page holds them: 20, the
// stated default, or the profile's list_max_limit): the same items, and in
// the same order where the order is total (the default).
func (r *runner) wholePage(ctx context.Context, st Step, target *side, count int64, order []string, total bool) (*Finding, []Exchange, error) {
	largest := int64(defaultPageSize)
	if m := r.profile.ListMaxLimit; m > defaultPageSize {
		largest = int64(m)
	}
	if count > largest || count < 1 || !r.phases.settled(listKind(st.Path)) {
		return nil, nil, nil
	}
	ex, f, err := r.readPage(ctx, st, target, fmt.Sprintf("%s?limit=%d&offset=0%s", st.Path, count, st.Walk.Query))
	if err != nil {
		return nil, nil, err
	}
	exs := []Exchange{ex}
	if f != nil {
		return f, exs, nil
	}
	if !is2xx(ex.Status) {
		return nil, exs, nil // a page over the default: its size is not shown (§8)
	}
	items, _ := lookup(ex.doc, "_embedded."+st.Walk.Items)
	list, _ := items.([]any)
	if c, ok := lookupInt(ex.doc, "page.count"); !ok || c != count || int64(len(list)) != count {
		return nil, exs, nil // another size or count: the walk's checks judge pages
	}
	ids := idsOf(list)
	same := slices.Equal(ids, order)
	if !total {
		a, b := slices.Clone(ids), slices.Clone(order)
		slices.Sort(a)
		slices.Sort(b)
		same = slices.Equal(a, b)
	}
	if !same {
		return r.finding(checkListWalk, st, basisList, fmt.Sprintf("walking %s page by page lists %v; one page of %d lists %v", st.Path+"?"+strings.TrimPrefix(st.Walk.Query, "&"), order, count, ids),
			strings.Join(order, ","), strings.Join(ids, ","), fmt.Sprintf("the list holds %d items", count)), exs, nil
	}
	return nil, exs, nil
}

// idsOf lists the ids of list items.
func idsOf(list []any) []string {
	out := make([]string, 0, len(list))
	for _, it := range list {
		m, _ := it.(map[string]any)
		id, _ := m["id"].(string)
		out = append(out, id)
	}
	return out
}
