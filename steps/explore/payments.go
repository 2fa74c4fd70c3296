package explore

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"strconv"
	"strings"

	"github.com/conform-kit/conform/validate"
	"github.com/conform-kit/conform/validate/judging"
)

// The payment actions: cards, authorizations, captures, sales and the
// merchant updates their Level 2/3 data depends on.

// createCard: every field of §4.3 drawn from payment_instrument_create; the
// number is a card number of the contract's lengths with a brand's prefix
// and a Luhn digit, or one refused.
func (g *generator) createCard() Step {
	st := Step{Op: "payment_instruments.create", Method: "POST", Path: "/payment_instruments", Save: g.newRole("card")}
	number, bad, key := g.cardNumber()
	doc := g.fill(&st, map[string]func() any{"number": fixed(number), "identity": fixed("{fixture:buyer_identity}"),
		// Security codes unlike any other value drawn, so one found in an answer is the code.
		"security_code": func() any { return pick(g.c, "123", "1234", "9876", "042") },
		// A card that has expired is refused (a rule of time the schema cannot state): mostly a year to come.
		"expiration_year": func() any {
			y := g.drawNumber(g.con.leaf(st.Op, "expiration_year"))
			if n, _ := y.Int64(); n < 2030 && g.c.bias(2, 85) == 0 {
				return json.Number(strconv.Itoa(2030 + g.c.draw(70)))
			}
			return y
		}}, "number")
	st.Secrets = []string{number}
	if code, ok := doc["security_code"].(string); ok && len(code) >= 3 {
		st.Secrets = append(st.Secrets, code)
		g.secrets = append(g.secrets, code)
	}
	if bad && key != "" {
		st.Refuse, st.Rule, st.Basis = true, "the number is 12 to 19 digits passing the Luhn check", assumed(key, "4.3")
	}
	if st.Refuse {
		return st
	}
	if len(number) >= 12 {
		st.Expect = append(st.Expect,
			expectField{Path: "bin", Value: number[:6], Check: checkComputed, Basis: basisCard},
			expectField{Path: "last_four", Value: number[len(number)-4:], Check: checkComputed, Basis: basisCard})
	}
	expectSent(&st, doc, basisCard, "name", "expiration_month", "expiration_year",
		"address.line1", "address.line2", "address.city", "address.region", "address.postal_code", "address.country", "tags.*")
	return st
}

// merchantFor draws the merchant side of a payment: the merchant enabled
// for Level 2/3 data or the plain one.
func (g *generator) merchantFor() (plain bool) { return g.c.draw(3) == 2 }

// merchantFixes names the payment's merchant in the profile's form, or
// (where the target's profile keeps the contract's default, which takes
// both) now and then in the other form, or in both (refused).
func (g *generator) merchantFixes(fixes map[string]func() any, plain, sale bool) {
	m := map[bool]string{true: "{fixture:plain_merchant}", false: "{fixture:merchant}"}[plain]
	id := map[bool]string{true: "{fixture:plain_merchant_identity}", false: "{fixture:merchant_identity}"}[plain]
	if sale {
		fixes["merchant"] = fixed(m)
		return
	}
	form := g.profile.AuthorizationMerchantField
	if form == g.con.defaults.AuthorizationMerchantField {
		switch g.c.bias(3, 85) {
		case 1:
			form = map[bool]string{true: judging.MerchantFieldMerchant, false: "merchant_identity"}[form != judging.MerchantFieldMerchant]
		case 2:
			fixes["merchant"], fixes["merchant_identity"] = fixed(m), fixed(id) // both: refused
			return
		}
	}
	if form == judging.MerchantFieldMerchant {
		fixes["merchant"], fixes["merchant_identity"] = fixed(m), fixed(absent)
	} else {
		fixes["merchant_identity"], fixes["merchant"] = fixed(id), fixed(absent)
	}
}

// amountFix draws a payment's amount from its leaf, never one of the
// profile's sandbox triggers (facts of a sandbox, not of the contract).
func (g *generator) amountFix(op, path string) func() any {
	leaf := g.con.leaf(op, path)
	return func() any {
		for {
			a := g.drawNumber(leaf)
			if n, err := a.Int64(); err != nil || (n != g.declineTrigger && n != g.disputeTrigger) {
				return a
			}
		}
	}
}

// paymentFixes are what authorize and sale decide: the card, the
// merchant, the amount, a fresh idempotency id when one is sent, the
// currency the contract's examples use first.
func (g *generator) paymentFixes(st *Step, card string, plain bool) map[string]func() any {
	fixes := map[string]func() any{
		"source": fixed("{" + card + "}"),
		"amount": g.amountFix(st.Op, "amount"),
		"idempotency_id": func() any {
			if g.c.draw(3) == 0 {
				return g.idempotencyID()
			}
			return absent
		},
	}
	g.merchantFixes(fixes, plain, st.Op == "transfers.create")
	fixes["additional_purchase_data"] = g.purchaseFix(st.Op, plain)
	return fixes
}

// purchaseFix draws a payment's Level 2/3 data from its leaf: for the
// merchant not enabled for it, mostly none (it is refused); with
// tax_exempt, mostly no sales tax (the rule of §2.13 the schemas cannot
// state).
func (g *generator) purchaseFix(op string, plain bool) func() any {
	leaf := g.con.leaf(op, "additional_purchase_data")
	return func() any {
		if leaf == nil || g.c.draw(3) == 0 || (plain && g.c.bias(2, 80) == 0) {
			return absent
		}
		data, _ := g.drawNode(leaf, nil).(map[string]any)
		if exempt, _ := data["tax_exempt"].(bool); exempt && g.c.bias(2, 80) == 0 {
			delete(data, "sales_tax")
		}
		return data
	}
}

// purchaseRules are the rules of §2.13 the schemas cannot state: Level 2/3
// data only for a merchant enabled for it, no sales tax when tax exempt.
func purchaseRules(st *Step, data map[string]any, plain bool) {
	if data == nil {
		return
	}
	if plain {
		// §1: "a merchant must first be enabled for it"; §7: "A merchant
		// must be enabled for Level 2/Level 3 before such data is used".
		refuse(st, "Level 2/3 data for a merchant not enabled is refused", saying(basisOf("1", "7"), "a merchant must first be enabled for it (§1); a merchant must be enabled for Level 2/Level 3 before such data is used (§7)"))
		st.StateRule = st.Rule == "Level 2/3 data for a merchant not enabled is refused"
	}
	if validate.CheckTaxExempt(data) != nil {
		// The spec advises it (§2.13); refusing otherwise is the reference's rule (level3.feature: @profile-reference_rules).
		refuse(st, "sales_tax is 0 or absent when tax_exempt is true", assumed("reference_rules", "2.13"))
	}
}

// authorize: §4.1, every field drawn from authorization_create.
func (g *generator) authorize() Step {
	card := g.any("card")
	st := Step{Op: "authorizations.create", Method: "POST", Path: "/authorizations", Save: g.newRole("authorization"), Of: card}
	plain := g.merchantFor()
	doc := g.fill(&st, g.paymentFixes(&st, card, plain))
	data, _ := doc["additional_purchase_data"].(map[string]any)
	purchaseRules(&st, data, plain)
	amount, _ := intAt(doc, "amount")
	g.pendingAuth = &authState{amount: amount, plain: plain, data: data}
	st.Expect = append(st.Expect,
		expectField{Path: "amount", Value: amount, Check: checkReadBack, Basis: basisAuth},
		// §2.1 shows state SUCCEEDED as observed and §3.3 does not show
		// the transitions: the reference's value (resource_values). The
		// transfer is null until captured: §2.1 states it.
		expectField{Path: "state", Value: "SUCCEEDED", Check: checkComputed, Basis: assumed(keyFieldNotShown, "2.1", "3.3")},
		expectField{Path: "transfer", Value: nil, Check: checkComputed, Basis: saying(basisOf("2.1"), "transfer: null until captured")})
	expectSent(&st, doc, basisAuth, "tags.*")
	return st
}

// capture: two times of three (draws 0 and 1, 0 the simplest) a capture
// meant to be accepted, so that what follows one (the transfer it makes,
// the authorization read back, a second capture) is explored: of an
// authorization not captured yet (where every one is, it authorizes
// instead, as an action not ready makes what it needs), an amount within
// what is left, a fee within it or none, Level 2/3 data only for the
// merchant enabled for it, no leaf mutated. Otherwise the amounts the
// rules relate (the authorization's amount, half, one more, what is left
// and one more, one, past the amount), fees equal to the capture and one more,
// and Level 2/3 data in the capture form, a leaf mutated twice as often as
// another body's. The kind is the first draw, the role the second, then
// the amount and the fee: lowering the first to 0 while shrinking turns a
// capture into one meant to be accepted.
func (g *generator) capture() Step {
	valid := g.c.draw(3) < 2
	role, ok := g.captureRole(valid)
	if !ok {
		// Every authorization is captured: as an action not ready, it
		// makes what it needs, an authorization to capture next.
		return g.authorize()
	}
	a := g.auths[role]
	st := Step{Op: "authorizations.capture", Method: "PUT", Path: "/authorizations/{" + role + "}", Of: role}
	over := int64(1 + g.c.draw(1000))
	left := max(a.amount-a.captured, 0)
	var amt int64
	if valid {
		amt = pick(g.c, left, left/2, min(left, 1), max(left-1, min(left, 1)))
	} else {
		amt = pick(g.c, a.amount, a.amount/2, a.amount+1, left, left+1, 1, a.amount+over)
	}
	if amt < 0 { // past int64: one more than the largest amount
		amt = math.MaxInt64
	}
	fee := func() any {
		n := g.c.draw(6)
		if valid { // within the amount captured, or none
			n = []int{0, 1, 4, 2, 0, 1}[n]
		}
		switch n {
		case 1:
			return json.Number("0")
		case 2:
			return json.Number(strconv.FormatInt(amt, 10))
		case 3:
			return json.Number(strconv.FormatInt(amt+1, 10))
		case 4:
			return json.Number(strconv.FormatInt(max(amt-1, 0), 10))
		case 5:
			return json.Number(strconv.FormatInt(a.amount, 10))
		}
		return absent
	}
	fixes := map[string]func() any{"capture_amount": fixed(json.Number(strconv.FormatInt(amt, 10))), "fee": fee}
	var keep []string
	switch {
	case a.plain && !g.force:
		// The model takes the target's Level 2/3 processing from the
		// payment's merchant, which a capture's body does not name.
		fixes["additional_purchase_data"], keep = fixed(absent), []string{"additional_purchase_data"}
	case valid || a.plain:
		// A probe, refused by its schema before any merchant's Level 2/3
		// processing is asked, mutates the capture form's Level 2/3 data
		// for either merchant.
		fixes["additional_purchase_data"] = g.capturePurchase(a)
	}
	var doc map[string]any
	if valid {
		doc = g.fillValid(&st, fixes, keep...)
	} else {
		doc = g.fill(&st, fixes, keep...)
	}
	amt, _ = intAt(doc, "capture_amount")
	g.pendingCapture = amt
	f, hasFee := intAt(doc, "fee")
	if !hasFee {
		f = -1
	}
	captureRules(&st, a, amt, f)
	if data, ok := doc["additional_purchase_data"].(map[string]any); ok {
		purchaseRules(&st, mergedPurchase(a, data), a.plain)
	}
	// Judged only when the model accepts it too (a merchant the sequence
	// found enabled takes Level 2/3 data the generator expects refused).
	st.Expect = []expectField{{Path: "transfer", Value: notNull{}, Check: checkComputed, Basis: saying(basisOf("4.1", "3.3"), "a capture returns the Authorization with transfer set to the Transfer id")}}
	return st
}

// captureRole draws the authorization a capture names, with one draw: for
// a capture meant to be accepted, one not captured yet (the last made
// first), false when there is none; otherwise any.
func (g *generator) captureRole(valid bool) (string, bool) {
	if !valid {
		return g.any("authorization"), true
	}
	var rs []string
	for _, r := range g.alive("authorization") {
		if a := g.auths[r]; a != nil && a.captures == 0 {
			rs = append(rs, r)
		}
	}
	if len(rs) == 0 {
		return "", false
	}
	return rs[len(rs)-1-g.c.draw(len(rs))], true
}

// capturePurchase draws a capture's Level 2/3 data for an authorization of
// the merchant enabled for it as a payment's is drawn (in a probe always
// present: a mutation under it needs it), kept within the tax exemption
// rule together with the authorization's data (the capture's fields
// carried over on top of the authorization's).
func (g *generator) capturePurchase(a *authState) func() any {
	leaf := g.con.leaf("authorizations.capture", "additional_purchase_data")
	return func() any {
		if leaf == nil || (g.c.draw(3) == 0 && !g.force) {
			return absent
		}
		data, _ := g.drawNode(leaf, nil).(map[string]any)
		if data == nil {
			return absent
		}
		if validate.CheckTaxExempt(mergedPurchase(a, data)) != nil {
			data["tax_exempt"] = false
		}
		if validate.CheckTaxExempt(mergedPurchase(a, data)) != nil {
			delete(data, "sales_tax")
		}
		return data
	}
}

// mergedPurchase is the Level 2/3 data a capture leaves its authorization
// with: the capture's fields over the authorization's.
func mergedPurchase(a *authState, data map[string]any) map[string]any {
	merged := maps.Clone(a.data)
	if merged == nil {
		merged = map[string]any{}
	}
	maps.Copy(merged, data)
	return merged
}

// captureRules marks a capture of amt with fee f (-1: none) of the
// authorization a refused by the first rule it breaks: the total captured
// past the amount, a fee past the amount, a second capture, a fee past the
// capture; a fee equal to an amount capturing all of the authorization's
// is allowed.
func captureRules(st *Step, a *authState, amt, f int64) {
	total := a.captured + amt
	switch {
	case amt > a.amount || total > a.amount:
		refuse(st, "the total captured never exceeds the authorization amount", judging.Basis{Clauses: []string{"4.1", "7"}, Invariants: []string{"capture_total"}})
	case f > a.amount:
		refuse(st, "a fee above the authorization amount is refused", saying(basisOf("4.1", "7"), "fee: must be <= the amount"))
	case a.captures > 0:
		refuse(st, "a second capture is refused", assumed("multi_capture", "4.1"))
	case f > amt:
		refuse(st, "a capture fee above the captured amount is refused", assumed("capture_fee_bound", "4.1"))
	case f == amt && amt == a.amount && !st.Refuse:
		// A fee equal to the amount captured, all of the authorization's:
		// within "must be <= the amount" whichever amount it names.
		st.Allowed = append(st.Allowed, allowedValue{Field: "fee", Basis: basisFeeAtAmount("4.1")})
	}
}

// notNull is an expectation that a field holds some non-null value.
type notNull struct{}

// sale: §4.2, every field drawn from transfer_create, with a fee equal to
// the amount, one more or one less.
func (g *generator) sale() Step {
	card := g.any("card")
	st := Step{Op: "transfers.create", Method: "POST", Path: "/transfers", Save: g.newRole("sale"), Of: card}
	plain := g.merchantFor()
	fixes := g.paymentFixes(&st, card, plain)
	amountDraw := fixes["amount"]
	var amount json.Number
	fixes["amount"] = func() any { amount = amountDraw().(json.Number); return amount }
	fixes["fee"] = func() any {
		a, _ := amount.Int64()
		switch g.c.draw(5) {
		case 1:
			return json.Number("0")
		case 2:
			return amount
		case 3:
			return json.Number(strconv.FormatInt(a+1, 10))
		case 4:
			return json.Number(strconv.FormatInt(max(a-1, 0), 10))
		}
		return absent
	}
	doc := g.fill(&st, fixes)
	n, _ := intAt(doc, "amount")
	if f, ok := intAt(doc, "fee"); ok && f > n {
		refuse(&st, "a fee above the amount is refused", saying(basisOf("4.2", "7"), "fee: must be <= amount"))
	} else if ok && f == n && !st.Refuse {
		st.Allowed = append(st.Allowed, allowedValue{Field: "fee", Basis: basisFeeAtAmount("4.2")})
	}
	data, _ := doc["additional_purchase_data"].(map[string]any)
	purchaseRules(&st, data, plain)
	st.Expect = append(st.Expect, expectField{Path: "amount", Value: n, Check: checkReadBack, Basis: basisSale})
	expectSent(&st, doc, basisSale, "tags.*")
	return st
}

// updateMerchant sets Level 2/3 processing, as the platform or the merchant user.
func (g *generator) updateMerchant() Step {
	r := pick(g.c, "merchant", "plain merchant")
	st := Step{Op: "merchants.update", Method: "PUT", Path: "/merchants/{fixture:" + fixtureOfMerchant(r) + "}", Of: r}
	// The flag its fixture starts with (the merchant enabled, the plain one
	// not) or the other, half the time each: an update that changes nothing
	// shows nothing of a refusal that was applied.
	doc := g.fill(&st, map[string]func() any{"level_two_level_three_data_enabled": func() any {
		return pick(g.c, r == "merchant", r != "merchant")
	}})
	if g.c.draw(4) == 3 {
		st.User = userMerchant
		refuse(&st, "only ROLE_PLATFORM may update a merchant", saying(basisOf("4.4", "5"), "only credentials with role ROLE_PLATFORM may update a Merchant's flags"))
		st.Expect = nil
		if on, ok := doc["level_two_level_three_data_enabled"].(bool); ok && !g.force {
			// The platform sets the other value first, in the same action:
			// applied, the refused update would change what the merchant
			// shows whatever the target held before (another sequence's
			// update, an earlier replay of this one), so the sequence fails
			// alike on every replay and shrinks to this action alone.
			set := Step{Op: st.Op, Method: st.Method, Path: st.Path, Of: r, Body: fmt.Sprintf(`{"level_two_level_three_data_enabled":%t}`, !on)}
			expectSent(&set, map[string]any{"level_two_level_three_data_enabled": !on}, basisL23, "level_two_level_three_data_enabled")
			g.before = append(g.before, set)
		}
	}
	if !st.Refuse {
		expectSent(&st, doc, basisL23, "level_two_level_three_data_enabled")
	}
	return st
}

// transferRole is the role of the transfer a capture of the authorization
// role made: "authorization b" → "capture transfer b" (the suite's own
// step names the first one "capture transfer").
func transferRole(auth string) string {
	return "capture transfer" + strings.TrimPrefix(auth, "authorization")
}

// bindCaptureTransfer remembers, on each side, the transfer a capture of
// the authorization role accepted on both made (the transfer its answer
// names) as transferRole(auth), so the sequence can fetch it.
func bindCaptureTransfer(auth string, target, model *side) {
	for _, s := range []*side{target, model} {
		if tr, _ := s.docs[auth]["transfer"].(string); tr != "" {
			s.ids[transferRole(auth)] = tr
		}
	}
}

// askCaptureTransfer queues, after an accepted capture of the
// authorization role (after reads, the authorization read back first) or
// after a read of a captured one, the fetch of the transfer it made: what
// follows a capture is asked as often as a question of its own.
func (g *generator) askCaptureTransfer(auth string, read bool) {
	if a := g.auths[auth]; a == nil || a.captures == 0 || !g.offers("transfers.get") {
		return
	}
	role := transferRole(auth)
	get := Step{Op: "transfers.get", Method: "GET", Path: "/transfers/{" + role + "}", Of: role}
	if back, ok := g.readBack(auth); read && ok {
		g.ask(noQuestion, back, get)
		return
	}
	g.ask(noQuestion, get)
}
