package reference

import "github.com/conform-kit/conform/reference/ledger"

// link is one _links entry; href is always absolute.
type link struct {
	Href string `json:"href"`
}

type links map[string]link

// The views: a record copy plus its _links, built from the request's base URL.

// namedLink is one _links entry of a view that encodes itself: its href is
// the concatenation of its parts, written without building the string.
type namedLink struct {
	name string
	href [4]string
}

// The views of the hot resources (authorizations, transfers, payment
// instruments, disputes) keep the base URL and write their _links while encoding
// (appendjson.go), without building a map per response.

type authorizationView struct {
	ledger.Authorization
	base string
}

func viewAuthorization(base string, a ledger.Authorization) authorizationView {
	return authorizationView{a, base}
}

func (v *authorizationView) linkList(l []namedLink) []namedLink {
	a, base := &v.Authorization, v.base
	l = append(l,
		namedLink{"self", [4]string{base, "/authorizations/", a.ID}},
		namedLink{"application", [4]string{base, "/applications/", a.Application}},
		namedLink{"merchant_identity", [4]string{base, "/identities/", a.MerchantIdentity}},
	)
	if a.Transfer != nil {
		l = append(l, namedLink{"transfer", [4]string{base, "/transfers/", *a.Transfer}})
	}
	return l
}

type transferView struct {
	ledger.Transfer
	base, feeProfile string
}

func viewTransfer(base, feeProfile string, t ledger.Transfer) transferView {
	return transferView{t, base, feeProfile}
}

func (v *transferView) linkList(l []namedLink) []namedLink {
	t, base := &v.Transfer, v.base
	l = append(l,
		namedLink{"application", [4]string{base, "/applications/", t.Application}},
		namedLink{"merchant_identity", [4]string{base, "/identities/", t.MerchantIdentity}},
		namedLink{"payment_instruments", [4]string{base, "/transfers/", t.ID, "/payment_instruments"}},
		namedLink{"fee_profile", [4]string{base, "/fee_profiles/", v.feeProfile}},
	)
	if t.Source != nil {
		l = append(l, namedLink{"source", [4]string{base, "/payment_instruments/", *t.Source}})
	}
	if t.Adjustment != nil {
		return append(l, namedLink{"disputed_transfer", [4]string{base, "/transfers/", t.Adjustment.DisputedTransfer}})
	}
	return append(l,
		namedLink{"self", [4]string{base, "/transfers/", t.ID}},
		namedLink{"reversals", [4]string{base, "/transfers/", t.ID, "/reversals"}},
		namedLink{"fees", [4]string{base, "/transfers/", t.ID, "/fees"}},
		namedLink{"disputes", [4]string{base, "/transfers/", t.ID, "/disputes"}},
	)
}

type paymentInstrumentView struct {
	ledger.PaymentInstrument
	base string
}

func viewPaymentInstrument(base string, p ledger.PaymentInstrument) paymentInstrumentView {
	return paymentInstrumentView{p, base}
}

func (v *paymentInstrumentView) linkList(l []namedLink) []namedLink {
	p, base := &v.PaymentInstrument, v.base
	const self = "/payment_instruments/"
	return append(l,
		namedLink{"self", [4]string{base, self, p.ID}},
		namedLink{"authorizations", [4]string{base, self, p.ID, "/authorizations"}},
		namedLink{"transfers", [4]string{base, self, p.ID, "/transfers"}},
		namedLink{"verifications", [4]string{base, self, p.ID, "/verifications"}},
		namedLink{"application", [4]string{base, "/applications/", p.Application}},
		namedLink{"identity", [4]string{base, "/identities/", p.Identity}},
		namedLink{"updates", [4]string{base, self, p.ID, "/updates"}},
	)
}

type merchantView struct {
	ledger.Merchant
	Links links `json:"_links"`
}

func viewMerchant(base string, m ledger.Merchant) merchantView {
	self := base + "/merchants/" + m.ID
	return merchantView{m, links{
		"self":             {self},
		"identity":         {base + "/identities/" + m.Identity},
		"verifications":    {self + "/verifications"},
		"merchant_profile": {base + "/merchant_profiles/" + m.MerchantProfile},
		"application":      {base + "/applications/" + m.Application},
		"verification":     {base + "/verifications/" + m.Verification},
	}}
}

const subscriptionBase = "/subscription/subscription_schedules/"

type scheduleView struct {
	ledger.SubscriptionSchedule
	Links links `json:"_links"`
}

func viewSchedule(base string, s ledger.SubscriptionSchedule) scheduleView {
	self := base + subscriptionBase + s.ID
	return scheduleView{s, links{
		"self":                     {self},
		"subscription_amounts":     {self + "/subscription_amounts"},
		"subscription_enrollments": {self + "/subscription_enrollments"},
	}}
}

type amountView struct {
	ledger.SubscriptionAmount
	Links links `json:"_links"`
}

func viewAmount(base string, a ledger.SubscriptionAmount) amountView {
	schedule := base + subscriptionBase + a.SubscriptionSchedule
	return amountView{a, links{
		"self":     {schedule + "/subscription_amounts/" + a.ID},
		"schedule": {schedule},
	}}
}

type enrollmentView struct {
	ledger.SubscriptionEnrollment
	Links links `json:"_links"`
}

func viewEnrollment(base string, e ledger.SubscriptionEnrollment) enrollmentView {
	schedule := base + subscriptionBase + e.SubscriptionSchedule
	return enrollmentView{e, links{
		"self":     {base + "/subscription/subscription_enrollments/" + e.ID},
		"merchant": {base + "/merchants/" + e.Merchant},
		"schedule": {schedule},
		"amounts":  {schedule + "/subscription_amounts"},
	}}
}

type disputeView struct {
	ledger.Dispute
	base string
}

func viewDispute(base string, d ledger.Dispute) disputeView {
	return disputeView{d, base}
}

func (v *disputeView) linkList(l []namedLink) []namedLink {
	d, base := &v.Dispute, v.base
	return append(l,
		namedLink{"self", [4]string{base, "/disputes/", d.ID}},
		namedLink{"application", [4]string{base, "/applications/", d.Application}},
		namedLink{"transfer", [4]string{base, "/transfers/", d.Transfer}},
		namedLink{"evidence", [4]string{base, "/disputes/", d.ID, "/evidence"}},
		namedLink{"adjustment_transfers", [4]string{base, "/disputes/", d.ID, "/adjustment_transfers"}},
	)
}

type evidenceView struct {
	ledger.Evidence
	Links links `json:"_links"`
}

func viewEvidence(base string, e ledger.Evidence) evidenceView {
	dispute := base + "/disputes/" + e.Dispute
	return evidenceView{e, links{
		"self":    {dispute + "/evidence/" + e.ID},
		"dispute": {dispute},
	}}
}

// balanceTransferView writes its one link (self) itself: a list page of
// them builds no map per item.
type balanceTransferView struct {
	ledger.BalanceTransfer
	base string
}

func viewBalanceTransfer(base string, b ledger.BalanceTransfer) balanceTransferView {
	return balanceTransferView{b, base}
}

// linkList is the view's _links.
func (v balanceTransferView) linkList(buf []namedLink) []namedLink {
	return append(buf, namedLink{name: "self", href: [4]string{v.base, "/balance_transfers/", v.ID}})
}

type fileView struct {
	ledger.File
	Links links `json:"_links"`
}

func viewFile(base string, f ledger.File) fileView {
	self := base + "/files/" + f.ID
	return fileView{f, links{
		"self":           {self},
		"external_links": {self + "/external_links"},
		"download":       {self + "/download"},
	}}
}

type externalLinkView struct {
	ledger.ExternalLink
	Links links `json:"_links"`
}

func viewExternalLink(base string, e ledger.ExternalLink) externalLinkView {
	file := base + "/files/" + e.FileID
	return externalLinkView{e, links{
		"self": {file + "/external_links/" + e.ID},
		"file": {file},
	}}
}

type webhookView struct {
	ledger.Webhook
	Links links `json:"_links"`
}

// viewWebhook renders a single webhook, secret included.
func viewWebhook(base string, w ledger.Webhook) webhookView {
	return webhookView{w, links{"application": {base + "/applications/" + w.Application}}}
}

// viewWebhookItem renders a list item: self link, no secret.
func viewWebhookItem(base string, w ledger.Webhook) webhookView {
	w.SecretSigningKey = ""
	return webhookView{w, links{
		"self":        {base + "/webhooks/" + w.ID},
		"application": {base + "/applications/" + w.Application},
	}}
}
