package faults

import (
	"net/http"
	"strings"
	"time"
)

// Names of the scenarios that catch the payment faults.
const (
	scenarioCardCreate = "a card is created without echoing its number or security code"
	scenarioCardFetch  = "a card fetched by id never shows its number or security code"
	scenarioAuthCreate = "an authorization is created succeeded and not yet captured"
	scenarioCapture    = "a capture sets the state, the transfer and the transfer link"
	scenarioSale       = "a sale is returned pending as a debit of the card"
)

// cardFaults break spec §2.3 and §8 (card address limits).
func cardFaults() []Fault {
	return []Fault{
		{
			Name: "card-number-echoed", Capability: "cards", Expect: ExpectFail, Tags: "@payment_instruments",
			Breaks:   "§2.3 the full card number is not returned",
			Catchers: []string{scenarioCardCreate},
			wrap: rewriteResponse(func(x *faultExchange) bool {
				return x.copyInput("number") && isSuccess(x.status)
			}, "payment_instruments.create"),
		},
		{
			Name: "security-code-echoed", Capability: "cards", Expect: ExpectFail, Tags: "@payment_instruments",
			Breaks:   "§2.3 the security code is not returned",
			Catchers: []string{scenarioCardCreate},
			wrap: rewriteResponse(func(x *faultExchange) bool {
				return x.copyInput("security_code") && isSuccess(x.status)
			}, "payment_instruments.create"),
		},
		{
			Name: "bin-wrong", Capability: "cards", Expect: ExpectFail, Tags: "@payment_instruments",
			Breaks:   "§2.3 bin is the first six digits of the number",
			Catchers: []string{scenarioCardCreate, scenarioCardFetch},
			wrap:     rewriteResponse(setField("bin", "000000"), "payment_instruments.create", "payment_instruments.get"),
		},
		{
			Name: "last-four-wrong", Capability: "cards", Expect: ExpectFail, Tags: "@payment_instruments",
			Breaks:   "§2.3 last_four is the last four digits of the number",
			Catchers: []string{scenarioCardCreate, scenarioCardFetch},
			wrap:     rewriteResponse(setField("last_four", "0000"), "payment_instruments.create", "payment_instruments.get"),
		},
		{
			Name: "card-self-link-missing", Capability: "cards", Expect: ExpectFail, Tags: "@payment_instruments",
			Breaks:   "§1/§2.3 resources carry _links.self",
			Catchers: []string{scenarioCardCreate},
			wrap: rewriteResponse(func(x *faultExchange) bool {
				links := objectAt(x.out, "_links")
				if links == nil || links["self"] == nil {
					return false
				}
				delete(links, "self")
				return true
			}, "payment_instruments.create", "payment_instruments.get"),
		},
		{
			Name: "card-line1-36-accepted", Capability: "cards", Expect: ExpectFail, Tags: "@payment_instruments",
			Breaks:   "§8 card address.line1 max 35 characters",
			Catchers: []string{"a card's address.line1 accepts 35 characters and refuses 36"},
			wrap:     rewriteRequest(shorten("address.line1", 35), "payment_instruments.create"),
		},
		{
			Name: "card-city-21-accepted", Capability: "cards", Expect: ExpectFail, Tags: "@payment_instruments",
			Breaks:   "§8 card address.city max 20 characters",
			Catchers: []string{"a card's address.city accepts 20 characters and refuses 21"},
			wrap:     rewriteRequest(shorten("address.city", 20), "payment_instruments.create"),
		},
		{
			Name: "security-code-5-digits-accepted", Capability: "cards", Expect: ExpectFail, Tags: "@payment_instruments",
			Breaks:   "§4.3 security_code is 3-4 digits",
			Catchers: []string{"a card's security code 1234 is accepted and 12345 is refused"},
			wrap:     rewriteRequest(shorten("security_code", 4), "payment_instruments.create"),
		},
		{
			Name: "fingerprint-unstable", Capability: "cards", Expect: ExpectWarn, Tags: "@payment_instruments",
			Breaks:   "the kit's cards: fingerprint stable per card number (assumed)",
			Catchers: []string{"the same card number keeps the same fingerprint"},
			wrap: rewriteResponse(func(x *faultExchange) bool {
				id, _ := x.out["id"].(string)
				if _, ok := x.out["fingerprint"]; !ok || id == "" {
					return false
				}
				x.out["fingerprint"] = "FP" + id
				return true
			}, "payment_instruments.create", "payment_instruments.get"),
		},
		{
			Name: "card-brand-unknown", Capability: "cards", Expect: ExpectWarn, Tags: "@payment_instruments",
			Breaks:   "the kit's cards: brand derived from the BIN (assumed)",
			Catchers: []string{scenarioCardCreate},
			wrap:     rewriteResponse(setField("brand", "UNKNOWN"), "payment_instruments.create"),
		},
	}
}

// authorizationFaults break spec §3.3, §4.1 and §7 (captures).
func authorizationFaults() []Fault {
	return []Fault{
		{
			Name: "capture-over-amount-accepted", Capability: "authorizations", Expect: ExpectFail, Tags: "@authorizations",
			Breaks:   "§4.1/§7 capture_amount <= the authorization amount",
			Catchers: []string{"a capture over the authorized amount is refused and changes nothing"},
			wrap:     captureClamp("capture_amount"),
		},
		{
			Name: "capture-fee-over-amount-accepted", Capability: "authorizations", Expect: ExpectFail, Tags: "@authorizations",
			Breaks:   "§4.1/§7 fee <= the captured amount",
			Catchers: []string{"a capture whose fee exceeds the authorized amount is refused and changes nothing"},
			wrap:     captureClamp("fee"),
		},
		{
			Name: "capture-without-amount-accepted", Capability: "authorizations", Expect: ExpectFail, Tags: "@authorizations",
			Breaks:   "§4.1 capture_amount is required on a capture",
			Catchers: []string{"a capture without a capture amount is refused and changes nothing"},
			wrap: rewriteRequest(func(x *faultExchange) bool {
				if x.in["capture_amount"] != nil {
					return false
				}
				_, auth := x.call(http.MethodGet, "/authorizations/"+x.params["id"], nil, nil)
				if auth["amount"] == nil {
					return false
				}
				x.in["capture_amount"] = auth["amount"]
				return true
			}, "authorizations.capture"),
		},
		{
			Name: "capture-transfer-link-to-authorization", Capability: "authorizations", Expect: ExpectFail, Tags: "@authorizations",
			Breaks:   "§2.1 _links.transfer leads to the capture's Transfer",
			Catchers: []string{scenarioCapture},
			wrap: rewriteResponse(func(x *faultExchange) bool {
				transfer, self := objectAt(x.out, "_links.transfer"), objectAt(x.out, "_links.self")
				if !isSuccess(x.status) || transfer == nil || self == nil {
					return false
				}
				transfer["href"] = self["href"]
				return true
			}, "authorizations.capture"),
		},
		{
			Name: "authorization-expiry-not-7-days", Capability: "authorizations", Expect: ExpectWarn, Tags: "@authorizations",
			Breaks:   "the kit's captures: authorizations expire 7 days after creation (assumed)",
			Catchers: []string{scenarioAuthCreate},
			wrap: rewriteResponse(func(x *faultExchange) bool {
				created, err := time.Parse(time.RFC3339Nano, stringAt(x.out, "created_at"))
				if !isSuccess(x.status) || err != nil || x.out["expires_at"] == nil {
					return false
				}
				x.out["expires_at"] = created.Add(24 * time.Hour).Format(timeLayout)
				return true
			}, "authorizations.create", "authorizations.capture", "authorizations.get"),
		},
		{
			Name: "second-capture-accepted", Capability: "authorizations", Expect: ExpectFail, Tags: "@authorizations",
			Breaks:   "the kit's captures: an authorization is captured once (refusal normative in the suite)",
			Catchers: []string{"captures never total more than the authorized amount"},
			wrap:     secondCaptureAccepted,
		},
		{
			Name: "capture-does-not-set-transfer", Capability: "authorizations", Expect: ExpectFail, Tags: "@authorizations",
			Breaks:   "§3.3/§4.1 a capture sets transfer and _links.transfer",
			Catchers: []string{scenarioCapture},
			wrap: rewriteResponse(func(x *faultExchange) bool {
				if !isSuccess(x.status) || x.out["transfer"] == nil {
					return false
				}
				x.out["transfer"] = nil
				delete(objectAt(x.out, "_links"), "transfer")
				return true
			}, "authorizations.capture"),
		},
		{
			Name: "capture-state-pending", Capability: "authorizations", Expect: ExpectFail, Tags: "@authorizations",
			Breaks:   "§3.3 a capture returns the authorization with state SUCCEEDED",
			Catchers: []string{scenarioCapture},
			wrap:     rewriteResponse(setFieldOnSuccess("state", "PENDING"), "authorizations.capture"),
		},
		{
			Name: "authorization-id-prefix-wrong", Capability: "authorizations", Expect: ExpectFail, Tags: "@authorizations",
			Breaks:   "§2 Authorization ids start with AU",
			Catchers: []string{scenarioAuthCreate},
			wrap:     idPrefixSwap("AU", "AZ"),
		},
		{
			Name: "timestamp-without-z", Capability: "authorizations", Expect: ExpectFail, Tags: "@authorizations",
			Breaks:   "§2 timestamps are UTC with a Z suffix",
			Catchers: []string{scenarioAuthCreate},
			wrap: rewriteResponse(editTimestamps(func(ts string) string {
				return strings.TrimSuffix(ts, "Z") + "+00:00"
			}), "authorizations.create", "authorizations.capture", "authorizations.get"),
		},
	}
}

// saleFaults break spec §3.3, §4.2 and §7 (sales), and the kit's assumed sandbox and statuses.
func saleFaults() []Fault {
	return []Fault{
		{
			Name: "sale-returned-succeeded", Capability: "transfers", Expect: ExpectFail, Tags: "@transfers",
			Breaks:   "§3.3 a sale created through the API is returned PENDING",
			Catchers: []string{scenarioSale},
			wrap:     rewriteResponse(setFieldOnSuccess("state", "SUCCEEDED"), "transfers.create"),
		},
		{
			Name: "sale-self-link-to-collection", Capability: "transfers", Expect: ExpectFail, Tags: "@transfers",
			Breaks:   "§1/§2.2 _links.self leads to the Transfer itself",
			Catchers: []string{scenarioSale},
			wrap: rewriteResponse(func(x *faultExchange) bool {
				self := objectAt(x.out, "_links.self")
				href := stringAt(self, "href")
				i := strings.LastIndexByte(href, '/')
				if !isSuccess(x.status) || i < 0 {
					return false
				}
				self["href"] = href[:i]
				return true
			}, "transfers.create", "transfers.get"),
		},
		{
			Name: "sale-fee-over-amount-accepted", Capability: "transfers", Expect: ExpectFail, Tags: "@transfers",
			Breaks:   "§4.2/§7 fee <= amount",
			Catchers: []string{"a sale whose fee exceeds its amount is refused"},
			wrap: rewriteRequest(func(x *faultExchange) bool {
				amount, ok1 := numberOf(x.in["amount"])
				fee, ok2 := numberOf(x.in["fee"])
				if !ok1 || !ok2 || fee <= amount {
					return false
				}
				x.in["fee"] = amount
				return true
			}, "transfers.create"),
		},
		{
			Name: "timestamp-without-fraction", Capability: "transfers", Expect: ExpectFail, Tags: "@transfers",
			Breaks:   "§2 timestamps carry fractional seconds",
			Catchers: []string{scenarioSale},
			wrap: rewriteResponse(editTimestamps(func(ts string) string {
				if i := strings.IndexByte(ts, '.'); i > 0 {
					return ts[:i] + "Z"
				}
				return ts
			}), "transfers.create", "transfers.get"),
		},
		{
			Name: "sale-subtype-not-api", Capability: "transfers", Expect: ExpectFail, Tags: "@transfers",
			Breaks:   "§2.2 subtype API on sales",
			Catchers: []string{scenarioSale},
			wrap:     rewriteResponse(setFieldOnSuccess("subtype", "MERCHANT_CREDIT"), "transfers.create"),
		},
		{
			Name: "sale-created-200", Capability: "transfers", Expect: ExpectWarn, Tags: "@transfers",
			Breaks:   "the kit's statuses: 201 for POST /transfers (assumed)",
			Catchers: []string{scenarioSale},
			wrap: rewriteResponse(func(x *faultExchange) bool {
				if x.status != http.StatusCreated {
					return false
				}
				x.status = http.StatusOK
				return true
			}, "transfers.create"),
		},
		{
			Name: "sale-decline-ignored", Capability: "transfers", Expect: ExpectWarn, Tags: "@transfers",
			Breaks:   "the kit's sandbox: amount 102 is declined (assumed)",
			Catchers: []string{"a sale of the sandbox's declined amount is declined"},
			wrap: rewriteRequest(func(x *faultExchange) bool {
				if a, ok := numberOf(x.in["amount"]); !ok || a != 102 {
					return false
				}
				x.in["amount"] = 103
				return true
			}, "transfers.create"),
		},
	}
}

// setField returns an edit that sets key to value on JSON success responses.
func setField(key string, value any) func(x *faultExchange) bool {
	return func(x *faultExchange) bool {
		if _, ok := x.out[key]; !ok {
			return false
		}
		x.out[key] = value
		return true
	}
}

// setFieldOnSuccess is setField limited to 2xx responses.
func setFieldOnSuccess(key string, value any) func(x *faultExchange) bool {
	set := setField(key, value)
	return func(x *faultExchange) bool { return isSuccess(x.status) && set(x) }
}

// shorten returns a request edit accepting a value one over max at path.
func shorten(path string, max int) func(*faultExchange) bool {
	return func(x *faultExchange) bool {
		return shortenString(x.in, path, max)
	}
}

// editTimestamps rewrites the created_at and updated_at of a JSON response.
func editTimestamps(edit func(string) string) func(x *faultExchange) bool {
	return func(x *faultExchange) bool {
		changed := false
		for _, k := range []string{"created_at", "updated_at"} {
			if ts, ok := x.out[k].(string); ok {
				x.out[k], changed = edit(ts), true
			}
		}
		return changed
	}
}

// captureClamp lowers a capture's field (capture_amount or fee) to the bound
// it must not exceed, so an over-limit capture succeeds.
func captureClamp(field string) func(http.Handler, faultDeps) http.Handler {
	return rewriteRequest(func(x *faultExchange) bool {
		value, ok := numberOf(x.in[field])
		if !ok {
			return false
		}
		bound, ok := numberOf(x.in["capture_amount"])
		if field == "capture_amount" {
			_, auth := x.call(http.MethodGet, "/authorizations/"+x.params["id"], nil, nil)
			bound, ok = numberOf(auth["amount"])
		}
		if !ok || value <= bound {
			return false
		}
		x.in[field] = bound
		return true
	}, "authorizations.capture")
}

// secondCaptureAccepted answers a refused capture of an already captured
// authorization with the authorization, as if the capture succeeded.
func secondCaptureAccepted(next http.Handler, _ faultDeps) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		params, ok := faultRoute(r, "authorizations.capture")
		if !ok {
			next.ServeHTTP(w, r)
			return
		}
		rec := newFaultRecorder()
		next.ServeHTTP(rec, r)
		if rec.status == http.StatusUnprocessableEntity {
			status, auth := innerCall(next, r, http.MethodGet, "/authorizations/"+params["id"], nil, nil)
			if status == http.StatusOK && auth["transfer"] != nil {
				writeFaultJSON(w, http.StatusOK, auth)
				return
			}
		}
		rec.flush(w, rec.body.Bytes())
	})
}

// idPrefixSwap shows every id with prefix from as one with prefix to (in
// bodies and link hrefs) and maps such ids back in request paths, so only the
// prefix is wrong and the resources stay reachable by the ids shown.
func idPrefixSwap(from, to string) func(http.Handler, faultDeps) http.Handler {
	return func(next http.Handler, _ faultDeps) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if path := swapSegments(r.URL.Path, to, from); path != r.URL.Path {
				r.URL.Path, r.URL.RawPath = path, ""
			}
			rec := newFaultRecorder()
			next.ServeHTTP(rec, r)
			doc := decodeFaultJSON(rec.body.Bytes())
			if doc == nil {
				rec.flush(w, rec.body.Bytes())
				return
			}
			writeFaultJSONHeader(w, rec, swapIDs(doc, from, to).(map[string]any))
		})
	}
}

// isPrefixedID reports whether s is an id: prefix and 22 base62 characters.
func isPrefixedID(s, prefix string) bool {
	rest, ok := strings.CutPrefix(s, prefix)
	if !ok || len(rest) != idLength {
		return false
	}
	for _, c := range rest {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
			return false
		}
	}
	return true
}

// swapSegments replaces the prefix of every path segment that is an id with prefix from.
func swapSegments(path, from, to string) string {
	segs := strings.Split(path, "/")
	for i, seg := range segs {
		if isPrefixedID(seg, from) {
			segs[i] = to + strings.TrimPrefix(seg, from)
		}
	}
	return strings.Join(segs, "/")
}

// swapIDs rewrites ids with prefix from, alone or as path segments of hrefs, throughout v.
func swapIDs(v any, from, to string) any {
	switch t := v.(type) {
	case map[string]any:
		for k, x := range t {
			t[k] = swapIDs(x, from, to)
		}
	case []any:
		for i, x := range t {
			t[i] = swapIDs(x, from, to)
		}
	case string:
		return swapSegments(t, from, to)
	}
	return v
}
