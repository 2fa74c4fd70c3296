package faults

import (
	"net/http"
	"strings"
)

// subscriptionFaults break spec §3.2, §4.5 and §7 (subscriptions).
func subscriptionFaults() []Fault {
	return []Fault{
		{
			Name: "subscription-amount-updated-twice", Capability: "subscriptions", Expect: ExpectFail, Tags: "@subscriptions",
			Breaks:   "§3.2/§7 an amount produced by an update cannot be updated again",
			Catchers: []string{"an amount produced by an update cannot be updated again"},
			wrap:     amountUpdatedTwice,
		},
		{
			Name: "subscription-update-keeps-id", Capability: "subscriptions", Expect: ExpectFail, Tags: "@subscriptions",
			Breaks:   "§3.2 an update creates a new amount with a new id",
			Catchers: []string{"updating a subscription amount returns a new amount with a new id"},
			wrap: rewriteResponse(func(x *faultExchange) bool {
				if !isSuccess(x.status) {
					return false
				}
				x.out["id"] = x.params["id"]
				return true
			}, "subscription_amounts.update"),
		},
		{
			Name: "enrollment-fetchable-after-delete", Capability: "subscriptions", Expect: ExpectFail, Tags: "@subscriptions",
			Breaks:   "§4.5 DELETE removes an enrollment (then it is not found)",
			Catchers: []string{"a deleted enrollment is no longer found"},
			wrap: func(next http.Handler, _ faultDeps) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if params, ok := faultRoute(r, "subscription_enrollments.delete"); ok {
						if status, _ := innerCall(next, r, http.MethodGet, "/subscription/subscription_enrollments/"+params["id"], nil, nil); status == http.StatusOK {
							w.WriteHeader(http.StatusNoContent)
							return
						}
					}
					next.ServeHTTP(w, r)
				})
			},
		},
		{
			Name: "subscription-update-label-is-nickname", Capability: "subscriptions", Expect: ExpectFail, Tags: "@subscriptions",
			Breaks:   "§2.5/§4.5 fee_amount_data.label is the label sent",
			Catchers: []string{"the new subscription amount keeps the schedule and the fields sent"},
			wrap: rewriteResponse(func(x *faultExchange) bool {
				fee := objectAt(x.out, "fee_amount_data")
				if !isSuccess(x.status) || fee == nil || x.out["nickname"] == nil {
					return false
				}
				fee["label"] = x.out["nickname"]
				return true
			}, "subscription_amounts.update"),
		},
		{
			Name: "enrollment-delete-returns-body", Capability: "subscriptions", Expect: ExpectFail, Tags: "@subscriptions",
			Breaks:   "§4.5 DELETE of an enrollment has no body (no content)",
			Catchers: []string{"a deleted enrollment is no longer found"},
			wrap: func(next http.Handler, _ faultDeps) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					params, ok := faultRoute(r, "subscription_enrollments.delete")
					if !ok {
						next.ServeHTTP(w, r)
						return
					}
					_, doc := innerCall(next, r, http.MethodGet, "/subscription/subscription_enrollments/"+params["id"], nil, nil)
					rec := newFaultRecorder()
					next.ServeHTTP(rec, r)
					if rec.status == http.StatusNoContent && doc != nil {
						writeFaultJSON(w, http.StatusOK, doc)
						return
					}
					rec.flush(w, rec.body.Bytes())
				})
			},
		},
		{
			Name: "enrollment-id-prefix-wrong", Capability: "subscriptions", Expect: ExpectFail, Tags: "@subscriptions",
			Breaks:   "§2 Subscription Enrollment ids start with SUBENROLLMENT_",
			Catchers: []string{"a merchant is enrolled into a schedule"},
			wrap:     idPrefixSwap("SUBENROLLMENT_", "SUBENROL_"),
		},
	}
}

// disputeFaults break spec §2.2, §2.7 and §2.8 (disputes, evidence, adjustments).
func disputeFaults() []Fault {
	return []Fault{
		{
			Name: "evidence-loses-file-name", Capability: "disputes", Expect: ExpectFail, Tags: "@disputes",
			Breaks:   "§2.8 evidence tags carry file-name",
			Catchers: []string{"evidence is uploaded to a dispute and keeps the file's name"},
			wrap: rewriteResponse(func(x *faultExchange) bool {
				t := objectAt(x.out, "tags")
				if _, ok := t["file-name"]; !ok {
					return false
				}
				delete(t, "file-name")
				return true
			}, "dispute_evidence.create", "dispute_evidence.get"),
		},
		{
			Name: "adjustment-wrong-type", Capability: "disputes", Expect: ExpectFail, Tags: "@disputes",
			Breaks:   "§2.2 adjustment transfers have type DISPUTE",
			Catchers: []string{"the adjustment transfers of a dispute are dispute transfers"},
			wrap: rewriteResponse(func(x *faultExchange) bool {
				changed := false
				for _, it := range listItems(x.out) {
					if m, ok := it.(map[string]any); ok && m["type"] == "DISPUTE" {
						m["type"], changed = "DEBIT", true
					}
				}
				return changed
			}, "dispute_adjustment_transfers.list"),
		},
		{
			Name: "adjustment-carries-self-link", Capability: "disputes", Expect: ExpectFail, Tags: "@disputes",
			Breaks:   "§2.2 adjustment transfers carry disputed_transfer instead of self",
			Catchers: []string{"the adjustment transfers of a dispute are dispute transfers"},
			wrap: rewriteResponse(func(x *faultExchange) bool {
				changed := false
				for _, it := range listItems(x.out) {
					links := objectAt(it, "_links")
					if links != nil && links["self"] == nil && links["disputed_transfer"] != nil {
						links["self"], changed = links["disputed_transfer"], true
					}
				}
				return changed
			}, "dispute_adjustment_transfers.list"),
		},
		{
			Name: "dispute-transfer-wrong", Capability: "disputes", Expect: ExpectFail, Tags: "@disputes",
			Breaks:   "§2.7 a dispute's transfer is the disputed transfer's id",
			Catchers: []string{"a dispute is fetched with its state, reason and details"},
			wrap: rewriteResponse(func(x *faultExchange) bool {
				tr, _ := x.out["transfer"].(string)
				if !isSuccess(x.status) || len(tr) < 3 {
					return false
				}
				x.out["transfer"] = tr[:2] + strings.Repeat("0", len(tr)-2)
				return true
			}, "disputes.get"),
		},
		{
			Name: "evidence-list-empty", Capability: "disputes", Expect: ExpectFail, Tags: "@disputes",
			Breaks:   "§4.6 the evidence list holds the uploaded evidence",
			Catchers: []string{"uploaded evidence is listed and fetched"},
			wrap: rewriteResponse(func(x *faultExchange) bool {
				emb := objectAt(x.out, "_embedded")
				if !isSuccess(x.status) || emb == nil {
					return false
				}
				for k := range emb {
					emb[k] = []any{}
				}
				if page := objectAt(x.out, "page"); page != nil {
					page["count"] = 0
				}
				return true
			}, "dispute_evidence.list"),
		},
		{
			Name: "dispute-not-found-answered-400", Capability: "disputes", Expect: ExpectWarn, Tags: "@disputes",
			Breaks:   "the kit's errors: an unknown id is 404 NOT_FOUND (assumed)",
			Catchers: []string{"fetching a dispute that does not exist is refused as not found"},
			wrap: rewriteResponse(func(x *faultExchange) bool {
				if x.status != http.StatusNotFound {
					return false
				}
				x.status = http.StatusBadRequest
				return true
			}, "disputes.get"),
		},
	}
}

// balanceTransferFaults break spec §2.9.
func balanceTransferFaults() []Fault {
	const fetched = "a balance transfer is fetched by its id"
	return []Fault{
		{
			Name: "balance-transfer-self-link-missing", Capability: "balance_transfers", Expect: ExpectFail, Tags: "@balance_transfers",
			Breaks:   "§2.9 a balance transfer carries _links.self",
			Catchers: []string{fetched},
			wrap: rewriteResponse(func(x *faultExchange) bool {
				links := objectAt(x.out, "_links")
				if links["self"] == nil {
					return false
				}
				delete(links, "self")
				return true
			}, "balance_transfers.get"),
		},
		{
			Name: "balance-transfer-source-renamed", Capability: "balance_transfers", Expect: ExpectWarn, Tags: "@balance_transfers",
			Breaks:   "§2.9 source OPERATING_ACCOUNT (an observed value: assumed)",
			Catchers: []string{fetched},
			wrap:     rewriteResponse(setFieldOnSuccess("source", "OPERATING"), "balance_transfers.get"),
		},
	}
}

// amountUpdatedTwice answers a refused subscription-amount update with a new
// amount created through the schedule, as if the update had been allowed.
func amountUpdatedTwice(next http.Handler, _ faultDeps) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		params, ok := faultRoute(r, "subscription_amounts.update")
		if !ok {
			next.ServeHTTP(w, r)
			return
		}
		in := peekJSON(r)
		rec := newFaultRecorder()
		next.ServeHTTP(rec, r)
		if rec.status == http.StatusUnprocessableEntity && strings.Contains(rec.body.String(), `"UNPROCESSABLE_ENTITY"`) {
			path := "/subscription/subscription_schedules/" + params["schedule_id"] + "/subscription_amounts"
			if status, doc := innerCall(next, r, http.MethodPost, path, in, nil); isSuccess(status) {
				writeFaultJSON(w, http.StatusOK, doc)
				return
			}
		}
		rec.flush(w, rec.body.Bytes())
	})
}
