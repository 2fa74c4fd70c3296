package faults

import (
	"net/http"
	"strings"
	"time"

	"github.com/conform-kit/conform/validate"
)

// Faults of input rules (the card number and expiration year of §4.3, the
// order_date lower bounds of §8) and of response details the kit decides
// (media type, timestamps on create).

// cardNumberRefused names the scenario refusing a card number of that kind.
func cardNumberRefused(kind string) string { return "a card number of " + kind + " is refused" }

// inputRuleFaults break the card number, expiration year and order_date rules.
func inputRuleFaults() []Fault {
	return []Fault{
		{
			Name: "card-number-non-digits-accepted", Capability: "cards", Expect: ExpectFail, Tags: "@payment_instruments",
			Breaks: "§4.3 number is digits only",
			Catchers: []string{
				cardNumberRefused("letters"),
				cardNumberRefused("spaces"),
			},
			wrap: rewriteCardNumber(func(n string) (string, bool) {
				if strings.Trim(n, "0123456789") == "" {
					return "", false
				}
				digits := strings.Map(func(c rune) rune {
					switch {
					case c >= '0' && c <= '9':
						return c
					case c == ' ' || c == '-':
						return -1
					}
					return '0'
				}, n)
				return luhnFixed(digits), true
			}),
		},
		{
			Name: "card-number-11-digits-accepted", Capability: "cards", Expect: ExpectWarn, Tags: "@payment_instruments",
			Breaks:   "the kit's cards: the number is at least 12 digits (assumed)",
			Catchers: []string{cardNumberRefused("11 digits")},
			wrap: rewriteCardNumber(func(n string) (string, bool) {
				return "0" + n, len(n) == 11 // a leading zero keeps the Luhn check
			}),
		},
		{
			Name: "card-number-20-digits-accepted", Capability: "cards", Expect: ExpectWarn, Tags: "@payment_instruments",
			Breaks:   "the kit's cards: the number is at most 19 digits (assumed)",
			Catchers: []string{cardNumberRefused("20 digits")},
			wrap: rewriteCardNumber(func(n string) (string, bool) {
				if len(n) != 20 || strings.Trim(n, "0123456789") != "" {
					return "", false
				}
				return luhnFixed(n[:19]), true
			}),
		},
		{
			Name: "card-number-19-digits-refused", Capability: "cards", Expect: ExpectWarn, Tags: "@payment_instruments",
			Breaks:   "the kit's cards: a number of 19 digits is accepted (assumed)",
			Catchers: []string{"a card number of 19 digits is accepted"},
			wrap: rewriteCardNumber(func(n string) (string, bool) {
				return n + "0", len(n) == 19 // 20 digits: the handler refuses it
			}),
		},
		{
			Name: "card-luhn-not-checked", Capability: "cards", Expect: ExpectWarn, Tags: "@payment_instruments",
			Breaks: "the kit's cards: the number passes the Luhn check (assumed)",
			Catchers: []string{
				"a card number failing the Luhn check is refused",
				cardNumberRefused("a failing Luhn check"),
			},
			wrap: rewriteCardNumber(func(n string) (string, bool) {
				if len(n) < 12 || len(n) > 19 || strings.Trim(n, "0123456789") != "" || validate.LuhnValid(n) {
					return "", false
				}
				return luhnFixed(n), true
			}),
		},
		{
			Name: "expiration-year-2-digits-accepted", Capability: "cards", Expect: ExpectFail, Tags: "@payment_instruments",
			Breaks:   "§4.3 expiration_year is 4 digits",
			Catchers: []string{"a card's expiration year 2030 is accepted and 30 is refused"},
			wrap: rewriteRequest(func(x *faultExchange) bool {
				y, ok := numberOf(x.in["expiration_year"])
				if !ok || y < 0 || y > 99 {
					return false
				}
				x.in["expiration_year"] = 2000 + y
				return true
			}, "payment_instruments.create"),
		},
		{
			Name: "order-day-0-accepted-on-capture", Capability: "level3", Expect: ExpectFail, Tags: "@level3",
			Breaks:   "§8 order_date.day is 1 to 31 (capture)",
			Catchers: []string{"capture Level 3 data accepts a order_date.day of 1 and refuses 0"},
			wrap:     rewriteRequest(raiseOrderDate("day"), "authorizations.capture"),
		},
		{
			Name: "order-month-0-accepted-on-authorization", Capability: "level3", Expect: ExpectFail, Tags: "@level3",
			Breaks:   "§8 order_date.month is 1 to 12 (create authorization)",
			Catchers: []string{"authorization Level 3 data accepts a order_date.month of 1 and refuses 0"},
			wrap:     rewriteRequest(raiseOrderDate("month"), "authorizations.create"),
		},
	}
}

// responseDetailFaults break the kit's assumed response media type and create timestamps.
func responseDetailFaults() []Fault {
	return []Fault{
		{
			Name: "response-content-type-plain-json", Capability: "content", Expect: ExpectWarn, Tags: "@transfers",
			Breaks:   "the kit's content types: responses are application/hal+json (assumed)",
			Catchers: []string{scenarioSale, scenarioCardCreate},
			wrap:     plainJSONResponses,
		},
		{
			Name: "updated-at-differs-on-create", Capability: "transfers", Expect: ExpectWarn, Tags: "@transfers",
			Breaks:   "the kit's clock: created_at equals updated_at on create (assumed)",
			Catchers: []string{scenarioSale},
			wrap: rewriteResponse(func(x *faultExchange) bool {
				created, err := time.Parse(time.RFC3339Nano, stringAt(x.out, "created_at"))
				if !isSuccess(x.status) || err != nil || x.out["updated_at"] == nil {
					return false
				}
				x.out["updated_at"] = created.Add(time.Millisecond).Format(timeLayout)
				return true
			}, "transfers.create"),
		},
	}
}

// rewriteCardNumber lets edit replace the number of a card create body.
func rewriteCardNumber(edit func(number string) (string, bool)) func(http.Handler, faultDeps) http.Handler {
	return rewriteRequest(func(x *faultExchange) bool {
		n, ok := x.in["number"].(string)
		if !ok {
			return false
		}
		repl, changed := edit(n)
		if changed {
			x.in["number"] = repl
		}
		return changed
	}, "payment_instruments.create")
}

// luhnFixed replaces the last digit of digits, all decimal digits, by the
// one that passes the Luhn check (digits is returned as it is otherwise).
func luhnFixed(digits string) string {
	head := digits[:len(digits)-1]
	d, ok := validate.LuhnCheckDigit(head)
	if !ok {
		return digits
	}
	return head + string(d)
}

// raiseOrderDate returns an edit turning an order_date part of 0 into 1.
func raiseOrderDate(part string) func(x *faultExchange) bool {
	return func(x *faultExchange) bool {
		date := objectAt(x.in, "additional_purchase_data.order_date")
		if v, ok := numberOf(date[part]); !ok || v != 0 {
			return false
		}
		date[part] = 1
		return true
	}
}

// plainJSONResponses labels hal+json responses application/json.
func plainJSONResponses(next http.Handler, _ faultDeps) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := newFaultRecorder()
		next.ServeHTTP(rec, r)
		if strings.HasPrefix(rec.header.Get("Content-Type"), "application/hal+json") {
			rec.header.Set("Content-Type", "application/json")
		}
		rec.flush(w, rec.body.Bytes())
	})
}
