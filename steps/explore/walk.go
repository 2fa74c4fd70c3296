package explore

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

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

// walkPages walks and judges the pages of st's list (walk).
func (r *runner) walkPages(ctx context.Context, st Step, target *side, secrets []string) (*Finding, []Exchange, error) {
	w := st.Walk
	var exs []Exchange
	seen := map[string]bool{}
	var times []time.Time
	count := int64(-1)
	const maxPages = 8
	complete := false
	limit := w.Limit // the page size the target answers with: a target may clamp a limit (page.limit says so)
	offset := 0
	op, _ := r.v.Operation(st.Op)
	asc := strings.Contains(w.Query, "created_at,asc")
	for page := 0; page < maxPages; page++ {
		q := fmt.Sprintf("%s?limit=%d&offset=%d%s", st.Path, w.Limit, offset, w.Query)
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
		if ex.Status >= 500 {
			return r.finding(checkServerError, st, basisServerError, fmt.Sprintf("GET %s answered %d", ex.Path, ex.Status), "status 200", strconv.Itoa(ex.Status), "the request succeeds"), exs, nil
		}
		if f := r.secretsIn(st, ex, secrets); f != nil {
			return f, exs, nil
		}
		over := r.profile.ListMaxLimit > 0 && w.Limit > r.profile.ListMaxLimit
		if over && r.profile.ListOverMax == judging.ListOverMaxRefuse && !r.declaredOtherwise("list_over_max") && !r.declaredOtherwise("list_max_limit") {
			if is2xx(ex.Status) {
				return r.finding(checkForbidden, st, assumed("list_over_max", "4.10"), fmt.Sprintf("GET %s was answered %d; a limit over the maximum %d is refused", ex.Path, ex.Status, r.profile.ListMaxLimit),
					"a 4xx refusal", strconv.Itoa(ex.Status), "the request is refused"), exs, nil
			}
			return nil, exs, nil
		}
		if !is2xx(ex.Status) {
			if w.Other || over {
				return nil, exs, nil
			}
			return r.finding(checkAllowed, st, assumed("reference_rules"), fmt.Sprintf("GET %s was refused with %d", ex.Path, ex.Status), "status 200", strconv.Itoa(ex.Status), "the request succeeds"), exs, nil
		}
		if err := r.validateAnswer(op.Response, ex); err != nil {
			b, _ := r.j.SchemaBasis(op.Response)
			if b = r.basisFor(checkShape, st, b); !r.declaredOtherwise(b.Assumed) {
				return r.finding(checkShape, st, b, fmt.Sprintf("the page of %s breaks the %s schema: %v", st.Op, op.Response, err), op.Response, firstLine(ex.Response), "the request succeeds"), exs, nil
			}
		}
		c, ok := lookupInt(ex.doc, "page.count")
		if !ok {
			return nil, exs, nil
		}
		if count >= 0 && c != count {
			return r.finding(checkListWalk, st, basisList, fmt.Sprintf("page.count changed from %d to %d while walking %s", count, c, st.Path),
				fmt.Sprintf("page.count = %d", count), strconv.FormatInt(c, 10), fmt.Sprintf("the page count is %d", count)), exs, nil
		}
		count = c
		if l, ok := lookupInt(ex.doc, "page.limit"); ok && l > 0 && l < int64(limit) {
			limit = int(l)
		}
		items, _ := lookup(ex.doc, "_embedded."+w.Items)
		list, _ := items.([]any)
		want := min(int64(limit), max(count-int64(offset), 0))
		if int64(len(list)) != want {
			b := basisList
			if limit > defaultPageSize && int64(len(list)) < want {
				// A page short of a size over the default: the largest
				// page is not shown (§8), the target may hold fewer.
				b = assumed("list_max_limit", "2.12", "4.10")
				if r.declaredOtherwise(b.Assumed) {
					return nil, exs, nil
				}
			}
			return r.finding(checkListWalk, st, b, fmt.Sprintf("the page at offset %d of %s holds %d items; with page.count %d and limit %d it holds %d", offset, st.Path, len(list), count, limit, want),
				fmt.Sprintf("%d items", want), fmt.Sprintf("%d items", len(list)), "the list holds as many items as its page allows"), exs, nil
		}
		for _, it := range list {
			m, _ := it.(map[string]any)
			id, _ := m["id"].(string)
			if seen[id] {
				return r.finding(checkListWalk, st, basisList, fmt.Sprintf("%s appears twice while walking %s", id, st.Path), "each item once", id+" twice", "the items share none with the remembered items"), exs, nil
			}
			seen[id] = true
			ts, _ := m["created_at"].(string)
			t, _ := time.Parse(time.RFC3339Nano, ts)
			if n := len(times); n > 0 && ((!asc && t.After(times[n-1])) || (asc && t.Before(times[n-1]))) {
				order, which := "descending", "newest"
				if asc {
					order, which = "ascending", "oldest"
				}
				return r.finding(checkListWalk, st, basisList, fmt.Sprintf("items of %s are not in created_at %s order: %s after %s", st.Path+"?"+strings.TrimPrefix(w.Query, "&"), order, ts, times[n-1].Format(time.RFC3339Nano)),
					"created_at "+order, ts, "the items are ordered by created_at then id, "+which+" first"), exs, nil
			}
			times = append(times, t)
		}
		offset += limit
		if int64(offset) >= count {
			complete = true
			break
		}
	}
	if !complete {
		return nil, exs, nil
	}
	// One page past the end: no items, the same page.count.
	past := fmt.Sprintf("%s?limit=%d&offset=%d%s", st.Path, w.Limit, int(count)+w.Limit, w.Query)
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
			return r.finding(checkListWalk, st, basisList, fmt.Sprintf("the page past the end of %s (offset %d, page.count %d) holds %d items", st.Path, int(count)+w.Limit, count, len(list)),
				"0 items", fmt.Sprintf("%d items", len(list)), "the list holds as many items as its page allows"), exs, nil
		}
	}
	for _, role := range w.Roles {
		id := target.ids[role]
		if id == "" {
			continue
		}
		if w.Other && seen[id] {
			return r.finding(checkTenancy, st, judging.Basis{Clauses: []string{"2.12"}, Invariants: []string{"tenancy"}}, fmt.Sprintf("another application's list %s shows the %s %s", st.Path, role, id),
				"absent", "listed", "the list does not contain the "+role), exs, nil
		}
		if !w.Other && !seen[id] {
			return r.finding(checkListComplete, st, basisList, fmt.Sprintf("walking %s to page.count %d never shows the %s %s", st.Path, count, role, id),
				"listed", "absent", "the list contains the "+role), exs, nil
		}
	}
	return nil, exs, nil
}
