package explore

import (
	"encoding/json"
	"math/big"
	"net/url"
	"slices"
	"strings"

	"github.com/conform-kit/conform/validate"
	"github.com/conform-kit/conform/validate/judging"
)

// The actions of the resource graph. Each builds one request from the
// choice stream; what the contract says of it (refused or not, and on what
// basis) is written beside the value that decides it.

var (
	basisCard    = saying(basisOf("2.3"), "a field of the card the body table (§4.3) and the Payment Instrument table both show reads back as sent")
	basisAuth    = saying(basisOf("2.1"), "a field of the authorization the body table (§4.1) and the Authorization table both show reads back as sent")
	basisSale    = saying(basisOf("2.2"), "a field of the sale the body table (§4.2) and the Transfer table both show reads back as sent")
	basisWebhook = saying(basisOf("2.10"), "a field of the webhook the body table (§4.9) and the Webhook table both show reads back as sent")
	basisL23     = saying(basisOf("2.4", "4.4"), "level_two_level_three_data_enabled: true enables Level 2/Level 3 processing")
	basisEnroll  = saying(basisOf("2.6"), "a field of the enrollment the create (§4.5) and the Subscription Enrollment table both show reads back as sent")
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
			r := g.downloadable()
			if !g.uploaded[r] && len(g.roles["file"])%2 == 1 {
				// No file of the sequence has content: upload this one
				// first, in the same action, so that downloads succeed
				// (few sequences upload, and fewer download after it);
				// with an even number of files made, the download of one
				// without content is asked as it is (a refusal). No draw
				// is taken either way: the later draws keep their meaning.
				ctype, body := multipart("doc.pdf", "%PDF-1.4 explore upload")
				g.before = append(g.before, Step{Op: "files.upload", Method: "POST", Path: "/files/{" + r + "}/upload", ContentType: ctype, Body: body, Of: r})
			}
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

// fixed is a value an action decides for a path of its body.
func fixed(v any) func() any { return func() any { return v } }

// fill draws st's body from its operation's request schema and writes
// what the contract says of it: refused when the validator refuses it (on
// the request schema's basis), and the fields it sends at their maxLength.
func (g *generator) fill(st *Step, fixes map[string]func() any, keep ...string) map[string]any {
	return g.filled(st, g.body(st.Op, fixes, keep...))
}

// fillValid is fill with no leaf mutated (unless the step is a probe):
// a body meant to be accepted.
func (g *generator) fillValid(st *Step, fixes map[string]func() any, keep ...string) map[string]any {
	return g.filled(st, g.draft(st.Op, 0, fixes, keep...))
}

// filled sets st's body to d's and what the contract says of it.
func (g *generator) filled(st *Step, d drafted) map[string]any {
	st.Body = encodeBody(d.doc)
	if d.err != nil {
		// Each violation by judging.json: an amount past 2^63−1 breaks the
		// reference's representation, not a rule of the spec (an assumed
		// rule of the schema, reference_rules).
		st.Refuse, st.Rule, st.Basis = true, "the body breaks the request schema at "+violation(d.err), g.con.bodyBasis(st.Op, d.err)
		return d.doc
	}
	st.AtLimit = g.con.atLimit(st.Op, d.doc)
	st.Allowed = g.con.statedForms(st.Op, d.doc)
	return d.doc
}

// refuse marks st refused by a rule the schemas cannot state, unless it
// is already refused on a normative basis (a rule of the spec broken too
// makes accepting it a FAIL).
func refuse(st *Step, rule string, b judging.Basis) {
	if !st.Refuse || (!st.Basis.Normative() && b.Normative()) {
		st.Refuse, st.Rule, st.Basis = true, rule, b
	}
}

// expectSent expects each listed path that doc sends as a scalar to read
// back as sent; a path ending in ".*" expects every entry of the map there.
func expectSent(st *Step, doc map[string]any, b judging.Basis, paths ...string) {
	for _, p := range paths {
		if m, ok := strings.CutSuffix(p, ".*"); ok {
			mv, _ := validate.FieldAt(doc, m)
			entries, _ := mv.(map[string]any)
			keys := make([]string, 0, len(entries))
			for k := range entries {
				if !strings.Contains(k, ".") {
					keys = append(keys, k)
				}
			}
			slices.Sort(keys)
			for _, k := range keys {
				if v, ok := expectValue(entries[k]); ok {
					st.Expect = append(st.Expect, expectField{Path: m + "." + k, Value: v, Check: checkReadBack, Basis: b})
				}
			}
			continue
		}
		raw, ok := validate.FieldAt(doc, p)
		if !ok {
			continue
		}
		if v, ok := expectValue(raw); ok {
			st.Expect = append(st.Expect, expectField{Path: p, Value: v, Check: checkReadBack, Basis: b})
		}
	}
}

// expectValue is a sent scalar as an expectation holds it.
func expectValue(v any) (any, bool) {
	switch x := v.(type) {
	case string, bool, nil:
		return x, true
	case json.Number:
		return intOfNumber(x)
	}
	return nil, false
}

// intAt reads an integer a drawn body holds at path.
func intAt(doc map[string]any, path string) (int64, bool) {
	v, ok := validate.FieldAt(doc, path)
	if !ok {
		return 0, false
	}
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	return intOfNumber(n)
}

// intOfNumber reads an integral JSON number, in any notation ("1e3" is 1000).
func intOfNumber(n json.Number) (int64, bool) {
	if i, err := n.Int64(); err == nil {
		return i, true
	}
	f, _, err := big.ParseFloat(string(n), 10, 128, big.ToNearestEven)
	if err != nil || !f.IsInt() {
		return 0, false
	}
	i, acc := f.Int64()
	return i, acc == big.Exact
}

// walkOf starts a list walk with a page size drawn from the list query's
// limit (20, the default, first) and a sort (the default order first,
// then one sortable field in either direction, then two), or now and then
// reads one page with a query parameter one step outside the list query's
// keywords.
func (g *generator) walkOf(op, path, kind, items string) Step {
	q := g.con.query
	limit := 20
	if g.c.draw(2) == 1 {
		n, _ := g.drawNumber(q.prop("limit")).Int64()
		limit = int(n)
	}
	var roles []string
	if kind != "" {
		roles = g.alive(kind)
	}
	query := sortQuery(g.drawSort(items))
	follow, whole := g.c.draw(4) == 3, g.c.draw(4) == 3
	st := Step{Op: op, Method: "GET", Path: path, Walk: &walk{Kind: kind, Roles: roles, Limit: limit, Items: items, Query: query, Follow: follow, Whole: whole}}
	if max := g.profile.ListMaxLimit; max > 0 && g.c.bias(8, 90) == 7 {
		st.Walk.Limit = max + 1 // over the declared maximum: refused or clamped, as the profile says
	}
	if g.c.draw(100) >= 100-mutationShare/3 {
		// One page with a parameter outside the query's keywords.
		p := q.Props[g.c.draw(len(q.Props))]
		v := g.mutant(p)
		if v == absent || v == nil {
			v = "" // a parameter is absent or empty, never null
		}
		text := strings.Trim(renderJSON(v), `"`)
		st = Step{Op: op, Method: "GET", Path: path + "?" + p.Name + "=" + url.QueryEscape(text)}
		if !queryAllows(p, text) {
			st.Refuse, st.Rule, st.Basis = true, "the list query's "+p.Name+" is an integer within its bounds", assumed("reference_rules", "4.10")
		}
	}
	return st
}

// queryAllows reports whether a query parameter's text is an integer
// within the leaf's bounds.
func queryAllows(p *shape, text string) bool {
	n, ok := new(big.Int).SetString(text, 10)
	if !ok || (p.Min != nil && n.Cmp(p.Min) < 0) || (p.Max != nil && n.Cmp(p.Max) > 0) {
		return false
	}
	return true
}
