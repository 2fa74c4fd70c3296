package faults

import "net/http"

// exploreJudgeFaults are faults behind an assumed difference: a target
// that chose otherwise where the spec is silent and also breaks a rule
// further on. An explorer that ended a sequence at the first assumed
// difference (a create answered 200) never reached the rule.
func exploreJudgeFaults() []Fault {
	return []Fault{
		{Name: "create-200-card-name-lost-on-fetch", Capability: "cards", Expect: ExpectFail, Tags: "@payment_instruments",
			Breaks: "§2.3 a card fetched shows the name it was created with (a target answering its creates 200, an assumed choice, drops the name on a fetch)",
			wrap: func(next http.Handler, d faultDeps) http.Handler {
				created := rewriteResponse(func(x *faultExchange) bool {
					if x.status != http.StatusCreated {
						return false
					}
					x.status = http.StatusOK
					return true
				}, "payment_instruments.create", "authorizations.create", "transfers.create", "webhooks.create")
				fetched := rewriteResponse(func(x *faultExchange) bool {
					if _, ok := x.out["name"]; !ok || !isSuccess(x.status) {
						return false
					}
					x.out["name"] = ""
					return true
				}, "payment_instruments.get")
				return created(fetched(next, d), d)
			}},
	}
}
