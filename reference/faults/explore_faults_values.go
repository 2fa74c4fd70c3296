package faults

import (
	"net/http"
	"strings"
)

// exploreValueFaults are faults in value classes a hand-written list of
// values does not reach and values drawn from the schemas' keywords do:
// quotes in free text, dates the calendar does not have, a list limit at
// zero. Each crashes (a bare 500) on a request a conformant server answers
// without one.
func exploreValueFaults() []Fault {
	return []Fault{
		{Name: "crash-on-apostrophe-in-item-description", Capability: "authorizations", Expect: ExpectFail, Tags: "@authorizations",
			Breaks: "safety: no 5xx for a valid body (a Level 3 item_description with an apostrophe, quoted into SQL)",
			wrap: crashWhen(func(in map[string]any) bool {
				items, _ := objectAt(in, "additional_purchase_data")["item_data"].([]any)
				for _, it := range items {
					m, _ := it.(map[string]any)
					if s, _ := m["item_description"].(string); strings.Contains(s, "'") {
						return true
					}
				}
				return false
			}, "authorizations.create", "transfers.create", "authorizations.capture")},
		{Name: "crash-on-impossible-order-date", Capability: "authorizations", Expect: ExpectFail, Tags: "@authorizations",
			Breaks: "safety: no 5xx for a valid body (an order_date of February 30 or 31, stored in a DATE column)",
			wrap: crashWhen(func(in map[string]any) bool {
				d := objectAt(in, "additional_purchase_data.order_date")
				day, ok1 := numberOf(d["day"])
				month, ok2 := numberOf(d["month"])
				return ok1 && ok2 && month == 2 && day > 29
			}, "authorizations.create", "transfers.create", "authorizations.capture")},
		{Name: "crash-on-list-limit-zero", Capability: "lists", Expect: ExpectFail, Tags: "@lists",
			Breaks: "safety: no 5xx for a request (a list limit of 0 divides the page count by zero)",
			wrap: func(next http.Handler, _ faultDeps) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if r.Method == http.MethodGet && r.URL.Query().Get("limit") == "0" {
						http.Error(w, "runtime error: integer divide by zero", http.StatusInternalServerError)
						return
					}
					next.ServeHTTP(w, r)
				})
			}},
	}
}
