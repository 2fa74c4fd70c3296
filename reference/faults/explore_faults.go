package faults

import (
	"context"
	"encoding/json"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/conform-kit/conform/validate"
)

// ExploreCatalog lists faults that live where the fixed scenarios do not
// look: regions of the input space (amounts near 2^24, 2^31, 2^53, card
// lengths other than 16, limits counted in bytes), crashes on unusual valid
// bodies, later pages of lists, refusals that leave a trace and state that
// does not change. conform explore must catch each; the suite may not (the
// test measuring both lives in steps/explore). They have no catchers of the
// suite, so they stay out of Catalog, which the suite must catch in full.
func ExploreCatalog() []Fault {
	const (
		fail = ExpectFail
		warn = ExpectWarn
	)
	return append([]Fault{
		{Name: "amount-int32-wrapped", Capability: "authorizations", Expect: fail, Tags: "@authorizations",
			Breaks: "§2.1/§2.2 amount reads back as sent (an amount over 2^31-1 wraps as an int32)",
			wrap: rewriteResponse(func(x *faultExchange) bool {
				a, ok := numberOf(x.out["amount"])
				if !ok || a <= math.MaxInt32 || !isSuccess(x.status) {
					return false
				}
				x.out["amount"] = json.Number(strconv.FormatInt(int64(int32(a)), 10))
				return true
			}, "authorizations.create", "transfers.create", "authorizations.get", "transfers.get")},
		{Name: "amount-float32-rounded", Capability: "transfers", Expect: fail, Tags: "@transfers",
			Breaks: "§2.1/§2.2 amount reads back as sent (an amount over 2^24 passes through a float32)",
			wrap: rewriteResponse(func(x *faultExchange) bool {
				a, ok := numberOf(x.out["amount"])
				if !ok || a <= 1<<24 || !isSuccess(x.status) || int64(float32(a)) == a {
					return false
				}
				x.out["amount"] = json.Number(strconv.FormatInt(int64(float32(a)), 10))
				return true
			}, "authorizations.create", "transfers.create")},
		{Name: "card-not-16-digits-refused", Capability: "cards", Expect: warn, Tags: "@payment_instruments",
			Breaks: "the kit's cards: 12 to 19 digits are accepted (assumed card_number_check); only 16 is",
			wrap: refuseWhen(func(in map[string]any) bool {
				n, _ := in["number"].(string)
				return len(n) >= 12 && len(n) <= 19 && len(n) != 16 && len(n) != 19
			}, "/number", "payment_instruments.create")},
		{Name: "card-line1-counted-in-bytes", Capability: "cards", Expect: fail, Tags: "@payment_instruments",
			Breaks: "§8 address.line1 max 35 characters, counted in bytes",
			wrap: refuseWhen(func(in map[string]any) bool {
				s, _ := objectAt(in, "address")["line1"].(string)
				return len(s) > 35 && utf8.RuneCountInString(s) <= 35
			}, "/address/line1", "payment_instruments.create")},
		{Name: "card-city-counted-in-bytes", Capability: "cards", Expect: fail, Tags: "@payment_instruments",
			Breaks: "§8 address.city max 20 characters, counted in bytes",
			wrap: refuseWhen(func(in map[string]any) bool {
				s, _ := objectAt(in, "address")["city"].(string)
				return len(s) > 20 && utf8.RuneCountInString(s) <= 20
			}, "/address/city", "payment_instruments.create")},
		{Name: "webhook-url-120-refused", Capability: "webhooks", Expect: fail, Tags: "@webhooks",
			Breaks: "§8 webhook url max 120 characters (refused at 120 by the declared route, which answered: §4.9 states the rule, only the route is assumed)",
			wrap: refuseWhen(func(in map[string]any) bool {
				s, _ := in["url"].(string)
				return len(s) == 120
			}, "/url", "webhooks.create", "webhooks.update")},
		{Name: "sale-fee-over-large-amount-accepted", Capability: "transfers", Expect: fail, Tags: "@transfers",
			Breaks: "§4.2/§7 fee <= amount (not checked above 2^31, a signed overflow)",
			wrap: rewriteRequest(func(x *faultExchange) bool {
				a, ok1 := numberOf(x.in["amount"])
				f, ok2 := numberOf(x.in["fee"])
				if !ok1 || !ok2 || a <= math.MaxInt32 || f <= a {
					return false
				}
				x.in["fee"] = json.Number(strconv.FormatInt(a, 10))
				return true
			}, "transfers.create")},
		{Name: "capture-over-amount-accepted-above-2-24", Capability: "authorizations", Expect: fail, Tags: "@authorizations",
			Breaks: "§4.1/§7 capture_amount <= amount (compared as float32 above 2^24)",
			wrap: rewriteRequest(func(x *faultExchange) bool {
				c, ok := numberOf(x.in["capture_amount"])
				if !ok {
					return false
				}
				_, auth := x.call(http.MethodGet, "/authorizations/"+x.params["id"], nil, nil)
				a, ok := numberOf(auth["amount"])
				if !ok || a <= 1<<24 || c <= a {
					return false
				}
				x.in["capture_amount"] = json.Number(strconv.FormatInt(a, 10))
				delete(x.in, "fee")
				return true
			}, "authorizations.capture")},
		{Name: "crash-on-multibyte-tags", Capability: "errors", Expect: fail, Tags: "@errors",
			Breaks: "safety: no 5xx for a valid body (tags with multi-byte characters)",
			wrap: crashWhen(func(in map[string]any) bool {
				tags, _ := in["tags"].(map[string]any)
				for _, v := range tags {
					if s, ok := v.(string); ok && utf8.RuneCountInString(s) != len(s) {
						return true
					}
				}
				return false
			}, "payment_instruments.create", "authorizations.create", "transfers.create", "subscription_enrollments.create", "webhooks.create")},
		{Name: "crash-on-null-line2", Capability: "cards", Expect: fail, Tags: "@payment_instruments",
			Breaks: "safety: no 5xx for a valid body (address.line2 null)",
			wrap: crashWhen(func(in map[string]any) bool {
				addr := objectAt(in, "address")
				v, ok := addr["line2"]
				return ok && v == nil
			}, "payment_instruments.create")},
		{Name: "crash-on-yearly-schedule", Capability: "subscriptions", Expect: fail, Tags: "@subscriptions",
			Breaks: "safety: no 5xx for a valid body (a PERIODIC_YEARLY schedule)",
			wrap:   crashWhen(func(in map[string]any) bool { return in["subscription_type"] == "PERIODIC_YEARLY" }, "subscription_schedules.create")},
		{Name: "later-pages-empty", Capability: "lists", Expect: fail, Tags: "@lists",
			Breaks: "§2.12 pages after the first hold the items page.count promises",
			wrap: rewriteResponse(func(x *faultExchange) bool {
				if x.r.URL.Query().Get("offset") == "" || x.r.URL.Query().Get("offset") == "0" {
					return false
				}
				emb, _ := x.out["_embedded"].(map[string]any)
				for k := range emb {
					emb[k] = []any{}
				}
				return len(emb) > 0
			}, "webhooks.list", "files.list", "balance_transfers.list")},
		{Name: "enrollment-offset-ignored", Capability: "lists", Expect: fail, Tags: "@lists",
			Breaks: "§2.12 offset skips items (every page repeats the first)",
			wrap: func(next http.Handler, _ faultDeps) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if matchAny(r, "subscription_enrollments.list", "dispute_evidence.list") {
						q := r.URL.Query()
						if q.Get("offset") != "" && q.Get("offset") != "0" {
							q.Set("offset", "0")
							r.URL.RawQuery = q.Encode()
						}
					}
					next.ServeHTTP(w, r)
				})
			}},
		{Name: "refused-webhook-still-created", Capability: "webhooks", Expect: fail, Tags: "@webhooks",
			Breaks: "safety: a refused request changes nothing (a webhook with a url over 120 is refused but made)",
			wrap: func(next http.Handler, _ faultDeps) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if _, ok := faultRoute(r, "webhooks.create"); ok {
						in := peekJSON(r)
						if u, _ := in["url"].(string); len(u) > 120 && strings.HasPrefix(u, "http") {
							in["url"] = u[:120]
							innerCall(next, r, http.MethodPost, "/webhooks", in, nil)
						}
					}
					next.ServeHTTP(w, r)
				})
			}},
		{Name: "refused-capture-still-captures", Capability: "authorizations", Expect: fail, Tags: "@authorizations",
			Breaks: "safety: a refused request changes nothing (a capture over the amount captures the amount, then is refused)",
			wrap: func(next http.Handler, _ faultDeps) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if params, ok := faultRoute(r, "authorizations.capture"); ok {
						in := peekJSON(r)
						c, ok1 := numberOf(in["capture_amount"])
						_, auth := innerCall(next, r, http.MethodGet, "/authorizations/"+params["id"], nil, nil)
						a, ok2 := numberOf(auth["amount"])
						if ok1 && ok2 && c > a && auth["transfer"] == nil {
							innerCall(next, r, http.MethodPut, "/authorizations/"+params["id"], map[string]any{"capture_amount": a}, nil)
						}
					}
					next.ServeHTTP(w, r)
				})
			}},
		{Name: "merchant-update-by-merchant-applied", Capability: "merchants", Expect: fail, Tags: "@merchants",
			Breaks: "safety: a refused request changes nothing (a merchant user's update is refused 403 but applied)",
			wrap: func(next http.Handler, d faultDeps) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if params, ok := faultRoute(r, "merchants.update"); ok {
						if user, _, _ := r.BasicAuth(); user == d.fx.Credentials.Merchant.Username {
							in := peekJSON(r)
							platform := d.fx.Credentials.Platform
							innerCall(next, r, http.MethodPut, "/merchants/"+params["id"], in, &platform)
						}
					}
					next.ServeHTTP(w, r)
				})
			}},
		{Name: "enrollment-rename-not-stored", Capability: "subscriptions", Expect: fail, Tags: "@subscriptions",
			Breaks: "§2.6 an enrollment update reads back (the answer shows the new nickname, a later read the old)",
			wrap: func(next http.Handler, d faultDeps) http.Handler {
				inner := rewriteResponse(func(x *faultExchange) bool {
					nick, ok := x.r.Context().Value(nicknameKey{}).(string)
					if !ok || !isSuccess(x.status) {
						return false
					}
					x.out["nickname"] = nick
					return true
				}, "subscription_enrollments.update")(next, d)
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if _, ok := faultRoute(r, "subscription_enrollments.update"); ok {
						in := peekJSON(r)
						if nick, ok := in["nickname"].(string); ok {
							delete(in, "nickname")
							replaceBody(r, in)
							r = r.WithContext(withNickname(r.Context(), nick))
						}
					}
					inner.ServeHTTP(w, r)
				})
			}},
		{Name: "last-four-wrong-for-long-cards", Capability: "cards", Expect: fail, Tags: "@payment_instruments",
			Breaks: "§2.3 last_four is the last four digits (cards over 16 digits show digits 13 to 16)",
			wrap: rewriteResponse(func(x *faultExchange) bool {
				n, _ := x.in["number"].(string)
				if len(n) <= 16 || !isSuccess(x.status) {
					return false
				}
				x.out["last_four"] = n[12:16]
				return n[12:16] != n[len(n)-4:]
			}, "payment_instruments.create")},
		{Name: "security-code-echoed-when-4-digits", Capability: "cards", Expect: fail, Tags: "@payment_instruments",
			Breaks: "§2.3 the security code is never returned (a 4-digit one is)",
			wrap: rewriteResponse(func(x *faultExchange) bool {
				c, _ := x.in["security_code"].(string)
				return len(c) == 4 && isSuccess(x.status) && x.copyInput("security_code")
			}, "payment_instruments.create")},
	}, slices.Concat(exploreValueFaults(), exploreJudgeFaults(), exploreQuestionFaults(), exploreListFaults(), explorePositionFaults())...)
}

// refuseWhen answers a request of the operations whose body matches with a
// 422 INVALID_FIELD naming pointer, as a server with a wrong rule would.
func refuseWhen(bad func(map[string]any) bool, pointer string, opIDs ...string) func(http.Handler, faultDeps) http.Handler {
	return answerWhen(bad, func(w http.ResponseWriter, r *http.Request) {
		validate.WriteEnvelope(w, r, http.StatusUnprocessableEntity, validate.ErrorItem{Code: "INVALID_FIELD", Message: "invalid " + pointer, Field: pointer})
	}, opIDs...)
}

// crashWhen answers a request of the operations whose body matches with a
// bare 500, as a server crashing on an unusual valid body would.
func crashWhen(crash func(map[string]any) bool, opIDs ...string) func(http.Handler, faultDeps) http.Handler {
	return answerWhen(crash, func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "internal error", http.StatusInternalServerError)
	}, opIDs...)
}

// answerWhen answers a request of the operations whose JSON body matches
// with answer instead of passing it to the server.
func answerWhen(matches func(map[string]any) bool, answer http.HandlerFunc, opIDs ...string) func(http.Handler, faultDeps) http.Handler {
	return func(next http.Handler, _ faultDeps) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if _, ok := match(r, opIDs); ok {
				if in := peekJSON(r); in != nil && matches(in) {
					answer(w, r)
					return
				}
			}
			next.ServeHTTP(w, r)
		})
	}
}

// nicknameKey carries the nickname a fault dropped from the request to the
// response it rewrites.
type nicknameKey struct{}

func withNickname(ctx context.Context, nick string) context.Context {
	return context.WithValue(ctx, nicknameKey{}, nick)
}
