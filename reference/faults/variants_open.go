package faults

import (
	"net/http"
)

// Variants that choose otherwise where the spec leaves a behaviour open:
// which methods fetch a file, which roles create balance transfers, the
// state a new authorization shows, what an enrollment update changes.

// openVariants make another choice where a section says "not shown".
func openVariants() []Variant {
	return []Variant{
		{
			Name: "authorizations-pending", Tags: "@authorizations",
			Choice:  "a new authorization is answered PENDING (SUCCEEDED once fetched or captured): §2.1 lists SUCCEEDED as observed, §3.3 shows no transitions",
			Profile: `{"resource_values": "unchecked"}`,
			build:   parts(wrapOnly(rewriteResponse(authorizationPending, "authorizations.create"))),
		},
		{
			Name: "enrollment-update-keeps-nickname", Tags: "@subscriptions",
			Choice:  "an enrollment update ignores nickname and keeps the old one (§4.5: the fields that may be updated: not shown)",
			Profile: `{"resource_values": "unchecked"}`,
			build:   parts(wrapOnly(rewriteRequest(keepNickname, "subscription_enrollments.update"))),
		},
		{
			Name: "merchants-create-balance-transfers", Tags: "@authentication,@balance_transfers",
			Choice:  "the merchant role may create balance transfers (§4.7 shows no create, §5 item 6 leaves the roles open)",
			Profile: `{"operation_roles": {"balance_transfers.create": ["ROLE_PLATFORM", "ROLE_MERCHANT"]}}`,
			build:   parts(merchantsCreateBalanceTransfers),
		},
	}
}

// merchantsCreateBalanceTransfers lets the merchant user create balance
// transfers of its application, as the platform user does.
func merchantsCreateBalanceTransfers() func(http.Handler, faultDeps) http.Handler {
	return func(next http.Handler, d faultDeps) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			user, pass, ok := r.BasicAuth()
			m := d.fx.Credentials.Merchant
			if ok && user == m.Username && pass == m.Password && matchAny(r, "balance_transfers.create") {
				p := d.fx.Credentials.Platform
				r.SetBasicAuth(p.Username, p.Password)
			}
			next.ServeHTTP(w, r)
		})
	}
}

// authorizationPending shows a new authorization PENDING.
func authorizationPending(x *faultExchange) bool {
	if !isSuccess(x.status) || x.out["state"] != "SUCCEEDED" {
		return false
	}
	x.out["state"] = "PENDING"
	return true
}

// keepNickname drops a string nickname from an enrollment update (one of
// another type is still refused, by the reference).
func keepNickname(x *faultExchange) bool {
	if _, ok := x.in["nickname"].(string); !ok {
		return false
	}
	delete(x.in, "nickname")
	return true
}
