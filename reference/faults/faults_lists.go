package faults

import (
	"net/http"
	"net/url"
	"strconv"
)

// listFaults break spec §2.12, §4.10 and §8 (lists).
func listFaults() []Fault {
	const byDefault = "a list returns 20 items by default and counts the total"
	return []Fault{
		{
			Name: "default-page-size-not-20", Capability: "lists", Expect: ExpectFail, Tags: "@lists",
			Breaks:   "§2.12/§8 the default limit is 20",
			Catchers: []string{byDefault},
			wrap:     rewriteQuery(func(q url.Values) bool { return setIfAbsent(q, "limit", "10") }),
		},
		{
			Name: "page-count-is-page-size", Capability: "lists", Expect: ExpectFail, Tags: "@lists",
			Breaks:   "§2.12 page.count is the total number of records",
			Catchers: []string{byDefault},
			wrap:     rewriteResponse(countPageSize, listRoutes()...),
		},
		{
			Name: "default-order-ascending", Capability: "lists", Expect: ExpectFail, Tags: "@lists",
			Breaks:   "§2.12 the default order is created_at,desc then id,desc",
			Catchers: []string{"the default order is created_at then id, newest first"},
			wrap: rewriteQuery(func(q url.Values) bool {
				if len(q["sort"]) > 0 {
					return false
				}
				q["sort"] = []string{"created_at,asc", "id,asc"}
				return true
			}),
		},
		{
			Name: "self-link-drops-sort", Capability: "lists", Expect: ExpectFail, Tags: "@lists",
			Breaks:   "§2.12 the self link carries the sort values",
			Catchers: []string{"the self link carries offset, limit and sort"},
			wrap: rewriteResponse(func(x *faultExchange) bool {
				self := objectAt(x.out, "_links.self")
				u, err := url.Parse(stringAt(self, "href"))
				if self == nil || err != nil {
					return false
				}
				q := u.Query()
				q.Del("sort")
				u.RawQuery = q.Encode()
				self["href"] = u.String()
				return true
			}, listRoutes()...),
		},
		{
			Name: "offset-ignored", Capability: "lists", Expect: ExpectFail, Tags: "@lists",
			Breaks:   "§4.10 lists honour offset",
			Catchers: []string{"offset and limit select a window of the list"},
			wrap:     dropQuery("offset"),
		},
		{
			Name: "sort-parameter-ignored", Capability: "lists", Expect: ExpectFail, Tags: "@lists",
			Breaks:   "§2.12/§4.10 lists honour an explicit sort",
			Catchers: []string{"an explicit sort orders the list oldest first and is echoed in the self link"},
			wrap:     dropQuery("sort"),
		},
		{
			Name: "webhook-list-ignores-limit", Capability: "lists", Expect: ExpectFail, Tags: "@webhooks",
			Breaks:   "§4.10 the webhook list honours limit",
			Catchers: []string{"the webhook list honours its limit and counts every webhook"},
			wrap:     dropQuery("limit", "webhooks.list"),
		},
		{
			Name: "enrollment-list-count-is-page-size", Capability: "lists", Expect: ExpectFail, Tags: "@subscriptions",
			Breaks:   "§2.12 page.count of the enrollment list is the total number of records",
			Catchers: []string{"the enrollment list honours its limit and counts every enrollment"},
			wrap:     rewriteResponse(countPageSize, "subscription_enrollments.list"),
		},
		{
			Name: "file-list-ignores-offset", Capability: "lists", Expect: ExpectFail, Tags: "@files",
			Breaks:   "§4.10 the file list honours offset",
			Catchers: []string{"the file list pages by offset and limit and counts every file"},
			wrap:     dropQuery("offset", "files.list"),
		},
		{
			Name: "dispute-list-ignores-limit", Capability: "lists", Expect: ExpectFail, Tags: "@disputes",
			Breaks:   "§4.10 the dispute list honours limit",
			Catchers: []string{"the dispute list pages by offset and limit and counts every dispute"},
			wrap:     dropQuery("limit", "disputes.list"),
		},
		{
			Name: "evidence-list-count-is-page-size", Capability: "lists", Expect: ExpectFail, Tags: "@disputes",
			Breaks:   "§2.12 page.count of a dispute's evidence list is the total number of records",
			Catchers: []string{"the evidence list of a dispute pages by offset and limit and counts exactly"},
			wrap:     rewriteResponse(countPageSize, "dispute_evidence.list"),
		},
		{
			Name: "evidence-list-embedded-null-when-empty", Capability: "lists", Expect: ExpectFail, Tags: "@disputes",
			Breaks: "§2.12 an empty list still carries _embedded.evidences as an array",
			Catchers: []string{
				"a new dispute's evidence list is empty and still carries its page",
				"the evidence list of a dispute pages by offset and limit and counts exactly",
			},
			wrap: rewriteResponse(func(x *faultExchange) bool {
				emb := objectAt(x.out, "_embedded")
				if items, ok := emb["evidences"].([]any); !ok || len(items) > 0 {
					return false
				}
				emb["evidences"] = nil
				return true
			}, "dispute_evidence.list"),
		},
		{
			Name: "limit-over-100-accepted", Capability: "lists", Expect: ExpectWarn, Tags: "@lists",
			Breaks:   "the kit's lists: limit above 100 is 422 INVALID_FIELD (assumed)",
			Catchers: []string{"a limit over the maximum is refused or clamped as declared"},
			wrap: rewriteQuery(func(q url.Values) bool {
				if n, err := strconv.Atoi(q.Get("limit")); err != nil || n <= 100 {
					return false
				}
				q.Set("limit", "100")
				return true
			}),
		},
	}
}

// listRoutes are the ids of the list operations of the operations table.
func listRoutes() []string {
	return []string{
		"subscription_enrollments.list_by_schedule",
		"subscription_enrollments.list", "disputes.list", "dispute_evidence.list", "dispute_adjustment_transfers.list",
		"balance_transfers.list", "files.list", "files.external_links.list", "webhooks.list",
	}
}

// rewriteQuery returns a fault editing the query of list requests.
func rewriteQuery(edit func(url.Values) bool, opIDs ...string) func(http.Handler, faultDeps) http.Handler {
	if len(opIDs) == 0 {
		opIDs = listRoutes()
	}
	return rewriteHeaders(func(r *http.Request, _ faultDeps) {
		q := r.URL.Query()
		if edit(q) {
			r.URL.RawQuery = q.Encode()
		}
	}, opIDs...)
}

// setIfAbsent sets key in q when it has no value.
func setIfAbsent(q url.Values, key, value string) bool {
	if q.Get(key) != "" {
		return false
	}
	q.Set(key, value)
	return true
}

// dropQuery removes a query parameter from the requests of the given list
// routes, so the list answers as if it had not been sent.
func dropQuery(param string, opIDs ...string) func(http.Handler, faultDeps) http.Handler {
	return rewriteQuery(func(q url.Values) bool {
		if !q.Has(param) {
			return false
		}
		q.Del(param)
		return true
	}, opIDs...)
}

// countPageSize sets a list's page.count to the number of items on the page
// instead of the total.
func countPageSize(x *faultExchange) bool {
	page := objectAt(x.out, "page")
	if page == nil {
		return false
	}
	page["count"] = len(listItems(x.out))
	return true
}
