package explore

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/conform-kit/conform/validate/judging"
)

// Questions asked of a resource: what lives between requests. After a
// step the model and the target both accepted, the generator may ask one
// question of what the step made, fetched or deleted, as the next action:
// the same fetch without credentials and with a wrong password between
// two of the owner's (a cache in front of the password check), the same
// fetch as the other application's user right after the owner's (a cache
// in front of the tenancy check), two captures of one authorization at
// once (a read-check-write race), the fetch and update of an enrollment
// just deleted and the list of all enrollments walked (a soft delete an
// update revives, or a list query that forgets it), and the create again as
// the other application with the same idempotency_id (a replay cache
// keyed without the application). Every request of a question goes to
// the model too, so the two stay in step. See the README's "The questions
// asked of a resource".

// Users a question acts as, besides the configured ones.
const (
	userNone          = "no credentials" // no Authorization header
	userWrongPassword = "wrong password" // the platform user with a wrong password
)

// wrongPassword is the password userWrongPassword sends (the suite's
// "I send a wrong password" sends the same).
const wrongPassword = "not-the-password-0"

// Check names of the questions (checkTenancy is the other application's).
const (
	checkAuthenticated = "refused without valid credentials"
	checkGone          = "a deleted resource stays gone"
	checkAtOnce        = "requests at once keep the rule"
	checkRole          = "a role not allowed is refused"
)

// The bases of the questions: each a sentence of the spec or a safety
// invariant (judging.json's refusal table and invariants say the same).
var (
	basisAuthentication = saying(basisOf("5", "7"), "§5 item 1: every request carries HTTP Basic credentials; item 4: missing or invalid credentials yield the error Authentication information is missing or invalid (§7)")
	basisTenancy        = judging.Basis{Clauses: []string{"7"}, Invariants: []string{"tenancy"}}
	basisGone           = saying(basisOf("4.5", "7"), "DELETE /subscription/subscription_enrollments/:id removes an enrollment; Object does not exist is the error of fetch, update and delete by id (§7)")
	basisGoneList       = saying(basisOf("4.5", "2.12"), "DELETE /subscription/subscription_enrollments/:id removes an enrollment; GET /subscription/subscription_enrollments lists all enrollments, and page.count is the total number of records (§2.12)")
	basisCaptureTotal   = judging.Basis{Clauses: []string{"4.1", "7"}, Invariants: []string{"capture_total"},
		Says: "capture_amount must be <= the Authorization amount (§4.1, §7): the total captured on an authorization never exceeds its amount"}
)

// queueQuestions lists the questions the generator may ask next of what
// st, accepted on both sides, made, read or deleted (none of a question's
// own steps, nor of another user's). The next action draws one or none.
func (g *generator) queueQuestions(st Step, ok bool) {
	if st.Refuse && st.Question == "" {
		return // a probe after the step, or a refusal: the step's questions stay
	}
	g.asks = nil
	if !ok || st.Question != "" || st.Walk != nil || (st.User != "" && st.User != userPlatform) {
		return
	}
	role := st.Save
	if role == "" && st.Method == "GET" {
		role = st.Of
	}
	if fetch, ok := g.fetchOf(role); ok {
		owner := fetch
		owner.Question = checkAuthenticated // a question's own step: asked of nothing
		if g.opNormative(fetch.Op) {
			// §5 holds for every operation the spec names: interleaved with
			// the owner's fetch, so a cache in front of the check shows.
			none, wrong := fetch, fetch
			none.User, none.Question, none.Refuse, none.Rule, none.Basis = userNone, checkAuthenticated, true, "a request without credentials is refused", basisAuthentication
			wrong.User, wrong.Question, wrong.Refuse, wrong.Rule, wrong.Basis = userWrongPassword, checkAuthenticated, true, "a request with a wrong password is refused", basisAuthentication
			g.ask(1, owner, wrong, none, owner)
		}
		if g.askOther {
			other := fetch
			other.User, other.Question, other.Refuse, other.Rule, other.Basis = userOther, checkTenancy, true, "another application's "+kindOf(role)+" is not found", basisTenancy
			g.ask(1, owner, other)
		}
	}
	switch st.Op {
	case "authorizations.create":
		if a := g.auths[st.Save]; a != nil && a.amount > 0 && g.offers("authorizations.capture") {
			// Two captures at once, each over half the amount: whatever a
			// server decides, their total never exceeds the amount.
			g.ask(1, Step{Op: "authorizations.capture", Method: "PUT", Path: "/authorizations/{" + st.Save + "}", Of: st.Save,
				Body: fmt.Sprintf(`{"capture_amount":%d}`, a.amount/2+1), Together: 2, Question: checkAtOnce, Rule: "the captures' total never exceeds the amount", Basis: basisCaptureTotal})
		}
	case "authorizations.capture":
		g.askCaptureTransfer(st.Of, true)
	case "authorizations.get":
		g.askCaptureTransfer(st.Of, false)
	case "subscription_enrollments.delete":
		if !g.offers("subscription_enrollments.get") || !g.offers("subscription_enrollments.update") {
			break
		}
		path := "/subscription/subscription_enrollments/{" + st.Of + "}"
		gone := Step{Of: st.Of, Question: checkGone, Refuse: true, Basis: basisGone}
		get, put := gone, gone
		get.Op, get.Method, get.Path, get.Rule = "subscription_enrollments.get", "GET", path, "a deleted enrollment is not found"
		put.Op, put.Method, put.Path, put.Body, put.Rule = "subscription_enrollments.update", "PUT", path, `{"nickname":"after delete"}`, "a deleted enrollment is not updated"
		// The list of all enrollments, walked to page.count: the deleted
		// one is not listed, and the count, checked against the items
		// walked, does not include it.
		list := gone
		list.Op, list.Method, list.Path, list.Refuse, list.Rule, list.Basis = "subscription_enrollments.list", "GET", "/subscription/subscription_enrollments", false, "a deleted enrollment is not listed", basisGoneList
		list.Walk = &walk{Kind: "enrollment", Limit: defaultPageSize, Items: "subscription_enrollments", Gone: []string{st.Of}}
		if g.offers(list.Op) {
			g.ask(rare, get, put, get, list)
		} else {
			g.ask(rare, get, put, get)
		}
	}
	g.queueEventQuestion(st)
	if st.Op == "subscription_amounts.create" && st.Save != "" && g.offers("subscription_amounts.update") {
		// Two updates of one amount at once (its body drawn when asked).
		a := g.amounts[st.Save]
		if a != nil && !a.updated && !a.produced {
			g.ask(rare, Step{Op: "subscription_amounts.update", Method: "PATCH", Of: st.Save, Together: 2, Question: checkAtOnce,
				Path: "/subscription/subscription_schedules/{" + a.schedule + "}/subscription_amounts/{" + st.Save + "}"})
		}
	}
	if st.Method == "POST" && st.Save != "" && g.merchantMay != nil && !g.merchantMay(st.Op) && g.offers(st.Op) {
		// The same create as the merchant user, on an operation the
		// profile's roles (operation_roles, or the table's) reserve for
		// the platform; its own idempotency_id.
		again := Step{Op: st.Op, Method: st.Method, Path: st.Path, Body: g.freshIdempotency(st.Body), ContentType: st.ContentType, User: userMerchant,
			Question: checkRole, Rule: "the merchant role may not call " + st.Op, Basis: assumed("operation_roles", "5")}
		g.ask(rare, again)
	}
	if (st.Op == "authorizations.create" || st.Op == "transfers.create") && strings.Contains(st.Body, `"idempotency_id"`) {
		// The same create twice at once under a new idempotency_id: where
		// the profile says ids replay, both answers are one resource.
		twice := Step{Op: st.Op, Method: st.Method, Path: st.Path, Body: g.freshIdempotency(st.Body), ContentType: st.ContentType,
			Together: 2, Question: checkAtOnce, Rule: "creates with one idempotency_id at once make one resource", Basis: assumed("idempotency_replay", "2.1", "2.2")}
		g.ask(1, twice)
	}
	if (st.Op == "authorizations.create" || st.Op == "transfers.create") && g.askOther && strings.Contains(st.Body, `"idempotency_id"`) {
		// The same create as the other application, its idempotency_id
		// included: its create is its own (here refused: the card is not
		// its), never the first application's resource.
		again := Step{Op: st.Op, Method: st.Method, Path: st.Path, Body: st.Body, ContentType: st.ContentType, User: userOther,
			Question: checkTenancy, Refuse: true, Rule: "another application's create with the same idempotency_id is its own, never this application's " + kindOf(st.Save), Basis: basisTenancy}
		g.ask(1, again)
	}
}

// How often a question is asked: the queued questions, each as often as
// its weight, are drawn against noQuestion for none. A question of what
// most steps make (a fetch without credentials, as the other application)
// weighs 1; one of what few steps make (a delete, a webhook, an amount, a
// balance transfer) weighs rare, so a run of a few thousand requests asks
// each several times. Questions take the place of actions: asked more
// often, they cost the sequences their depth (the boundaries reached) and
// those sent at once end their sequence.
const (
	noQuestion = 20
	rare       = 6
)

// ask queues a question of weight w.
func (g *generator) ask(w int, steps ...Step) {
	for range w {
		g.asks = append(g.asks, steps)
	}
}

// asked draws one of the queued questions, or none (below noQuestion,
// 0 the simplest), and empties the queue: a question is asked right after
// what it asks about.
func (g *generator) asked() []Step {
	qs := g.asks
	g.asks = nil
	if len(qs) == 0 {
		return nil
	}
	k := g.c.draw(noQuestion + len(qs))
	if k < noQuestion {
		return nil
	}
	q := qs[k-noQuestion]
	if len(q) == 1 && q[0].Together > 0 && q[0].Body == "" {
		// A body drawn now, within the action's draws: an update of an amount.
		st := q[0]
		g.fill(&st, g.amountFixes(st.Op))
		if st.Refuse {
			return nil
		}
		return []Step{st}
	}
	return q
}

// freshIdempotency is body with its idempotency_id (if any) a new one.
func (g *generator) freshIdempotency(body string) string {
	old := sentIdempotencyID(body)
	if old == "" {
		return body
	}
	return withIdempotencyID(body, old, g.idempotencyID())
}

// fetchOf is the owner's fetch of a role the sequence made ("" and the
// fixtures: none), where the target offers it.
func (g *generator) fetchOf(role string) (Step, bool) {
	if role == "" || g.deleted[role] || strings.HasPrefix(role, "fixture:") {
		return Step{}, false
	}
	var st Step
	switch kindOf(role) {
	case "card":
		st = Step{Op: "payment_instruments.get", Method: "GET", Path: "/payment_instruments/{" + role + "}", Of: role}
	case "sale":
		st = Step{Op: "transfers.get", Method: "GET", Path: "/transfers/{" + role + "}", Of: role}
	case "balance transfer":
		st = Step{Op: "balance_transfers.get", Method: "GET", Path: "/balance_transfers/{" + role + "}", Of: role}
	case "merchant", "plain merchant":
		return Step{}, false
	default:
		var ok bool
		if st, ok = g.readBack(role); !ok {
			return Step{}, false
		}
	}
	return st, g.offers(st.Op)
}

// opNormative reports whether the spec names the operation (judging.json).
func (g *generator) opNormative(op string) bool {
	return g.normative != nil && g.normative(op)
}

// asking tells the sequence's generator what its questions may use: the
// other application's user where both sides have one, and which
// operations the spec names.
func (r *runner) asking(g *generator, target, model *side) {
	g.askOther = target.credential(userOther) != nil && model.credential(userOther) != nil
	g.normative = func(id string) bool {
		op, ok := r.v.Operation(id)
		return ok && judging.OperationBasis(op).Normative()
	}
	if target.credential(userMerchant) != nil && model.credential(userMerchant) != nil {
		g.merchantMay = func(id string) bool {
			op, ok := r.v.Operation(id)
			return !ok || id == "merchants.update" || slices.Contains(r.profile.Roles(op), "ROLE_MERCHANT")
		}
	}
}

// question sends a question's step and judges a refusal it breaks by the
// question's own check and basis: the rule is about the credentials, the
// application or the resource's life, not about the body, so the request
// schema's basis does not apply to it. Its requests count in no coverage
// table (count is dropped): they repeat what the sequence sent, and their
// refusals (a 401 without credentials) are no boundary of the contract's
// input the coverage measures.
func (r *runner) question(ctx context.Context, st Step, target, model *side, secrets *[]string, _ bool) (*Finding, []Exchange, bool, error) {
	const count = false
	if st.Together > 1 {
		return r.together(ctx, st, target, model, *secrets, count)
	}
	if st.Await != nil {
		return r.awaitEvent(ctx, st, target)
	}
	check := st.Question
	st.Question = ""
	if check == checkRole {
		return r.roleQuestion(ctx, st, target, model, secrets, count)
	}
	f, exs, ok, err := r.step(ctx, st, target, model, secrets, count)
	if f == nil || err != nil || !st.Refuse || f.Check != checkForbidden || len(exs) == 0 {
		return f, exs, ok, err
	}
	tex := exs[len(exs)-1]
	return r.finding(check, st, st.Basis, fmt.Sprintf("%s %s as %s was accepted with %d; %s", st.Method, tex.Path, userPhrase(st.User), tex.Status, st.Rule),
		"a 4xx refusal", fmt.Sprintf("status %d", tex.Status), "the request is refused"), exs, ok, err
}

// roleQuestion sends the merchant user's request on an operation the
// profile reserves for the platform: the model (the reference) decides by
// its own roles, so its verdict does not speak for the target; the
// target's acceptance is judged by the profile's roles, a WARN under
// operation_roles (§5 item 6: which roles may call which endpoints, not
// shown).
func (r *runner) roleQuestion(ctx context.Context, st Step, target, model *side, secrets *[]string, count bool) (*Finding, []Exchange, bool, error) {
	f, exs, ok, err := r.step(ctx, st, target, model, secrets, count)
	if err != nil || len(exs) == 0 || (f != nil && f.Check != checkForbidden) {
		return f, exs, ok, err
	}
	tex := exs[len(exs)-1]
	if !is2xx(tex.Status) {
		// Refused as the profile says. Where the model took it, it made a
		// resource the sequence names nowhere (the step saves no role):
		// the states the sequence goes on with still agree.
		return nil, exs, true, nil
	}
	return r.finding(checkRole, st, st.Basis, fmt.Sprintf("%s %s as the merchant user was accepted with %d; the profile's roles reserve %s for the platform", st.Method, tex.Path, tex.Status, st.Op),
		"a 4xx refusal", fmt.Sprintf("status %d", tex.Status), "the request is refused"), exs, false, nil
}

// userPhrase names who sent a request in a finding's message.
func userPhrase(user string) string {
	switch user {
	case userNone:
		return "a client without credentials"
	case userWrongPassword:
		return "the platform user with a wrong password"
	case "":
		return "the platform user"
	}
	return "the " + user + " user"
}

// together sends st Together times to the target at once, and one after
// the other to the model (what a server serialising them answers), and
// judges the answers by the rule that bounds their outcome: the captures'
// total within the authorization's amount. Each answer is judged too for a
// 5xx, a secret and the error envelope. The sequence ends there: the
// model cannot tell which of the target's requests took effect.
func (r *runner) together(ctx context.Context, st Step, target, model *side, secrets []string, count bool) (*Finding, []Exchange, bool, error) {
	defer r.phases.enter(phaseWrite, writeKinds(st)...)()
	mok := 0
	for range st.Together {
		mex, err := model.send(ctx, st, st.Path)
		if err != nil {
			return nil, nil, false, err
		}
		if is2xx(mex.Status) {
			mok++
		}
	}
	routed := r.routed(st)
	texs := make([]Exchange, st.Together)
	errs := make([]error, st.Together)
	var wg sync.WaitGroup
	for i := range texs {
		wg.Go(func() { texs[i], errs[i] = target.send(ctx, routed, routed.Path) })
	}
	wg.Wait()
	r.requests.Add(int64(len(texs)))
	r.sent.note(st.Op, st.Body)
	var exs []Exchange
	for i, tex := range texs {
		if errs[i] != nil {
			r.phases.noteUnanswered(writeKinds(st)...)
			return nil, exs, false, errs[i]
		}
		if count {
			r.coverage.add(st, tex)
		}
		exs = append(exs, tex)
	}
	var total int64
	accepted := 0
	each, _ := lookupInt(decodeBody(st.Body), "capture_amount")
	for i, tex := range texs {
		if tex.Status >= 500 {
			return r.finding(checkServerError, st, basisServerError, fmt.Sprintf("%s %s, sent %d at once, answered %d", st.Method, tex.Path, st.Together, tex.Status),
				"no 5xx", fmt.Sprintf("status %d", tex.Status), "the request is refused"), moveLast(exs, i), false, nil
		}
		if f := r.secretsIn(st, tex, secrets); f != nil {
			return f, moveLast(exs, i), false, nil
		}
		if is4xx(tex.Status) {
			if err := r.validateAnswer("error", tex); err != nil {
				return r.finding(checkEnvelope, st, basisEnvelope, fmt.Sprintf("the %d refusal is not the §7 error envelope: %v", tex.Status, err),
					"the §7 envelope", firstLine(tex.Response), "the request is refused"), moveLast(exs, i), false, nil
			}
		}
		if is2xx(tex.Status) {
			accepted++
			total += each
		}
	}
	switch st.Op {
	case "authorizations.capture":
		amount, known := lookupInt(target.docs[st.Of], "amount")
		if known && total > amount {
			return r.finding(checkAtOnce, st, basisCaptureTotal,
				fmt.Sprintf("%d captures of the %s sent at once were all accepted: %d captured of an amount of %d", accepted, st.Of, total, amount),
				fmt.Sprintf("at most %d captured", amount), fmt.Sprintf("%d captured", total), "the request is refused"), exs, false, nil
		}
	case "subscription_amounts.update":
		// §3.2 bounds an updated amount's own updates, not its original's:
		// one update of two at once is the reference's rule.
		b := assumed("reference_rules", "3.2")
		if accepted > mok && !r.declaredOtherwise(b.Assumed) {
			return r.finding(checkAtOnce, st, b, fmt.Sprintf("%d updates of the %s sent at once were accepted; one after the other, %d is", accepted, st.Of, mok),
				fmt.Sprintf("%d accepted", mok), fmt.Sprintf("%d accepted", accepted), "the request is refused"), exs, false, nil
		}
	case "authorizations.create", "transfers.create":
		ids := map[string]bool{}
		for _, tex := range texs {
			if id, _ := lookup(tex.doc, "id"); is2xx(tex.Status) && id != nil {
				ids[fmt.Sprint(id)] = true
			}
		}
		if len(ids) > 1 && !r.declaredOtherwise(st.Basis.Assumed) {
			return r.finding(checkAtOnce, st, st.Basis, fmt.Sprintf("%d creates with one idempotency_id sent at once made %d resources", st.Together, len(ids)),
				"one resource", fmt.Sprintf("%d resources", len(ids)), "the request succeeds"), exs, false, nil
		}
	}
	return nil, exs, false, nil
}

// decodeBody is a step's JSON body (nil when it is none).
func decodeBody(body string) any {
	dec := json.NewDecoder(strings.NewReader(body))
	dec.UseNumber()
	var doc any
	if dec.Decode(&doc) != nil {
		return nil
	}
	return doc
}

// moveLast is exs with its i-th exchange last: a finding's request ends
// its trace.
func moveLast(exs []Exchange, i int) []Exchange {
	out := append(append(append([]Exchange(nil), exs[:i]...), exs[i+1:]...), exs[i])
	return out
}

// questionCredential is the credential a question's user sends: none, or
// the platform user's name with a wrong password.
func questionCredential(cfg Target, user string) (*User, bool) {
	switch user {
	case userNone:
		return nil, true
	case userWrongPassword:
		if p := cfg.Users.Platform; p != nil {
			return &User{Username: p.Username, Password: wrongPassword}, true
		}
		return nil, true
	}
	return nil, false
}

// gherkinUser is the suite's steps that act as user.
func gherkinUser(user string) string {
	switch user {
	case userNone:
		return "    Given I send no credentials\n"
	case userWrongPassword:
		return "    Given I am the platform user\n    And I send a wrong password\n"
	}
	return fmt.Sprintf("    Given I am the %s user\n", user)
}

// curlUser is the -u option of a curl line acting as user ("" for none).
func curlUser(user string) string {
	switch user {
	case userNone:
		return ""
	case userWrongPassword:
		return ` -u "$CONFORM_USER:` + wrongPassword + `"`
	case userMerchant:
		return ` -u "$CONFORM_MERCHANT_USER:$CONFORM_MERCHANT_PASSWORD"`
	case userOther:
		return ` -u "$CONFORM_OTHER_USER:$CONFORM_OTHER_PASSWORD"`
	}
	return ` -u "$CONFORM_USER:$CONFORM_PASSWORD"`
}
