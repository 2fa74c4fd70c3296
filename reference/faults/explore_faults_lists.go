package faults

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/conform-kit/conform/validate"
)

// exploreListFaults are list bugs a walk in the default order never
// shows: a sort field the server's ORDER BY does not know, links built
// from the first sort value alone, a page offset wrong only on the code
// path of several sort values.
func exploreListFaults() []Fault {
	return []Fault{
		// A WARN: the only list of several amounts a run makes is the
		// balance transfers' (an extension, judged under extensions); on
		// disputes or adjustment transfers of several amounts it FAILs.
		{Name: "list-sort-by-amount-ignored", Capability: "lists", Expect: ExpectWarn, Tags: "@lists",
			Breaks: "§2.12/§4.10 a list sorted by <field>,<asc|desc> is in that order (a sort on amount, missing from the server's ORDER BY columns, falls back to created_at; the links still echo it)",
			wrap: listWithQuery(func(q url.Values) bool {
				var keys []string
				changed := false
				for _, v := range q["sort"] {
					if f, dir, _ := strings.Cut(v, ","); f == "amount" {
						v, changed = "created_at,"+dir, true
					}
					if !slices.ContainsFunc(keys, func(k string) bool { return strings.HasPrefix(k, strings.SplitN(v, ",", 2)[0]+",") }) {
						keys = append(keys, v)
					}
				}
				q["sort"] = keys
				return changed
			}, func(sent url.Values, out map[string]any) {
				editLinks(out, func(q url.Values) { q["sort"] = sent["sort"] })
			})},
		{Name: "list-self-link-keeps-first-sort", Capability: "lists", Expect: ExpectFail, Tags: "@lists",
			Breaks: "§2.12 the list self link carries repeated sort values (it is built with Query().Get(\"sort\"): the first alone)",
			wrap: rewriteResponse(func(x *faultExchange) bool {
				changed := false
				editLinks(x.out, func(q url.Values) {
					if len(q["sort"]) > 1 {
						q["sort"], changed = q["sort"][:1], true
					}
				})
				return changed
			}, listRoutes()...)},
		{Name: "list-secondary-sort-starts-one-late", Capability: "lists", Expect: ExpectFail, Tags: "@lists",
			Breaks: "§2.12/§4.10 offset selects the page (with two sort values or more the page starts one record late: an off-by-one of the multi-key path; page.offset and the links show the offset sent)",
			wrap: listWithQuery(func(q url.Values) bool {
				if len(q["sort"]) < 2 {
					return false
				}
				n, _ := strconv.Atoi(q.Get("offset"))
				q.Set("offset", strconv.Itoa(n+1))
				return true
			}, func(sent url.Values, out map[string]any) {
				n, _ := strconv.Atoi(sent.Get("offset"))
				if page := objectAt(out, "page"); page != nil {
					page["offset"] = n
				}
				editLink(out, "self", func(q url.Values) { q.Set("offset", strconv.Itoa(n)) })
			})},
	}
}

// explorePositionFaults are rules a server keeps in one operation or one
// array position only: an explorer judging a value class once per schema
// (item 0, the operation drawn first) reaches the class and misses them.
func explorePositionFaults() []Fault {
	payments := []string{"authorizations.create", "transfers.create", "authorizations.capture"}
	return []Fault{
		{Name: "item-quantity-checked-on-first-item-only", Capability: "authorizations", Expect: ExpectFail, Tags: "@authorizations",
			Breaks: "§2.13/§8 item_data.quantity greater than 0 (checked on item_data[0] alone: a later item of quantity 0 or less is taken)",
			wrap: rewriteRequest(func(x *faultExchange) bool {
				items, _ := objectAt(x.in, "additional_purchase_data")["item_data"].([]any)
				changed := false
				for i, it := range items {
					m, _ := it.(map[string]any)
					if q, ok := numberOf(m["quantity"]); ok && i > 0 && q <= 0 {
						m["quantity"], changed = 1, true // stored as taken: the check never saw it
					}
				}
				return changed
			}, payments...)},
		{Name: "commodity-code-column-of-6", Capability: "authorizations", Expect: ExpectFail, Tags: "@authorizations",
			Breaks: "§2.13 a commodity code of 3, 5, 7 or 11 digits (line items are stored in a column of 6 characters: a 7- or 11-digit code is refused, naming the field)",
			wrap: answerWhen(func(in map[string]any) bool {
				return itemWhere(in, func(m map[string]any) bool {
					s, _ := m["commodity_code"].(string)
					return len(s) > 6 && len(s) <= 12
				}) >= 0
			}, func(w http.ResponseWriter, r *http.Request) {
				i := itemWhere(peekJSON(r), func(m map[string]any) bool { s, _ := m["commodity_code"].(string); return len(s) > 6 })
				validate.WriteEnvelope(w, r, http.StatusUnprocessableEntity, validate.ErrorItem{Code: "INVALID_FIELD",
					Message: "value too long for column commodity_code (6)", Field: "/additional_purchase_data/item_data/" + strconv.Itoa(i) + "/commodity_code"})
			}, payments...)},
		{Name: "sale-card-name-apostrophe-refused", Capability: "transfers", Expect: ExpectWarn, Tags: "@transfers",
			Breaks: "the kit's sales: a valid sale is taken (the sale passes the card holder name to a processor validator refusing apostrophes: a card named O'Brien is taken, its sales refused; no sentence states a sale's acceptance, so reference_rules)",
			wrap: func(next http.Handler, _ faultDeps) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if _, ok := faultRoute(r, "transfers.create"); ok {
						if src, _ := peekJSON(r)["source"].(string); src != "" && !strings.ContainsAny(src, "/?#") {
							status, card := innerCall(next, r, http.MethodGet, "/payment_instruments/"+src, nil, nil)
							if name, _ := card["name"].(string); isSuccess(status) && strings.Contains(name, "'") {
								validate.WriteEnvelope(w, r, http.StatusUnprocessableEntity, validate.ErrorItem{Code: "INVALID_FIELD",
									Message: "the card holder name holds characters the processor refuses", Field: "/source"})
								return
							}
						}
					}
					next.ServeHTTP(w, r)
				})
			}},
		{Name: "sale-fee-equal-to-amount-refused", Capability: "transfers", Expect: ExpectFail, Tags: "@transfers",
			Breaks: "§4.2/§7 fee <= amount (a sale checks fee < amount: a fee equal to the amount is refused; captures check it right)",
			wrap: refuseWhen(func(in map[string]any) bool {
				a, ok1 := numberOf(in["amount"])
				f, ok2 := numberOf(in["fee"])
				return ok1 && ok2 && f == a
			}, "/fee", "transfers.create")},
	}
}

// itemWhere is the index of the first Level 3 item of a payment body that
// matches, or -1.
func itemWhere(in map[string]any, matches func(map[string]any) bool) int {
	items, _ := objectAt(in, "additional_purchase_data")["item_data"].([]any)
	for i, it := range items {
		if m, ok := it.(map[string]any); ok && matches(m) {
			return i
		}
	}
	return -1
}

// listWithQuery is a fault of list reads: edit changes the query the
// server sees (reporting whether it did), fix then edits the answer given
// the query the client sent (its links, its page).
func listWithQuery(edit func(q url.Values) bool, fix func(sent url.Values, out map[string]any)) func(http.Handler, faultDeps) http.Handler {
	return func(next http.Handler, _ faultDeps) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			q := r.URL.Query()
			if _, ok := match(r, listRoutes()); !ok || !edit(q) {
				next.ServeHTTP(w, r)
				return
			}
			sent := r.URL.Query()
			inner := r.Clone(r.Context())
			inner.URL.RawQuery = q.Encode()
			rec := newFaultRecorder()
			next.ServeHTTP(rec, inner)
			out := decodeFaultJSON(rec.body.Bytes())
			if out == nil || !isSuccess(rec.status) {
				rec.flush(w, rec.body.Bytes())
				return
			}
			fix(sent, out)
			writeFaultJSONHeader(w, rec, out)
		})
	}
}

// editLinks edits the query of a list answer's self, next and prev links.
func editLinks(out map[string]any, edit func(q url.Values)) {
	for _, name := range []string{"self", "next", "prev"} {
		editLink(out, name, edit)
	}
}

// editLink edits the query of one link of a list answer, keeping the
// order of its parameters: offset, limit, then each sort value.
func editLink(out map[string]any, name string, edit func(q url.Values)) {
	l := objectAt(out, "_links."+name)
	u, err := url.Parse(stringAt(l, "href"))
	if l == nil || err != nil {
		return
	}
	q := u.Query()
	edit(q)
	var b strings.Builder
	for _, k := range []string{"offset", "limit"} {
		if q.Has(k) {
			b.WriteString("&" + k + "=" + url.QueryEscape(q.Get(k)))
		}
	}
	for _, v := range q["sort"] {
		b.WriteString("&sort=" + v)
	}
	u.RawQuery = strings.TrimPrefix(b.String(), "&")
	l["href"] = u.String()
}

// listTiesByID breaks the ties of an explicit sort by id, descending (the
// spec states the default order's tie-break only): the server appends
// id,desc to the sort values it is sent and its links carry it.
func listTiesByID(next http.Handler, d faultDeps) http.Handler {
	return listWithQuery(func(q url.Values) bool {
		keys := q["sort"]
		if len(keys) == 0 || slices.ContainsFunc(keys, func(k string) bool { return strings.HasPrefix(k, "id,") }) {
			return false
		}
		q["sort"] = append(slices.Clone(keys), "id,desc")
		return true
	}, func(url.Values, map[string]any) {})(next, d)
}
