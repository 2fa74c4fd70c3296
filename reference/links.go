package reference

// link is one _links entry; href is always absolute.
type link struct {
	Href string `json:"href"`
}

type links map[string]link

// The views: a record copy plus its _links, built from the request's base URL.

type authorizationView struct {
	authorization
	Links links `json:"_links"`
}

func viewAuthorization(base string, a authorization) authorizationView {
	l := links{
		"self":              {base + "/authorizations/" + a.ID},
		"application":       {base + "/applications/" + a.Application},
		"merchant_identity": {base + "/identities/" + a.MerchantIdentity},
	}
	if a.Transfer != nil {
		l["transfer"] = link{base + "/transfers/" + *a.Transfer}
	}
	return authorizationView{a, l}
}

type transferView struct {
	transfer
	Links links `json:"_links"`
}

func viewTransfer(base, feeProfile string, t transfer) transferView {
	l := links{
		"application":         {base + "/applications/" + t.Application},
		"merchant_identity":   {base + "/identities/" + t.MerchantIdentity},
		"payment_instruments": {base + "/transfers/" + t.ID + "/payment_instruments"},
		"fee_profile":         {base + "/fee_profiles/" + feeProfile},
	}
	if t.Source != nil {
		l["source"] = link{base + "/payment_instruments/" + *t.Source}
	}
	if t.adjustment != nil {
		l["disputed_transfer"] = link{base + "/transfers/" + t.adjustment.disputedTransfer}
	} else {
		l["self"] = link{base + "/transfers/" + t.ID}
		l["reversals"] = link{base + "/transfers/" + t.ID + "/reversals"}
		l["fees"] = link{base + "/transfers/" + t.ID + "/fees"}
		l["disputes"] = link{base + "/transfers/" + t.ID + "/disputes"}
	}
	return transferView{t, l}
}

type paymentInstrumentView struct {
	paymentInstrument
	Links links `json:"_links"`
}

func viewPaymentInstrument(base string, p paymentInstrument) paymentInstrumentView {
	self := base + "/payment_instruments/" + p.ID
	return paymentInstrumentView{p, links{
		"self":           {self},
		"authorizations": {self + "/authorizations"},
		"transfers":      {self + "/transfers"},
		"verifications":  {self + "/verifications"},
		"application":    {base + "/applications/" + p.Application},
		"identity":       {base + "/identities/" + p.Identity},
		"updates":        {self + "/updates"},
	}}
}

type merchantView struct {
	merchant
	Links links `json:"_links"`
}

func viewMerchant(base string, m merchant) merchantView {
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
	subscriptionSchedule
	Links links `json:"_links"`
}

func viewSchedule(base string, s subscriptionSchedule) scheduleView {
	self := base + subscriptionBase + s.ID
	return scheduleView{s, links{
		"self":                     {self},
		"subscription_amounts":     {self + "/subscription_amounts"},
		"subscription_enrollments": {self + "/subscription_enrollments"},
	}}
}

type amountView struct {
	subscriptionAmount
	Links links `json:"_links"`
}

func viewAmount(base string, a subscriptionAmount) amountView {
	schedule := base + subscriptionBase + a.SubscriptionSchedule
	return amountView{a, links{
		"self":     {schedule + "/subscription_amounts/" + a.ID},
		"schedule": {schedule},
	}}
}

type enrollmentView struct {
	subscriptionEnrollment
	Links links `json:"_links"`
}

func viewEnrollment(base string, e subscriptionEnrollment) enrollmentView {
	schedule := base + subscriptionBase + e.SubscriptionSchedule
	return enrollmentView{e, links{
		"self":     {base + "/subscription/subscription_enrollments/" + e.ID},
		"merchant": {base + "/merchants/" + e.Merchant},
		"schedule": {schedule},
		"amounts":  {schedule + "/subscription_amounts"},
	}}
}

type disputeView struct {
	dispute
	Links links `json:"_links"`
}

func viewDispute(base string, d dispute) disputeView {
	self := base + "/disputes/" + d.ID
	return disputeView{d, links{
		"self":                 {self},
		"application":          {base + "/applications/" + d.Application},
		"transfer":             {base + "/transfers/" + d.Transfer},
		"evidence":             {self + "/evidence"},
		"adjustment_transfers": {self + "/adjustment_transfers"},
	}}
}

type evidenceView struct {
	evidence
	Links links `json:"_links"`
}

func viewEvidence(base string, e evidence) evidenceView {
	dispute := base + "/disputes/" + e.Dispute
	return evidenceView{e, links{
		"self":    {dispute + "/evidence/" + e.ID},
		"dispute": {dispute},
	}}
}

type balanceTransferView struct {
	balanceTransfer
	Links links `json:"_links"`
}

func viewBalanceTransfer(base string, b balanceTransfer) balanceTransferView {
	return balanceTransferView{b, links{"self": {base + "/balance_transfers/" + b.ID}}}
}

type fileView struct {
	file
	Links links `json:"_links"`
}

func viewFile(base string, f file) fileView {
	self := base + "/files/" + f.ID
	return fileView{f, links{
		"self":           {self},
		"external_links": {self + "/external_links"},
		"download":       {self + "/download"},
	}}
}

type externalLinkView struct {
	externalLink
	Links links `json:"_links"`
}

func viewExternalLink(base string, e externalLink) externalLinkView {
	file := base + "/files/" + e.FileID
	return externalLinkView{e, links{
		"self": {file + "/external_links/" + e.ID},
		"file": {file},
	}}
}

type webhookView struct {
	webhook
	Links links `json:"_links"`
}

// viewWebhook renders a single webhook, secret included.
func viewWebhook(base string, w webhook) webhookView {
	return webhookView{w, links{"application": {base + "/applications/" + w.Application}}}
}

// viewWebhookItem renders a list item: self link, no secret.
func viewWebhookItem(base string, w webhook) webhookView {
	w.SecretSigningKey = ""
	return webhookView{w, links{
		"self":        {base + "/webhooks/" + w.ID},
		"application": {base + "/applications/" + w.Application},
	}}
}
