package explore

import (
	"fmt"
	"slices"
	"strings"

	"github.com/conform-kit/conform/validate/judging"
)

// generator draws the steps of one sequence from the choice stream,
// following the resource graph: it knows which roles exist (as the model
// answered) and what each holds.
type generator struct {
	c        *choices
	con      *contract // the request schemas values are drawn from
	hookBase string    // where webhooks point
	seq      string    // sequence tag: idempotency ids and names unique per run and sequence
	profile  judging.Profile
	offers   func(op string) bool

	declineTrigger, disputeTrigger int64

	roles       map[string][]string // kind → roles, in creation order
	auths       map[string]*authState
	amounts     map[string]*amountState
	deleted     map[string]bool
	linkFile    map[string]string // external link role → its file's role
	linkType    map[string]string // external link role → its type
	refused     string            // the role a refused request named: read it next
	refusedBody string            // the body of that request
	updated     string            // the role an update changed: read it next
	enrolled    map[string]bool   // schedules the merchant is enrolled in
	uploaded    map[string]bool   // files with content: a download of one succeeds
	n           int               // idempotency ids drawn
	// pendingAuth and pendingCapture are what the last authorization or
	// capture drawn holds, kept when the model accepts it.
	pendingAuth    *authState
	pendingCapture int64
	// secrets are the security codes the sequence sent: no other value
	// drawn equals one, so one found in an answer is the code.
	secrets []string
	// force mutates every body drawn (a probe); lastErr is the validator's
	// verdict on the last body drawn.
	force   bool
	lastErr error
	// before are steps the last step drawn needs sent first, in the same
	// action (the state a refused merchant update would change).
	before []Step
	// asks are the questions the last step accepted may be asked next
	// (questions.go), askOther and normative what they may use.
	asks        [][]Step
	askOther    bool
	normative   func(op string) bool
	merchantMay func(op string) bool
}

type authState struct {
	amount, captured int64
	captures         int
	plain            bool           // for the merchant not enabled for Level 2/3 data
	data             map[string]any // its additional_purchase_data
}

type amountState struct {
	schedule          string
	updated, produced bool
}

// action is one kind of step with its precondition.
type action struct {
	name  string
	op    string // the operation it exercises (for --ops)
	ready func(g *generator) bool
	make  func(g *generator) Step
}

// weight favours the resource graph of payments over reads of fixtures.
func weight(op string) int {
	switch op {
	case "authorizations.capture":
		return 12 // most draws make the authorization it needs first
	case "payment_instruments.create", "authorizations.create", "transfers.create":
		return 6
	case "subscription_enrollments.create", "subscription_schedules.create", "files.external_links.create", "files.external_links.get":
		return 5
	case "files.external_upload":
		return 4
	case "subscription_amounts.update", "webhooks.update":
		return 4
	case "authorizations.get", "subscription_amounts.create", "webhooks.create",
		"subscription_enrollments.get", "subscription_enrollments.update", "subscription_enrollments.delete":
		return 3
	case "disputes.get", "disputes.list", "dispute_adjustment_transfers.list", "balance_transfers.get", "merchants.get", "dispute_evidence.list":
		return 1
	}
	return 2
}

// role returns the name of the next role of a kind: "card", "card b", ...
func (g *generator) newRole(kind string) string {
	n := len(g.roles[kind])
	if n == 0 {
		return kind
	}
	return fmt.Sprintf("%s %c", kind, 'a'+n)
}

// has reports whether a role of the kind exists.
func (g *generator) has(kind string) bool { return len(g.alive(kind)) > 0 }

func (g *generator) alive(kind string) []string {
	var out []string
	for _, r := range g.roles[kind] {
		if !g.deleted[r] {
			out = append(out, r)
		}
	}
	return out
}

// uploadedBy is the file role an accepted step gave content to: an upload,
// or a PUT to one of its external links; "" for any other step.
func uploadedBy(st Step, linkFile map[string]string) string {
	switch st.Op {
	case "files.upload":
		return st.Of
	case "files.external_upload":
		return linkFile[st.Of]
	}
	return ""
}

// downloadable draws a file to download: one with content where there is
// one (a download of a file without content is a refusal, and few files
// get an upload), with the one draw any takes, so the later draws of the
// sequence mean what they meant.
func (g *generator) downloadable() string {
	var rs []string
	for _, r := range g.alive("file") {
		if g.uploaded[r] {
			rs = append(rs, r)
		}
	}
	if len(rs) == 0 {
		return g.any("file")
	}
	return rs[len(rs)-1-g.c.draw(len(rs))]
}

// any draws one live role of the kind.
func (g *generator) any(kind string) string {
	rs := g.alive(kind)
	return rs[len(rs)-1-g.c.draw(len(rs))]
}

// observe records what the model answered to a step the target answered
// alike; ok is whether the target accepted it.
func (g *generator) observe(st Step, ok bool) {
	defer g.queueQuestions(st, ok)
	// The read-back of "a refused request changes nothing" (SameState) is
	// queued where the target refused the request, and only there: the
	// rule ("A request refused with a 4xx changes nothing", §7) binds the
	// server that answered the 4xx, the target, whose reads the check
	// compares. st.Refuse is the kit's expectation, not an answer:
	// a request the contract forbids that the target accepted (the model
	// too, or the sequence would have ended) changed what it named, and a
	// read-back judged as after a refusal would blame a refused request
	// for the change the target acknowledged.
	if !ok {
		if st.Of != "" && st.Method != "GET" {
			g.refused, g.refusedBody = st.Of, st.Body
		}
	} else if st.SameState && g.refused == st.Of {
		g.refused = ""
	}
	if !ok {
		return
	}
	if file := uploadedBy(st, g.linkFile); file != "" {
		if g.uploaded == nil {
			g.uploaded = map[string]bool{}
		}
		g.uploaded[file] = true
	}
	if st.Of != "" && st.Save == "" && (st.Method == "PUT" || st.Method == "PATCH") {
		g.updated = st.Of
	}
	if st.Save != "" {
		kind := kindOf(st.Save)
		g.roles[kind] = append(g.roles[kind], st.Save)
		switch kind {
		case "authorization":
			if g.pendingAuth != nil {
				g.auths[st.Save] = g.pendingAuth
			} else {
				g.auths[st.Save] = &authState{}
			}
		case "amount":
			sched := st.Of
			if prev, ok := g.amounts[st.Of]; ok {
				prev.updated = true
				sched = prev.schedule
				g.amounts[st.Save] = &amountState{schedule: sched, produced: true}
			} else {
				g.amounts[st.Save] = &amountState{schedule: sched}
			}
		}
	}
	switch st.Op {
	case "authorizations.capture":
		if a := g.auths[st.Of]; a != nil {
			a.captures++
			a.captured += g.pendingCapture
		}
	case "subscription_enrollments.delete":
		g.deleted[st.Of] = true
	case "subscription_enrollments.create":
		g.enrolled[st.Of] = true
	}
}

// Roles of the fixtures a sequence starts with when the target does not
// offer the operation that makes their kind: as placeholders of the
// suite's fixture table, they expand on each side to its own fixture.
const (
	fixtureSchedule = "fixture:subscription_schedule"
	fixtureAmount   = "fixture:subscription_amount"
)

// useFixtures starts the sequence with the fixtures (has: configured on
// both sides) of the kinds whose maker the target does not offer: a
// target without the subscription_schedules.create extension still offers
// the enrollments of its schedule, and the update of its amount, which the
// spec names. The run's sequences share the fixtures: what one changed,
// the next may find changed (Step.Shared).
func (g *generator) useFixtures(has func(key string) bool) {
	if g.offers("subscription_schedules.create") || !has("subscription_schedule") {
		return
	}
	g.roles["schedule"] = []string{fixtureSchedule}
	if !g.offers("subscription_amounts.create") && has("subscription_amount") {
		g.roles["amount"] = []string{fixtureAmount}
		g.amounts[fixtureAmount] = &amountState{schedule: fixtureSchedule}
	}
}

// kindOf is a role's kind: "card b" → "card".
func kindOf(role string) string {
	if i := strings.LastIndexByte(role, ' '); i > 0 && len(role)-i == 2 && role[i+1] >= 'b' && role[i+1] <= 'z' {
		return role[:i]
	}
	return role
}

// idempotencyID is unique per run, sequence and request.
func (g *generator) idempotencyID() string {
	g.n++
	return fmt.Sprintf("explore-%s-%d", g.seq, g.n)
}

// next draws one step (or the steps of a compound action). Its draws do
// not depend on the state: the read-back draw is always made, and the
// action is drawn from every action (weighted), moving on to the next ready
// one when it is not ready. So deleting an earlier action while shrinking
// leaves the later draws meaning what they meant.
func (g *generator) next(actions []action) []Step {
	readBack := g.c.draw(4) != 3
	if g.refused != "" && !g.deleted[g.refused] && readBack {
		if st, ok := g.readBack(g.refused); ok {
			g.refused = ""
			st.SameState, st.RefusedBody = true, g.refusedBody
			return []Step{st}
		}
	}
	if g.updated != "" && !g.deleted[g.updated] && readBack {
		role := g.updated
		g.updated = ""
		if st, ok := g.readBack(role); ok {
			return []Step{st}
		}
	}
	if q := g.asked(); q != nil {
		return q
	}
	var all []action
	for _, a := range actions {
		for range weight(a.op) {
			all = append(all, a)
		}
	}
	a := all[g.c.draw(len(all))]
	// An action not ready yet makes what it needs instead (a capture with no
	// authorization authorizes; one with no card makes a card).
	for range 4 {
		if a.ready(g) {
			return g.withProbe(a)
		}
		need, ok := prerequisite[a.op]
		if !ok {
			break
		}
		i := slices.IndexFunc(actions, func(x action) bool { return x.op == need })
		if i < 0 {
			break
		}
		a = actions[i]
	}
	for _, x := range actions {
		if x.ready(g) {
			return g.withBefore(x.make(g))
		}
	}
	return nil
}

// withProbe makes one step of a and (now and then, for an operation with
// a JSON body) up to two probes after it: the same action's body with one
// leaf mutated, kept only when its schema refuses it, so it changes
// nothing the sequence goes on with. The probes are drawn first, so the
// step's draws (an authorization's amount) are what the step holds.
func (g *generator) withProbe(a action) []Step {
	var out []Step
	if g.con.ops[a.op] != "" {
		// Up to two probes, each drawn from a stream of its own seeded by a
		// draw made whether or not it is sent: lowering a decision to 0
		// while shrinking drops the probe and leaves every later draw
		// meaning what it meant.
		for range 2 {
			sub, send := g.c.draw(1<<30), g.c.draw(100) >= 100-g.con.share[a.op]
			if !send {
				continue
			}
			main := g.c
			g.c, g.force = newChoices(uint64(sub)), true
			probe := a.make(g)
			g.c, g.force = main, false
			if g.lastErr != nil && probe.Refuse {
				probe.Save = ""
				out = append(out, probe)
			}
		}
	}
	// The step goes first: when the target parts from the model on it,
	// the sequence ends before its probes cost a request.
	return append(g.withBefore(a.make(g)), out...)
}

// withBefore is st after the steps its action set it to need first.
func (g *generator) withBefore(st Step) []Step {
	out := append(g.before, st)
	g.before = nil
	return out
}

// prerequisite is the operation that makes what an operation needs.
var prerequisite = map[string]string{
	"authorizations.capture": "authorizations.create", "authorizations.get": "authorizations.create",
	"authorizations.create": "payment_instruments.create", "transfers.create": "payment_instruments.create",
	"payment_instruments.get": "payment_instruments.create", "transfers.get": "transfers.create",
	"webhooks.update": "webhooks.create", "webhooks.get": "webhooks.create",
	"subscription_schedules.get": "subscription_schedules.create", "subscription_amounts.create": "subscription_schedules.create",
	"subscription_enrollments.create": "subscription_schedules.create", "subscription_enrollments.list_by_schedule": "subscription_schedules.create",
	"subscription_amounts.update": "subscription_amounts.create", "subscription_amounts.get": "subscription_amounts.create",
	"subscription_enrollments.get": "subscription_enrollments.create", "subscription_enrollments.update": "subscription_enrollments.create",
	"subscription_enrollments.delete": "subscription_enrollments.create", "dispute_evidence.get": "dispute_evidence.create",
	"files.get": "files.create", "files.upload": "files.create", "files.download": "files.create",
	"files.external_links.create": "files.create", "files.external_links.list": "files.create",
	"files.external_links.get": "files.external_links.create", "files.external_upload": "files.external_links.create",
}

// readBack is the GET of a role, when the target offers one.
func (g *generator) readBack(role string) (Step, bool) {
	kind := kindOf(role)
	switch kind {
	case "authorization":
		if g.offers("authorizations.get") {
			return Step{Op: "authorizations.get", Method: "GET", Path: "/authorizations/{" + role + "}", Of: role}, true
		}
	case "amount":
		if g.offers("subscription_amounts.get") {
			a := g.amounts[role]
			return Step{Op: "subscription_amounts.get", Method: "GET", Path: "/subscription/subscription_schedules/{" + a.schedule + "}/subscription_amounts/{" + role + "}", Of: role}, true
		}
	case "webhook":
		return Step{Op: "webhooks.get", Method: "GET", Path: "/webhooks/{" + role + "}", Of: role}, true
	case "enrollment":
		return Step{Op: "subscription_enrollments.get", Method: "GET", Path: "/subscription/subscription_enrollments/{" + role + "}", Of: role}, true
	case "merchant", "plain merchant":
		return Step{Op: "merchants.get", Method: "GET", Path: "/merchants/{fixture:" + fixtureOfMerchant(role) + "}", Of: role}, true
	case "file": // §4.8 names POST /files/:FILE_ID: to fetch a File; GET is the reference's (also_methods)
		return Step{Op: "files.get", Method: "POST", Path: "/files/{" + role + "}", Of: role}, true
	}
	return Step{}, false
}

func fixtureOfMerchant(role string) string {
	if role == "plain merchant" {
		return "plain_merchant"
	}
	return "merchant"
}

// basisOf builds a basis of clauses.
func basisOf(clauses ...string) judging.Basis { return judging.Basis{Clauses: clauses} }

// saying is b with the spec's words it rests on (judging.Basis.Says).
func saying(b judging.Basis, words string) judging.Basis {
	b.Says = words
	return b
}

// assumed builds an assumed basis.
func assumed(key string, clauses ...string) judging.Basis {
	return judging.Basis{Assumed: key, Clauses: clauses}
}

// actionsFor lists every action whose operation the target offers and
// the pattern selects.
func actionsFor(offers func(string) bool, selected func(string) bool) []action {
	var out []action
	for _, a := range allActions() {
		if offers(a.op) && selected(a.op) {
			out = append(out, a)
		}
	}
	return out
}
