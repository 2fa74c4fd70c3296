package explore

import (
	"fmt"
	"strconv"

	"github.com/conform-kit/conform/validate/judging"
)

// The actions of the resource graph. Each builds one request from the
// choice stream; what the contract says of it (refused or not, and on what
// basis) is written beside the value that decides it.

var (
	basisCard     = basisOf("2.3")
	basisAuth     = basisOf("2.1")
	basisSale     = basisOf("2.2")
	basisWebhook  = basisOf("2.10")
	basisEnroll   = basisOf("2.6")
	basisLimit    = basisOf("8")
	basisCardRule = basisOf("4.3")
)

func always(*generator) bool { return true }

func needs(kind string) func(*generator) bool {
	return func(g *generator) bool { return g.has(kind) }
}

// fetch reads one made role of kind at path/{role}.
func fetch(name, op, kind, path string) action {
	return action{name: name, op: op, ready: needs(kind), make: func(g *generator) Step {
		r := g.any(kind)
		return Step{Op: op, Method: "GET", Path: path + "/{" + r + "}", Of: r}
	}}
}

// walkAll walks a list at path, looking for the made roles of kind (none when kind is "").
func walkAll(name, op, path, kind, items string) action {
	return action{name: name, op: op, ready: always, make: func(g *generator) Step {
		return g.walkOf(op, path, kind, items)
	}}
}

// readBackOf reads one made role of kind back as the generator knows to.
func readBackOf(name, op, kind string) action {
	return action{name: name, op: op, ready: needs(kind), make: func(g *generator) Step {
		st, _ := g.readBack(g.any(kind))
		return st
	}}
}

func allActions() []action {
	return []action{
		{name: "create a card", op: "payment_instruments.create", ready: always, make: (*generator).createCard},
		fetch("fetch a card", "payment_instruments.get", "card", "/payment_instruments"),
		{name: "authorize", op: "authorizations.create", ready: needs("card"), make: (*generator).authorize},
		{name: "capture", op: "authorizations.capture", ready: needs("authorization"), make: (*generator).capture},
		fetch("fetch an authorization", "authorizations.get", "authorization", "/authorizations"),
		{name: "create a sale", op: "transfers.create", ready: needs("card"), make: (*generator).sale},
		fetch("fetch a sale", "transfers.get", "sale", "/transfers"),
		{name: "fetch a merchant", op: "merchants.get", ready: always, make: func(g *generator) Step {
			r := pick(g.c, "merchant", "plain merchant")
			return Step{Op: "merchants.get", Method: "GET", Path: "/merchants/{fixture:" + fixtureOfMerchant(r) + "}", Of: r}
		}},
		{name: "update a merchant", op: "merchants.update", ready: always, make: (*generator).updateMerchant},
		{name: "create a webhook", op: "webhooks.create", ready: always, make: (*generator).createWebhook},
		{name: "update a webhook", op: "webhooks.update", ready: needs("webhook"), make: (*generator).updateWebhook},
		fetch("fetch a webhook", "webhooks.get", "webhook", "/webhooks"),
		walkAll("walk the webhooks", "webhooks.list", "/webhooks", "webhook", "webhooks"),
		{name: "create a schedule", op: "subscription_schedules.create", ready: always, make: (*generator).createSchedule},
		fetch("fetch a schedule", "subscription_schedules.get", "schedule", "/subscription/subscription_schedules"),
		{name: "create a subscription amount", op: "subscription_amounts.create", ready: needs("schedule"), make: (*generator).createAmount},
		{name: "update a subscription amount", op: "subscription_amounts.update", ready: needs("amount"), make: (*generator).updateAmount},
		readBackOf("fetch a subscription amount", "subscription_amounts.get", "amount"),
		{name: "enroll", op: "subscription_enrollments.create", ready: func(g *generator) bool { return len(g.unenrolled()) > 0 }, make: (*generator).enroll},
		readBackOf("fetch an enrollment", "subscription_enrollments.get", "enrollment"),
		{name: "update an enrollment", op: "subscription_enrollments.update", ready: needs("enrollment"), make: (*generator).updateEnrollment},
		{name: "delete an enrollment", op: "subscription_enrollments.delete", ready: needs("enrollment"), make: func(g *generator) Step {
			r := g.any("enrollment")
			return Step{Op: "subscription_enrollments.delete", Method: "DELETE", Path: "/subscription/subscription_enrollments/{" + r + "}", Of: r}
		}},
		walkAll("walk the enrollments", "subscription_enrollments.list", "/subscription/subscription_enrollments", "enrollment", "subscription_enrollments"),
		{name: "walk a schedule's enrollments", op: "subscription_enrollments.list_by_schedule", ready: needs("schedule"), make: func(g *generator) Step {
			s := g.any("schedule")
			st := g.walkOf("subscription_enrollments.list_by_schedule", "/subscription/subscription_schedules/{"+s+"}/subscription_enrollments", "", "subscription_enrollments")
			st.Of = s
			return st
		}},
		walkAll("walk the disputes", "disputes.list", "/disputes", "", "disputes"),
		{name: "fetch the dispute", op: "disputes.get", ready: always, make: func(*generator) Step {
			return Step{Op: "disputes.get", Method: "GET", Path: "/disputes/{fixture:dispute}"}
		}},
		{name: "add evidence", op: "dispute_evidence.create", ready: always, make: (*generator).addEvidence},
		walkAll("walk the evidence", "dispute_evidence.list", "/disputes/{fixture:dispute}/evidence", "evidence", "evidences"),
		fetch("fetch evidence", "dispute_evidence.get", "evidence", "/disputes/{fixture:dispute}/evidence"),
		walkAll("walk the adjustment transfers", "dispute_adjustment_transfers.list", "/disputes/{fixture:dispute}/adjustment_transfers", "", "transfers"),
		{name: "create a balance transfer", op: "balance_transfers.create", ready: always, make: (*generator).createBalanceTransfer},
		{name: "fetch a balance transfer", op: "balance_transfers.get", ready: always, make: func(g *generator) Step {
			if g.has("balance transfer") && g.c.draw(2) == 0 {
				r := g.any("balance transfer")
				return Step{Op: "balance_transfers.get", Method: "GET", Path: "/balance_transfers/{" + r + "}", Of: r}
			}
			return Step{Op: "balance_transfers.get", Method: "GET", Path: "/balance_transfers/{fixture:balance_transfer}"}
		}},
		walkAll("walk the balance transfers", "balance_transfers.list", "/balance_transfers", "balance transfer", "balance_transfers"),
		{name: "create a file", op: "files.create", ready: always, make: (*generator).createFile},
		readBackOf("fetch a file", "files.get", "file"),
		{name: "upload a file", op: "files.upload", ready: needs("file"), make: (*generator).uploadFile},
		{name: "download a file", op: "files.download", ready: needs("file"), make: func(g *generator) Step {
			r := g.any("file")
			return Step{Op: "files.download", Method: "POST", Path: "/files/{" + r + "}/download", Of: r}
		}},
		walkAll("walk the files", "files.list", "/files", "file", "files"),
		{name: "create a link", op: "files.external_links.create", ready: needs("file"), make: (*generator).createLink},
		{name: "walk a file's links", op: "files.external_links.list", ready: needs("file"), make: func(g *generator) Step {
			f := g.any("file")
			st := g.walkOf("files.external_links.list", "/files/{"+f+"}/external_links", "", "external_links")
			st.Of = f
			return st
		}},
		{name: "fetch a link", op: "files.external_links.get", ready: needs("external link"), make: func(g *generator) Step {
			r := g.any("external link")
			return Step{Op: "files.external_links.get", Method: "GET", Path: "/files/{" + g.linkFile[r] + "}/external_links/{" + r + "}", Of: r}
		}},
		{name: "upload through a link", op: "files.external_upload", ready: func(g *generator) bool { return len(g.uploadLinks()) > 0 }, make: func(g *generator) Step {
			links := g.uploadLinks()
			r := links[g.c.draw(len(links))]
			return Step{Op: "files.external_upload", Method: "PUT", Path: "/external_links/{" + r + "}/upload", ContentType: "application/pdf",
				Body: "%PDF-1.4 explore upload through a link", Of: g.linkFile[r]}
		}},
		{name: "read as another application", op: "webhooks.get", ready: func(g *generator) bool { return g.has("webhook") || g.has("card") }, make: (*generator).otherApplication},
	}
}

// createCard: every field of §4.3 with the limits of §8, both sides.
func (g *generator) createCard() Step {
	st := Step{Op: "payment_instruments.create", Method: "POST", Path: "/payment_instruments", Save: g.newRole("card")}
	number, bad, key := g.cardNumber()
	broken := g.c.bias(7, 80) // at most one of these fields breaks a rule
	code := pick(g.c, "123", "1234")
	if broken == 1 {
		code = pick(g.c, "12", "12345", "12a")
	}
	name := pick(g.c, "Explore Buyer", g.text(1, false), g.text(40, true))
	month := pick(g.c, 12, 1, 6)
	if broken == 2 {
		month = pick(g.c, 0, 13)
	}
	year := pick(g.c, 2030, 9999, 2100)
	if broken == 3 {
		year = pick(g.c, 999, 10000)
	}
	fields := []string{`"type":"PAYMENT_CARD"`, `"name":` + quote(name), `"number":` + quote(number),
		`"expiration_month":` + strconv.Itoa(month), `"expiration_year":` + strconv.Itoa(year),
		`"security_code":` + quote(code), `"identity":"{fixture:buyer_identity}"`}
	st.Secrets = []string{number, code}
	switch {
	case bad && key != "":
		st.Refuse, st.Rule, st.Basis = true, "the number is 12 to 19 digits passing the Luhn check", assumed(key, "4.3")
	case bad:
		st.Refuse, st.Rule, st.Basis = true, "the number is digits", basisCardRule
	case broken == 1:
		st.Refuse, st.Rule, st.Basis = true, "the security code is 3 or 4 digits", basisCardRule
	case month < 1 || month > 12:
		st.Refuse, st.Rule, st.Basis = true, "expiration_month is 1 to 12", basisCardRule
	case year < 1000 || year > 9999:
		st.Refuse, st.Rule, st.Basis = true, "expiration_year has 4 digits", basisCardRule
	}
	if !st.Refuse && len(number) >= 12 {
		st.Expect = append(st.Expect,
			expectField{Path: "bin", Value: number[:6], Check: checkComputed, Basis: basisCard},
			expectField{Path: "last_four", Value: number[len(number)-4:], Check: checkComputed, Basis: basisCard},
			expectField{Path: "name", Value: name, Check: checkReadBack, Basis: basisCard},
			expectField{Path: "expiration_month", Value: int64(month), Check: checkReadBack, Basis: basisCard},
			expectField{Path: "expiration_year", Value: int64(year), Check: checkReadBack, Basis: basisCard},
		)
	}
	// The address: §8 limits, each at, under or over, ASCII or multi-byte.
	var addr []string
	limitField := func(name string, limit int, optional bool) {
		if optional && g.c.draw(3) == 0 {
			return
		}
		v, over, side := g.limited(limit)
		addr = append(addr, quote(name)+":"+quote(v))
		if side != "" && st.Limit == "" {
			st.Limit, st.Side = "card address."+name+" ≤ "+strconv.Itoa(limit), side
		}
		if side == sideAt {
			st.AtLimit = append(st.AtLimit, name)
		}
		if over && !st.Refuse {
			st.Refuse, st.Rule, st.Basis = true, "address."+name+" is at most "+strconv.Itoa(limit)+" characters", basisLimit
		}
		if !over {
			st.Expect = append(st.Expect, expectField{Path: "address." + name, Value: v, Check: checkReadBack, Basis: basisCard})
		}
	}
	postal := pick(g.c, "94114", "1", "1234567")
	if broken == 4 {
		postal = "12345678"
	}
	addr = append(addr, `"postal_code":`+quote(postal))
	if len(postal) > 7 && !st.Refuse {
		st.Refuse, st.Rule, st.Basis = true, "address.postal_code is at most 7 characters", basisLimit
	}
	limitField("line1", 35, true)
	switch g.c.draw(3) {
	case 1:
		addr = append(addr, `"line2":null`)
	case 2:
		limitField("line2", 35, false)
	}
	limitField("city", 20, true)
	if g.c.draw(2) == 1 {
		region := pick(g.c, "CA", "ny")
		if broken == 5 {
			region = pick(g.c, "C", "CAL", "C1")
		}
		addr = append(addr, `"region":`+quote(region))
		if len(region) != 2 || region == "C1" {
			if !st.Refuse {
				st.Refuse, st.Rule, st.Basis = true, "address.region is 2 letters", basisLimit
			}
		}
	}
	if g.c.draw(2) == 1 {
		country := pick(g.c, "USA", "usa")
		if broken == 6 {
			country = pick(g.c, "US", "USAA")
		}
		addr = append(addr, `"country":`+quote(country))
		if len(country) != 3 && !st.Refuse {
			st.Refuse, st.Rule, st.Basis = true, "address.country is 3 letters", basisLimit
		}
	}
	fields = append(fields, `"address":`+object(addr))
	g.tags(&fields, &st.Expect, basisCard)
	st.Body = object(fields)
	if st.Refuse {
		st.Expect = nil
	}
	return st
}

// merchantFor draws the merchant side of a payment: the merchant enabled
// for Level 2/3 data or the plain one.
func (g *generator) merchantFor() (plain bool) { return g.c.draw(3) == 2 }

// level3 draws Level 2/3 data of §2.13 (create form), within or over its limits.
func (g *generator) level3(st *Step, amount int64) string {
	ref, over, side := g.limited(17)
	if side != "" {
		st.Limit, st.Side = "customer_reference_number ≤ 17", side
	}
	if side == sideAt {
		st.AtLimit = append(st.AtLimit, "customer_reference_number")
	}
	if over && !st.Refuse {
		st.Refuse, st.Rule, st.Basis = true, "customer_reference_number is at most 17 characters", basisLimit
	}
	fields := []string{`"customer_reference_number":` + quote(ref), `"customs_duty_amount":0`, `"discount_amount":0`, `"shipping_amount":100`}
	if g.c.draw(2) == 1 {
		desc := pick(g.c, "Explore item", g.text(25, false), g.text(25, true), g.text(26, false))
		qty := pick(g.c, 1, 2, 0)
		if len([]rune(desc)) > 25 && !st.Refuse {
			st.Refuse, st.Rule, st.Basis = true, "item_description is at most 25 characters on create", basisLimit
		}
		if qty == 0 && !st.Refuse {
			st.Refuse, st.Rule, st.Basis = true, "item_data.quantity is greater than 0", basisLimit
		}
		fields = append(fields, `"sales_tax":0`, fmt.Sprintf(`"item_data":[{"amount_excluding_sales_tax":%d,"amount_including_sales_tax":%d,"commodity_code":"43211","cost_per_unit":%d,"item_description":%s,"item_discount_amount":0,"merchant_product_code":"SKU-1","quantity":%d,"unit_of_measure":"EA"}]`,
			amount, amount, amount, quote(desc), qty))
	}
	return object(fields)
}

// authorize: §4.1 with the argument table's merchant form (or the profile's).
func (g *generator) authorize() Step {
	card := g.any("card")
	amount := g.amount()
	st := Step{Op: "authorizations.create", Method: "POST", Path: "/authorizations", Save: g.newRole("authorization"), Of: card}
	plain := g.merchantFor()
	fields := []string{`"source":"{` + card + `}"`}
	if g.profile.AuthorizationMerchantField == judging.MerchantFieldMerchant {
		fields = append(fields, `"merchant":"{fixture:`+map[bool]string{true: "plain_merchant", false: "merchant"}[plain]+`}"`)
	} else {
		fields = append(fields, `"merchant_identity":"{fixture:`+map[bool]string{true: "plain_merchant_identity", false: "merchant_identity"}[plain]+`}"`)
	}
	fields = append(fields, `"amount":`+strconv.FormatInt(amount, 10), `"currency":`+quote([]string{"USD", "usd", "US"}[g.c.bias(3, 90)]))
	if c := fields[len(fields)-1]; c != `"currency":"USD"` {
		st.Refuse, st.Rule, st.Basis = true, "currency is a 3-letter ISO code", basisOf("4.1", "7")
	}
	g.paymentExtras(&st, &fields, amount, plain, basisAuth)
	st.Body = object(fields)
	if !st.Refuse {
		st.Expect = append(st.Expect,
			expectField{Path: "amount", Value: amount, Check: checkReadBack, Basis: basisAuth},
			expectField{Path: "state", Value: "SUCCEEDED", Check: checkComputed, Basis: basisOf("2.1", "3.3")},
			expectField{Path: "transfer", Value: nil, Check: checkComputed, Basis: basisOf("2.1", "3.3")})
	} else {
		st.Expect = nil
	}
	return st
}

// capture: partial, full, over, twice, with or without a fee.
func (g *generator) capture() Step {
	role := g.any("authorization")
	a := g.auths[role]
	st := Step{Op: "authorizations.capture", Method: "PUT", Path: "/authorizations/{" + role + "}", Of: role}
	amt := a.amount
	switch g.c.draw(5) {
	case 1:
		amt = a.amount / 2
	case 2:
		amt = a.amount + 1
	case 3:
		amt = 1
	case 4:
		amt = a.amount + int64(1+g.c.draw(1000))
	}
	fields := []string{`"capture_amount":` + strconv.FormatInt(amt, 10)}
	var fee int64 = -1
	switch g.c.draw(4) {
	case 1:
		fee = 0
	case 2:
		fee = amt
	case 3:
		fee = amt + 1
	}
	if fee >= 0 {
		fields = append(fields, `"fee":`+strconv.FormatInt(fee, 10))
	}
	st.Body = object(fields)
	total := a.captured + amt
	switch {
	case amt > a.amount || total > a.amount:
		st.Refuse, st.Rule = true, "the total captured never exceeds the authorization amount"
		st.Basis = judging.Basis{Clauses: []string{"4.1", "7"}, Invariants: []string{"capture_total"}}
	case fee > a.amount:
		st.Refuse, st.Rule, st.Basis = true, "a fee above the authorization amount is refused", basisOf("4.1", "7")
	case a.captures > 0:
		st.Refuse, st.Rule, st.Basis = true, "a second capture is refused", assumed("multi_capture", "4.1")
	case fee > amt:
		st.Refuse, st.Rule, st.Basis = true, "a capture fee above the captured amount is refused", assumed("capture_fee_bound", "4.1")
	}
	if !st.Refuse {
		st.Expect = []expectField{{Path: "transfer", Value: notNull{}, Check: checkComputed, Basis: basisOf("4.1", "3.3")}}
	}
	return st
}

// paymentExtras draws the optional fields authorize and sale share: an
// idempotency_id, tags, and Level 2/3 data (refused for the plain merchant).
func (g *generator) paymentExtras(st *Step, fields *[]string, amount int64, plain bool, b judging.Basis) {
	if g.c.draw(3) == 0 {
		*fields = append(*fields, `"idempotency_id":`+quote(g.idempotencyID()))
	}
	g.tags(fields, &st.Expect, b)
	if g.c.draw(3) == 2 {
		*fields = append(*fields, `"additional_purchase_data":`+g.level3(st, amount))
		if plain && !st.Refuse {
			st.Refuse, st.Rule, st.Basis = true, "Level 2/3 data for a merchant not enabled is refused", basisOf("2.13", "7")
		}
	}
}

// notNull is an expectation that a field holds some non-null value.
type notNull struct{}

// sale: §4.2 with a fee within or above the amount, Level 2/3 for either merchant.
func (g *generator) sale() Step {
	card := g.any("card")
	amount := g.amount()
	st := Step{Op: "transfers.create", Method: "POST", Path: "/transfers", Save: g.newRole("sale"), Of: card}
	plain := g.merchantFor()
	fields := []string{`"source":"{` + card + `}"`, `"merchant":"{fixture:` + map[bool]string{true: "plain_merchant", false: "merchant"}[plain] + `}"`,
		`"amount":` + strconv.FormatInt(amount, 10), `"currency":"USD"`}
	switch g.c.draw(4) {
	case 1:
		fields = append(fields, `"fee":0`)
	case 2:
		fields = append(fields, `"fee":`+strconv.FormatInt(amount, 10))
	case 3:
		fields = append(fields, `"fee":`+strconv.FormatInt(amount+1, 10))
		st.Refuse, st.Rule, st.Basis = true, "a fee above the amount is refused", basisOf("4.2", "7")
	}
	g.paymentExtras(&st, &fields, amount, plain, basisSale)
	st.Body = object(fields)
	if st.Refuse {
		st.Expect = nil
	} else {
		st.Expect = append(st.Expect, expectField{Path: "amount", Value: amount, Check: checkReadBack, Basis: basisSale})
	}
	return st
}

// updateMerchant sets Level 2/3 processing, as the platform or the merchant user.
func (g *generator) updateMerchant() Step {
	r := pick(g.c, "merchant", "plain merchant")
	v := g.c.draw(2) == 1
	if r == "merchant" {
		v = !v // the enabled merchant keeps its default most often
	}
	st := Step{Op: "merchants.update", Method: "PUT", Path: "/merchants/{fixture:" + fixtureOfMerchant(r) + "}", Of: r,
		Body: `{"level_two_level_three_data_enabled":` + strconv.FormatBool(v) + `}`}
	if g.c.draw(4) == 3 {
		st.User = userMerchant
		st.Refuse, st.Rule, st.Basis = true, "only ROLE_PLATFORM may update a merchant", basisOf("4.4", "5")
	} else {
		st.Expect = []expectField{{Path: "level_two_level_three_data_enabled", Value: v, Check: checkReadBack, Basis: basisOf("2.4", "4.4")}}
	}
	return st
}

// webhookURL draws a url at, under or over the 120-character limit of §8.
func (g *generator) webhookURL(st *Step) string {
	base := g.hookBase + "/explore/"
	n := pick(g.c, 40, 120, 121, 1)
	u := base
	for len(u) < n {
		u += "a"
	}
	if n < len(base) {
		u = "ftp://x"
		st.Refuse, st.Rule, st.Basis = true, "the url is http or https", basisOf("2.10", "8")
		return u
	}
	switch n {
	case 120:
		st.Limit, st.Side = "webhook url ≤ 120", sideAt
		st.AtLimit = append(st.AtLimit, "url")
	case 121:
		st.Limit, st.Side = "webhook url ≤ 120", sideOver
		st.Refuse, st.Rule, st.Basis = true, "the url is at most 120 characters", basisLimit
	}
	return u
}

func (g *generator) createWebhook() Step {
	st := Step{Op: "webhooks.create", Method: "POST", Path: "/webhooks", Save: g.newRole("webhook")}
	u := g.webhookURL(&st)
	fields := []string{`"url":` + quote(u)}
	if g.c.draw(2) == 1 {
		fields = append(fields, `"enabled":false`)
	}
	g.tags(&fields, &st.Expect, basisWebhook)
	st.Body = object(fields)
	if st.Refuse {
		st.Expect = nil
		st.Of = "webhooks"
	} else {
		st.Expect = append(st.Expect, expectField{Path: "url", Value: u, Check: checkReadBack, Basis: basisWebhook})
	}
	return st
}

func (g *generator) updateWebhook() Step {
	r := g.any("webhook")
	st := Step{Op: "webhooks.update", Method: "PUT", Path: "/webhooks/{" + r + "}", Of: r}
	var fields []string
	if g.c.draw(2) == 1 {
		u := g.webhookURL(&st)
		fields = append(fields, `"url":`+quote(u))
		if !st.Refuse {
			st.Expect = append(st.Expect, expectField{Path: "url", Value: u, Check: checkReadBack, Basis: basisWebhook})
		}
	}
	en := g.c.draw(2) == 1
	fields = append(fields, `"enabled":`+strconv.FormatBool(en))
	if !st.Refuse {
		st.Expect = append(st.Expect, expectField{Path: "enabled", Value: en, Check: checkReadBack, Basis: basisWebhook})
	}
	st.Body = object(fields)
	return st
}

func (g *generator) createSchedule() Step {
	st := Step{Op: "subscription_schedules.create", Method: "POST", Path: "/subscription/subscription_schedules", Save: g.newRole("schedule")}
	nick := pick(g.c, "explore schedule", g.text(30, true))
	typ := pick(g.c, "PERIODIC_MONTHLY", "PERIODIC_YEARLY", "FIXED_TIME_INTERVAL")
	fields := []string{`"line_item_type":"FEE"`, `"nickname":` + quote(nick), `"subscription_type":` + quote(typ)}
	switch typ {
	case "FIXED_TIME_INTERVAL":
		fields = append(fields, `"fixed_time_interval_offset":{"hourly_interval":`+strconv.Itoa(pick(g.c, 24, 1))+`,"interval_count":`+strconv.Itoa(pick(g.c, 1, 12))+`}`)
	default:
		fields = append(fields, `"period_offset":{"day":`+strconv.Itoa(pick(g.c, 1, 31, 15))+`,"month":`+pick(g.c, "null", "1", "12")+`}`)
	}
	st.Body = object(fields)
	st.Expect = []expectField{{Path: "nickname", Value: nick, Check: checkReadBack, Basis: assumed("extensions")}}
	return st
}

// amountBody is the body of a subscription amount create or update, in the profile's form.
func (g *generator) amountBody(st *Step, update bool) (string, int64) {
	amount := g.positiveAmount()
	if g.c.draw(6) == 5 {
		amount = 0
		st.Refuse, st.Rule, st.Basis = true, "a subscription amount is positive", basisOf("4.5", "7")
		if !update {
			st.Basis = assumed("extensions", "4.5")
		}
	}
	nick := pick(g.c, "explore amount", g.text(20, true))
	a := strconv.FormatInt(amount, 10)
	if g.profile.SubscriptionAmountUpdateForm == judging.AmountUpdateTopLevel {
		return `{"amount_type":"FEE","amount":` + a + `,"fee_amount_data":{"currency":"USD","label":"explore"},"nickname":` + quote(nick) + `}`, amount
	}
	return `{"amount_type":"FEE","fee_amount_data":{"amount":` + a + `,"currency":"USD","label":"explore"},"nickname":` + quote(nick) + `}`, amount
}

func (g *generator) createAmount() Step {
	s := g.any("schedule")
	st := Step{Op: "subscription_amounts.create", Method: "POST", Path: "/subscription/subscription_schedules/{" + s + "}/subscription_amounts", Save: g.newRole("amount"), Of: s}
	st.Body, _ = g.amountBody(&st, false)
	return st
}

func (g *generator) updateAmount() Step {
	r := g.any("amount")
	a := g.amounts[r]
	st := Step{Op: "subscription_amounts.update", Method: "PATCH", Path: "/subscription/subscription_schedules/{" + a.schedule + "}/subscription_amounts/{" + r + "}", Of: r, Save: g.newRole("amount")}
	st.Body, _ = g.amountBody(&st, true)
	if !st.Refuse && (a.updated || a.produced) {
		st.Refuse, st.Rule, st.Basis = true, "an updated amount, or one an update produced, is not updated again", basisOf("3.2", "8")
	}
	return st
}

// unenrolled are the schedules the merchant is not enrolled in yet.
func (g *generator) unenrolled() []string {
	var out []string
	for _, s := range g.alive("schedule") {
		if !g.enrolled[s] {
			out = append(out, s)
		}
	}
	return out
}

// uploadLinks are the live external links of type UPLOAD.
func (g *generator) uploadLinks() []string {
	var out []string
	for _, r := range g.alive("external link") {
		if g.linkType[r] == "UPLOAD" {
			out = append(out, r)
		}
	}
	return out
}

func (g *generator) enroll() Step {
	free := g.unenrolled()
	s := free[g.c.draw(len(free))]
	st := Step{Op: "subscription_enrollments.create", Method: "POST", Path: "/subscription/subscription_schedules/{" + s + "}/subscription_enrollments", Save: g.newRole("enrollment"), Of: s}
	nick := pick(g.c, "explore enrollment", g.text(40, true), "")
	fields := []string{`"merchant":"{fixture:merchant}"`, `"nickname":` + quote(nick)}
	if g.c.draw(2) == 1 {
		fields = append(fields, `"started_at":"2030-01-01T00:00:00Z"`)
	}
	g.tags(&fields, &st.Expect, basisEnroll)
	st.Body = object(fields)
	st.Expect = append(st.Expect, expectField{Path: "nickname", Value: nick, Check: checkReadBack, Basis: basisEnroll})
	return st
}

func (g *generator) updateEnrollment() Step {
	r := g.any("enrollment")
	nick := pick(g.c, "renamed", g.text(25, true))
	st := Step{Op: "subscription_enrollments.update", Method: "PUT", Path: "/subscription/subscription_enrollments/{" + r + "}", Of: r,
		Body: `{"nickname":` + quote(nick) + `}`}
	st.Expect = []expectField{{Path: "nickname", Value: nick, Check: checkReadBack, Basis: basisEnroll}}
	return st
}

// multipart is a form with one file part; lines end in CRLF as RFC 7578 asks.
func multipart(name, content string) (ctype, body string) {
	const boundary = "exploreboundary"
	body = "--" + boundary + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"" + name + "\"\r\nContent-Type: application/pdf\r\n\r\n" +
		content + "\r\n--" + boundary + "--\r\n"
	return "multipart/form-data; boundary=" + boundary, body
}

func (g *generator) addEvidence() Step {
	name := pick(g.c, "evidence.pdf", g.text(20, true)+".pdf")
	ctype, body := multipart(name, "%PDF-1.4 explore evidence")
	return Step{Op: "dispute_evidence.create", Method: "POST", Path: "/disputes/{fixture:dispute}/evidence", ContentType: ctype, Body: body, Save: g.newRole("evidence")}
}

func (g *generator) createBalanceTransfer() Step {
	amount := g.positiveAmount()
	st := Step{Op: "balance_transfers.create", Method: "POST", Path: "/balance_transfers", Save: g.newRole("balance transfer")}
	src, dst := "OPERATING_ACCOUNT", "FOR_BENEFIT_OF_ACCOUNT"
	if g.c.draw(2) == 1 {
		src, dst = dst, src
	}
	st.Body = fmt.Sprintf(`{"amount":%d,"currency":"USD","description":%s,"source":%q,"destination":%q}`, amount, quote(pick(g.c, "explore", g.text(30, true))), src, dst)
	st.Expect = []expectField{{Path: "amount", Value: amount, Check: checkReadBack, Basis: basisOf("2.9")}}
	return st
}

func (g *generator) createFile() Step {
	name := pick(g.c, "explore.pdf", g.text(30, true), "reject-explore.pdf")
	st := Step{Op: "files.create", Method: "POST", Path: "/files", Save: g.newRole("file"),
		Body: `{"display_name":` + quote(name) + `,"linked_to":"{fixture:merchant}","type":` + quote(pick(g.c, "OTHER", "PASSPORT", "TAX_DOCUMENT")) + `}`}
	if g.c.draw(8) == 7 {
		st.Body = `{"display_name":"","linked_to":"{fixture:merchant}","type":"OTHER"}`
		st.Refuse, st.Rule, st.Basis, st.Of = true, "display_name is not empty", assumed("file_payloads", "4.8"), "files"
		return st
	}
	st.Expect = []expectField{{Path: "display_name", Value: name, Check: checkReadBack, Basis: assumed("file_payloads", "2.11")}}
	return st
}

func (g *generator) uploadFile() Step {
	r := g.any("file")
	ctype, body := multipart("doc.pdf", "%PDF-1.4 explore upload")
	return Step{Op: "files.upload", Method: "POST", Path: "/files/{" + r + "}/upload", ContentType: ctype, Body: body, Of: r}
}

func (g *generator) createLink() Step {
	r := g.any("file")
	d := pick(g.c, 10, 1, 10080)
	if g.c.bias(3, 70) != 0 {
		d = pick(g.c, 10081, 0)
	}
	typ := pick(g.c, "UPLOAD", "DOWNLOAD", "VIEW")
	st := Step{Op: "files.external_links.create", Method: "POST", Path: "/files/{" + r + "}/external_links", Of: r, Save: g.newRole("external link"),
		Body: `{"type":` + quote(typ) + `,"duration":` + strconv.Itoa(d) + `}`}
	g.linkType[st.Save] = typ
	switch d {
	case 10080:
		st.Limit, st.Side = "link duration ≤ 10080", sideAt
		st.AtLimit = append(st.AtLimit, "duration")
	case 10081:
		st.Limit, st.Side = "link duration ≤ 10080", sideOver
		st.Refuse, st.Rule, st.Basis = true, "duration is at most 10080 minutes", assumed("file_payloads", "4.8")
	case 0:
		st.Refuse, st.Rule, st.Basis = true, "duration is at least 1 minute", assumed("file_payloads", "4.8")
	}
	g.linkFile[st.Save] = r
	return st
}

// otherApplication reads or lists what this application made as the other
// application's user: never found (tenancy).
func (g *generator) otherApplication() Step {
	tenancy := judging.Basis{Clauses: []string{"7"}, Invariants: []string{"tenancy"}}
	if g.has("webhook") && (!g.has("card") || g.c.draw(2) == 0) {
		if g.c.draw(2) == 0 {
			st := g.walkOf("webhooks.list", "/webhooks", "webhook", "webhooks")
			st.User = userOther
			st.Walk.Other = true
			return st
		}
		r := g.any("webhook")
		return Step{Op: "webhooks.get", Method: "GET", Path: "/webhooks/{" + r + "}", User: userOther, Refuse: true, Rule: "another application's webhook is not found", Basis: tenancy}
	}
	r := g.any("card")
	return Step{Op: "payment_instruments.get", Method: "GET", Path: "/payment_instruments/{" + r + "}", User: userOther, Refuse: true, Rule: "another application's card is not found", Basis: tenancy}
}

// walkOf starts a list walk with a drawn page size.
func (g *generator) walkOf(op, path, kind, items string) Step {
	limit := pick(g.c, 20, 1, 2, 3, 100)
	var roles []string
	if kind != "" {
		roles = g.alive(kind)
	}
	query := pick(g.c, "", "&sort=created_at,asc", "&sort=created_at,desc")
	st := Step{Op: op, Method: "GET", Path: path, Walk: &walk{Kind: kind, Roles: roles, Limit: limit, Items: items, Query: query}}
	if max := g.profile.ListMaxLimit; max > 0 && g.c.bias(8, 90) == 7 {
		limit = max + 1 // over the declared maximum: refused or clamped, as the profile says
		st.Walk.Limit = limit
	}
	switch max := g.profile.ListMaxLimit; {
	case max > 0 && limit == max:
		st.Limit, st.Side = "list limit ≤ "+strconv.Itoa(max), sideAt
	case max > 0 && limit > max:
		st.Limit, st.Side = "list limit ≤ "+strconv.Itoa(max), sideOver
	}
	return st
}
