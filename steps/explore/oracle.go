package explore

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/conform-kit/conform/steps/report"
	"github.com/conform-kit/conform/validate/judging"
)

// The oracle: every answer of the target judged by the judging law, with
// the model's answer to the same request as what a conformant server does.

var (
	basisServerError = judging.Basis{Clauses: []string{"7"}, Invariants: []string{"no_server_error"}}
	basisEnvelope    = basisOf("7")
	basisSecrets     = judging.Basis{Invariants: []string{"secrets"}}
	basisList        = basisOf("2.12", "4.10")
	basisUnchanged   = judging.Basis{Clauses: []string{"7"}, Invariants: []string{"refusal_changes_nothing"}}
)

// finding builds a finding with its outcome under the profile and strictness.
func (r *runner) finding(check string, st Step, b judging.Basis, msg, want, got, assert string) *Finding {
	o := report.Fail
	if !b.Normative() {
		o = report.Warn
		if r.opts.Strict {
			o = report.Fail
		}
	}
	return &Finding{Check: check, Op: st.Op, Outcome: o, Basis: b, Message: msg, Expected: want, Observed: got, assert: assert, Occurrences: 1}
}

// declaredOtherwise reports whether the target's profile declares another
// choice (or unchecked) for an assumed key: the model, which is the
// reference, does not speak for the target there.
func (r *runner) declaredOtherwise(key string) bool {
	if key == "" {
		return false
	}
	a, ok1 := r.profile.Value(key)
	b, ok2 := r.defaults.Value(key)
	return ok1 != ok2 || string(a) != string(b)
}

func is2xx(s int) bool { return s >= 200 && s < 300 }
func is4xx(s int) bool { return s >= 400 && s < 500 }

// judge judges the target's answer tex to st, the model having answered mex.
func (r *runner) judge(st Step, tex, mex Exchange, target, model *side, secrets []string) (*Finding, bool) {
	if tex.Status >= 500 && mex.Status < 500 {
		return r.finding(checkServerError, st, basisServerError,
			fmt.Sprintf("%s %s answered %d; a conformant server answers %d", st.Method, tex.Path, tex.Status, mex.Status),
			fmt.Sprintf("status %d", mex.Status), fmt.Sprintf("status %d", tex.Status), assertFor(mex.Status)), true
	}
	if f := r.secretsIn(st, tex, secrets); f != nil {
		return f, true
	}
	if is4xx(tex.Status) {
		if err := r.j.ValidateNormative("error", []byte(tex.Response)); err != nil {
			return r.finding(checkEnvelope, st, basisEnvelope, fmt.Sprintf("the %d refusal is not the §7 error envelope: %v", tex.Status, err),
				"the §7 envelope", firstLine(tex.Response), "the request is refused"), true
		}
	}
	op, _ := r.v.Operation(st.Op)
	switch {
	case is2xx(mex.Status) && tex.Status == http.StatusTooManyRequests:
		// A quota the target reached (the model is fresh each sequence, the
		// target is not): its limits are its own; the states part here.
		return nil, false
	case is2xx(mex.Status) && is4xx(tex.Status):
		if st.Refuse {
			return nil, false // the kit and its model disagree on this value: judge nothing more
		}
		b := assumed("reference_rules")
		if op.Assumed == "" && slices.ContainsFunc(st.AtLimit, func(f string) bool { return refusalNames(tex.doc, f) }) {
			// Refused for the value at its stated limit: the error names it.
			b = basisOf(append([]string{"8"}, op.Clauses...)...)
		}
		if st.User == userMerchant && st.Op != "merchants.update" {
			b = assumed("operation_roles")
		}
		if tex.Status == http.StatusNotAcceptable || tex.Status == http.StatusUnsupportedMediaType {
			b = assumed("request_content_type")
		}
		if r.declaredOtherwise(b.Assumed) || (op.Assumed != "" && r.declaredOtherwise(op.Assumed)) {
			return nil, false
		}
		return r.finding(checkAllowed, st, b, fmt.Sprintf("%s %s was refused with %d; the contract allows it (%s)", st.Method, tex.Path, tex.Status, allowedWhy(st)),
			fmt.Sprintf("status %d", mex.Status), fmt.Sprintf("status %d", tex.Status), "the request succeeds"), true
	case is4xx(mex.Status) && is2xx(tex.Status):
		b := st.Basis
		rule := st.Rule
		if !st.Refuse {
			b, rule = assumed("reference_rules"), "the reference refuses it"
		}
		if r.declaredOtherwise(b.Assumed) {
			return nil, false
		}
		return r.finding(checkForbidden, st, b, fmt.Sprintf("%s %s was accepted with %d; %s", st.Method, tex.Path, tex.Status, rule),
			"a 4xx refusal", fmt.Sprintf("status %d", tex.Status), "the request is refused"), true
	case !is2xx(tex.Status):
		return nil, true // no success of the target to judge further (both refused included)
	}
	// Both succeeded.
	if op.Response != "" {
		if err := r.j.ValidateNormative(op.Response, []byte(tex.Response)); err != nil {
			b, _ := r.j.SchemaBasis(op.Response)
			if !r.declaredOtherwise(b.Assumed) {
				return r.finding(checkShape, st, b, fmt.Sprintf("the %s answer breaks the %s schema: %v", st.Op, op.Response, err),
					"the "+op.Response+" schema", firstLine(tex.Response), "the request succeeds"), true
			}
		}
	}
	if want := r.profile.SuccessStatus(op); tex.Status != want && want != 0 {
		key := "success_status"
		if op.Status == 201 {
			key = "create_status"
		}
		if !r.declaredOtherwise(key) {
			return r.finding(checkSuccessStatus, st, assumed(key), fmt.Sprintf("%s answered %d, the profile declares %d", st.Op, tex.Status, want),
				strconv.Itoa(want), strconv.Itoa(tex.Status), "the request succeeds"), true
		}
	}
	doc, _ := tex.doc.(map[string]any)
	mdoc, _ := mex.doc.(map[string]any)
	role := st.Save
	if role == "" {
		role = st.Of
	}
	// What a refused request named reads as it was.
	if st.SameState && doc != nil {
		if before := target.docs[st.Of]; before != nil {
			for _, k := range []string{"state", "transfer", "amount", "url", "enabled", "nickname", "level_two_level_three_data_enabled", "display_name"} {
				b, had := before[k]
				a, has := doc[k]
				if had && (!has || !sameValue(a, b)) {
					return r.finding(checkChangesNone, st, basisUnchanged, fmt.Sprintf("a refused request changed %s of the %s: %s before, %s after", k, st.Of, render(b), render(a)),
						k+" = "+render(b), render(a), fieldAssert(k, b)), true
				}
			}
		}
	}
	// Read-back and computed fields: this answer, and every later read of the role.
	expect := st.Expect
	if role != "" && st.Save == "" && op.Response != "" && !strings.HasSuffix(op.Response, "_list") {
		expect = mergeExpect(target.expect[role], st.Expect)
	}
	for _, e := range expect {
		got, ok := lookup(doc, e.Path)
		if !matches(e.Value, got, ok) {
			if r.declaredOtherwise(e.Basis.Assumed) {
				continue
			}
			return r.finding(e.Check, st, e.Basis, fmt.Sprintf("%s of the %s is %s, want %s", e.Path, roleOr(role, st.Op), renderOK(got, ok), render(e.Value)),
				e.Path+" = "+render(e.Value), renderOK(got, ok), fieldAssert(e.Path, e.Value)), true
		}
	}
	if role != "" && doc != nil {
		target.docs[role] = doc
		if mdoc != nil {
			model.docs[role] = mdoc
		}
	}
	if st.Save != "" {
		if id, _ := doc["id"].(string); id != "" {
			target.ids[st.Save] = id
		}
		if id, _ := mdoc["id"].(string); id != "" {
			model.ids[st.Save] = id
		}
	}
	if st.Of != "" && st.Method != "GET" && st.Save == "" {
		target.expect[st.Of] = mergeExpect(target.expect[st.Of], st.Expect)
	}
	if st.Save != "" {
		target.expect[st.Save] = mergeExpect(target.expect[st.Save], st.Expect)
	}
	return nil, true
}

// mergeExpect overrides expectations by path.
func mergeExpect(old, add []expectField) []expectField {
	out := slices.Clone(old)
	for _, e := range add {
		i := slices.IndexFunc(out, func(x expectField) bool { return x.Path == e.Path })
		if i >= 0 {
			out[i] = e
		} else {
			out = append(out, e)
		}
	}
	return out
}

func roleOr(role, op string) string {
	if role != "" {
		return role
	}
	return op
}

func allowedWhy(st Step) string {
	if len(st.AtLimit) > 0 {
		return strings.Join(st.AtLimit, ", ") + " at the stated limit"
	}
	return "every field within the contract"
}

// assertFor is the suite step that states the model's status class.
func assertFor(status int) string {
	if is4xx(status) {
		return "the request is refused"
	}
	return "the request succeeds"
}

// secretsIn: no card number, security code or password in any answer, and
// no signing secret in a list (§2.10 shows it on a single webhook only).
func (r *runner) secretsIn(st Step, tex Exchange, secrets []string) *Finding {
	for _, s := range secrets {
		if len(s) >= 6 && strings.Contains(tex.Response, s) {
			return r.finding(checkSecrets, st, basisSecrets, fmt.Sprintf("the answer to %s %s holds a secret the run sent", st.Method, tex.Path),
				"no secret", "a secret of "+strconv.Itoa(len(s))+" characters", "the response never contains the card number")
		}
	}
	var hit string
	walkValues(tex.doc, "", func(p string, v any) {
		s, ok := v.(string)
		if !ok || hit != "" {
			return
		}
		if strings.HasSuffix(p, "security_code") && s != "" || (strings.HasSuffix(p, "number") && len(s) >= 12 && allDigits(s)) {
			hit = p
			return
		}
		for _, sec := range secrets {
			if len(sec) >= 3 && len(sec) <= 4 && s == sec && strings.Contains(p, "code") {
				hit = p
			}
		}
		if strings.Contains(p, "._embedded.") || strings.HasPrefix(p, "_embedded.") {
			if strings.HasSuffix(p, "secret_signing_key") && s != "" && !strings.HasPrefix(s, "<") {
				hit = p
			}
		}
	})
	if hit != "" {
		return r.finding(checkSecrets, st, basisSecrets, fmt.Sprintf("the answer to %s %s shows a secret at %s", st.Method, tex.Path, hit),
			hit+" absent", "present", fmt.Sprintf(`the response field %q is absent`, hit))
	}
	return nil
}

func allDigits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != ""
}

// walkValues calls fn with every leaf of a document and its dotted path.
func walkValues(doc any, prefix string, fn func(string, any)) {
	switch d := doc.(type) {
	case map[string]any:
		for k, v := range d {
			p := k
			if prefix != "" {
				p = prefix + "." + k
			}
			walkValues(v, p, fn)
		}
	case []any:
		for i, v := range d {
			walkValues(v, prefix+"."+strconv.Itoa(i), fn)
		}
	default:
		fn(prefix, d)
	}
}

// walk lists page by page and judges §2.12: every page of the requested
// size, page.count steady, each item once, newest first, and what the run
// made of the kind present (or, for another application, absent).
func (r *runner) walk(ctx context.Context, st Step, target *side, secrets []string) (*Finding, []Exchange, error) {
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
		r.requests++
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
		if err := r.j.ValidateNormative(op.Response, []byte(ex.Response)); err != nil {
			b, _ := r.j.SchemaBasis(op.Response)
			if !r.declaredOtherwise(b.Assumed) {
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
			return r.finding(checkListWalk, st, basisList, fmt.Sprintf("the page at offset %d of %s holds %d items; with page.count %d and limit %d it holds %d", offset, st.Path, len(list), count, limit, want),
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
	r.requests++
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

// ---- documents ----

// lookup reads a dotted path ("address.line1", "_embedded.webhooks").
func lookup(doc any, p string) (any, bool) {
	cur := doc
	for part := range strings.SplitSeq(p, ".") {
		switch d := cur.(type) {
		case map[string]any:
			v, ok := d[part]
			if !ok {
				return nil, false
			}
			cur = v
		case []any:
			i, err := strconv.Atoi(part)
			if err != nil || i < 0 || i >= len(d) {
				return nil, false
			}
			cur = d[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

func lookupInt(doc any, p string) (int64, bool) {
	v, ok := lookup(doc, p)
	if !ok {
		return 0, false
	}
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	i, err := n.Int64()
	return i, err == nil
}

// matches compares an expected value with what a response shows.
func matches(want, got any, present bool) bool {
	switch w := want.(type) {
	case notNull:
		return present && got != nil
	case nil:
		return present && got == nil
	case int64:
		n, ok := got.(json.Number)
		if !ok {
			return false
		}
		i, err := n.Int64()
		return err == nil && i == w && !strings.ContainsAny(n.String(), ".eE")
	case string:
		s, ok := got.(string)
		return ok && s == w
	case bool:
		b, ok := got.(bool)
		return ok && b == w
	}
	return false
}

func sameValue(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

func render(v any) string {
	switch v.(type) {
	case notNull:
		return "a value"
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

func renderOK(v any, ok bool) string {
	if !ok {
		return "absent"
	}
	return render(v)
}

// fieldAssert is the suite step stating a field's value.
func fieldAssert(p string, v any) string {
	switch w := v.(type) {
	case notNull:
		return fmt.Sprintf("the response field %q is present", p)
	case nil:
		return fmt.Sprintf("the response field %q is null", p)
	case string:
		return fmt.Sprintf("the response field %q is %q", p, w)
	case int64:
		return fmt.Sprintf("the response field %q is %d", p, w)
	case bool:
		return fmt.Sprintf("the response field %q is %t", p, w)
	case json.Number:
		return fmt.Sprintf("the response field %q is %s", p, w)
	}
	return fmt.Sprintf("the response field %q is present", p)
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// refusalNames reports whether an error envelope's items name the field
// (in a field member, a pointer, a dotted path or the message).
func refusalNames(doc any, field string) bool {
	if field == "" {
		return false
	}
	errs, _ := lookup(doc, "_embedded.errors")
	named := false
	walkValues(errs, "", func(_ string, v any) {
		if s, ok := v.(string); ok && strings.Contains(s, field) {
			named = true
		}
	})
	return named
}
