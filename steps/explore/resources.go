package explore

import (
	"unicode/utf8"

	"github.com/conform-kit/conform/validate/judging"
)

// The other resources' actions: webhooks, subscription schedules,
// amounts and enrollments, evidence, balance transfers, files and links,
// and reads as another application.

// webhookURL draws a url pointing at the explorer's receiver, short, at
// the url leaf's maxLength or one past it.
func (g *generator) webhookURL(op string) func() any {
	leaf := g.con.leaf(op, "url")
	return func() any {
		u := g.hookBase + "/explore/"
		n := 40
		if leaf != nil && leaf.MaxLength > 0 {
			n = pick(g.c, 40, leaf.MaxLength, leaf.MaxLength+1)
		}
		pad := pick(g.c, 'a', 'é') // é: at the limit in characters, over it in bytes
		for utf8.RuneCountInString(u) < n {
			u += string(pad)
		}
		return u
	}
}

func (g *generator) createWebhook() Step {
	st := Step{Op: "webhooks.create", Method: "POST", Path: "/webhooks", Save: g.newRole("webhook")}
	doc := g.fill(&st, map[string]func() any{"url": g.webhookURL(st.Op)})
	if st.Refuse {
		st.Of = "webhooks"
		return st
	}
	expectSent(&st, doc, basisWebhook, "url", "enabled")
	return st
}

func (g *generator) updateWebhook() Step {
	r := g.any("webhook")
	st := Step{Op: "webhooks.update", Method: "PUT", Path: "/webhooks/{" + r + "}", Of: r}
	url := g.webhookURL(st.Op)
	doc := g.fill(&st, map[string]func() any{"url": func() any {
		if g.c.draw(2) == 0 {
			return absent
		}
		return url()
	}})
	if !st.Refuse {
		expectSent(&st, doc, basisWebhook, "url", "enabled")
	}
	return st
}

func (g *generator) createSchedule() Step {
	st := Step{Op: "subscription_schedules.create", Method: "POST", Path: "/subscription/subscription_schedules", Save: g.newRole("schedule")}
	doc := g.fill(&st, nil)
	if !st.Refuse {
		expectSent(&st, doc, assumed("extensions"), "nickname")
	}
	return st
}

// amountFixes put a subscription amount's amount where the profile's form
// has it (where the profile keeps the contract's default, which takes
// both, now and then in the other form).
func (g *generator) amountFixes(op string) map[string]func() any {
	top := g.profile.SubscriptionAmountUpdateForm == judging.AmountUpdateTopLevel
	if g.profile.SubscriptionAmountUpdateForm == g.con.defaults.SubscriptionAmountUpdateForm && g.c.bias(2, 80) == 1 {
		top = !top
	}
	in, out := "fee_amount_data.amount", "amount"
	if top {
		in, out = out, in
	}
	return map[string]func() any{in: g.amountFix(op, in), out: fixed(absent)}
}

func (g *generator) createAmount() Step {
	s := g.any("schedule")
	st := Step{Op: "subscription_amounts.create", Method: "POST", Path: "/subscription/subscription_schedules/{" + s + "}/subscription_amounts", Save: g.newRole("amount"), Of: s}
	g.fill(&st, g.amountFixes(st.Op))
	return st
}

func (g *generator) updateAmount() Step {
	r := g.any("amount")
	a := g.amounts[r]
	st := Step{Op: "subscription_amounts.update", Method: "PATCH", Path: "/subscription/subscription_schedules/{" + a.schedule + "}/subscription_amounts/{" + r + "}", Of: r, Save: g.newRole("amount")}
	g.fill(&st, g.amountFixes(st.Op))
	// The fixture amount another sequence may have updated already.
	st.Shared = r == fixtureAmount
	switch {
	case a.produced:
		refuse(&st, "an amount an update produced is not updated again", saying(basisOf("3.2", "7"), "the updated Subscription Amount cannot itself be updated more than once"))
	case a.updated:
		// The original of an update refusing a second one is the
		// reference's rule (subscriptions.feature: @profile-reference_rules).
		refuse(&st, "an amount already updated is not updated a second time", assumed("reference_rules", "3.2"))
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
	// A body without merchant is refused under reference_rules: §4.5 does
	// not say which fields are required (judging.json's assumed rule of
	// subscription_enrollment_create; fill judges by it).
	doc := g.fill(&st, map[string]func() any{"merchant": fixed("{fixture:merchant}")})
	if !st.Refuse {
		expectSent(&st, doc, basisEnroll, "nickname")
	}
	return st
}

func (g *generator) updateEnrollment() Step {
	r := g.any("enrollment")
	st := Step{Op: "subscription_enrollments.update", Method: "PUT", Path: "/subscription/subscription_enrollments/{" + r + "}", Of: r}
	doc := g.fill(&st, nil)
	if !st.Refuse {
		// §4.5: "The fields that may be updated: not shown". That the
		// nickname sent reads back is the reference's choice
		// (resource_values); that the enrollment the update answered is the
		// one a later fetch shows is §4.5's (the update and the fetch both
		// answer the Subscription Enrollment object, §2.6).
		expectSent(&st, doc, assumed(keyFieldNotShown, "2.6", "4.5"), "nickname")
		st.Answered = []expectField{{Path: "nickname", Check: checkReadBack, Basis: saying(basisOf("2.6", "4.5"), "the update and a later fetch both answer the Subscription Enrollment object")}}
	}
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
	name := pick(g.c, "evidence.pdf", "évidence 日本 😀.pdf", "O'Brien's evidence.pdf")
	ctype, body := multipart(name, "%PDF-1.4 explore evidence")
	return Step{Op: "dispute_evidence.create", Method: "POST", Path: "/disputes/{fixture:dispute}/evidence", ContentType: ctype, Body: body, Save: g.newRole("evidence")}
}

func (g *generator) createBalanceTransfer() Step {
	st := Step{Op: "balance_transfers.create", Method: "POST", Path: "/balance_transfers", Save: g.newRole("balance transfer")}
	doc := g.fill(&st, nil)
	if !st.Refuse {
		expectSent(&st, doc, saying(basisOf("2.9"), "amount: integer cents of the Balance Transfer"), "amount")
	}
	return st
}

func (g *generator) createFile() Step {
	st := Step{Op: "files.create", Method: "POST", Path: "/files", Save: g.newRole("file")}
	doc := g.fill(&st, map[string]func() any{"linked_to": fixed("{fixture:merchant}"), "display_name": func() any {
		if g.c.bias(2, 90) == 1 {
			return "reject-explore.pdf" // the reference's sandbox trigger of a REJECTED file
		}
		return g.validValue(g.con.leaf("files.create", "display_name"))
	}})
	if st.Refuse {
		st.Of = "files"
		return st
	}
	expectSent(&st, doc, assumed("file_payloads", "2.11"), "display_name")
	return st
}

func (g *generator) uploadFile() Step {
	r := g.any("file")
	ctype, body := multipart("doc.pdf", "%PDF-1.4 explore upload")
	return Step{Op: "files.upload", Method: "POST", Path: "/files/{" + r + "}/upload", ContentType: ctype, Body: body, Of: r}
}

func (g *generator) createLink() Step {
	r := g.any("file")
	st := Step{Op: "files.external_links.create", Method: "POST", Path: "/files/{" + r + "}/external_links", Of: r, Save: g.newRole("external link")}
	doc := g.fill(&st, nil)
	typ, _ := doc["type"].(string)
	g.linkType[st.Save] = typ
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
			if st.Walk != nil {
				st.Walk.Other = true
			}
			return st
		}
		r := g.any("webhook")
		return Step{Op: "webhooks.get", Method: "GET", Path: "/webhooks/{" + r + "}", User: userOther, Refuse: true, Rule: "another application's webhook is not found", Basis: tenancy}
	}
	r := g.any("card")
	return Step{Op: "payment_instruments.get", Method: "GET", Path: "/payment_instruments/{" + r + "}", User: userOther, Refuse: true, Rule: "another application's card is not found", Basis: tenancy}
}
