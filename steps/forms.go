package steps

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/conform-kit/conform/validate/judging"
)

// Requests whose form is an assumed choice. The spec allows two forms of a
// few requests (two JSON media types; the argument table and the example
// name the authorization's merchant, or place a subscription amount's
// amount, differently) without saying which a server accepts. The kit builds
// such a request in the canonical form (the table's, with the declared media
// type), writes it in the form the target's profile declares, and, when the
// target refuses it in a way the form may explain, sends it once more in the
// other form. If that one is accepted (or refused for something else), the
// scenario goes on with it and the difference WARNs under the choice's
// profile key with the observed form, so --write-profile declares it. The
// rewrite only renames or moves what the request carries: a request that
// leaves out what a form names is never completed by the other form, and
// when both forms are refused for the form the declared one is judged.

// Profile keys of the request forms.
const (
	keyRequestContentType = "request_content_type"
	keyRequestMediaTypes  = "request_media_types"
	keyMerchantField      = "authorization_merchant_field"
	keyAmountUpdateForm   = "subscription_amount_update_form"
)

// The JSON media types spec section 1 names for requests: the other form
// of one is the other, and of a declared type the spec does not name, the
// profile's default.
const (
	typeVndJSONAPI = "application/vnd.json+api"
	typeVndAPIJSON = "application/vnd.api+json"
)

// formChoice is one assumed choice of how a request is written.
type formChoice struct {
	key string // its profile key
	// other is the form tried when value's form is refused.
	other func(value string) string
	// write rewrites a canonical request into value's form; false when the
	// request does not carry the choice or cannot be written so.
	write func(s *scenario, op string, r *formRequest, value string) bool
	// refusedFor reports whether a refusal of the request sent in value's
	// form may be about the form.
	refusedFor func(s *scenario, ex *exchange, value string) bool
}

// formRequest is a request body on its way out: its JSON media type and,
// for an object built by the kit, the object (copied before a rewrite).
type formRequest struct {
	json  bool           // a JSON body sent with the declared media type
	doc   map[string]any // the object, nil for a raw body
	ctype string         // the media type the body is sent with
}

// formUse is the value of a choice a request was written in.
type formUse struct{ key, value string }

// formChoices are the request forms the kit chooses, in the order a server
// reads them: the media type before the body.
func formChoices() []formChoice {
	return []formChoice{
		{key: keyRequestContentType, other: otherRequestType, write: writeRequestType, refusedFor: refusedForMediaType},
		{key: keyMerchantField, other: otherOf(judging.MerchantFieldIdentity, judging.MerchantFieldMerchant), write: writeMerchantField,
			refusedFor: refusedForFields("merchant_identity", "merchant")},
		{key: keyAmountUpdateForm, other: otherOf(judging.AmountUpdateNested, judging.AmountUpdateTopLevel), write: writeAmountUpdate,
			refusedFor: refusedForFields("fee_amount_data.amount", "amount")},
	}
}

// formValue is the scenario's form for key: the one it observed the target
// accept, else the profile's.
func (s *scenario) formValue(key string) string {
	if v, ok := s.forms[key]; ok {
		return v
	}
	switch key {
	case keyRequestContentType:
		return s.suite.profile.RequestContentType
	case keyMerchantField:
		return s.suite.profile.AuthorizationMerchantField
	}
	return s.suite.profile.SubscriptionAmountUpdateForm
}

// writeForms writes a canonical body in the scenario's forms, with over
// replacing some of them; it returns the body to send, its media type and
// the forms it was written in. It changes neither body nor the scenario.
func (s *scenario) writeForms(opID string, body any, over map[string]string) (any, string, []formUse) {
	r := formRequest{}
	switch b := body.(type) {
	case nil, *filePart:
		return body, "", nil
	case rawBody:
		if b.ctype != "" {
			return body, b.ctype, nil
		}
		r.json = true
	case map[string]any:
		r.json, r.doc = true, b
	default:
		r.json = true
	}
	var uses []formUse
	for _, c := range formChoices() {
		v, ok := over[c.key]
		if !ok {
			v = s.formValue(c.key)
		}
		if c.write(s, opID, &r, v) {
			uses = append(uses, formUse{c.key, v})
		}
	}
	if r.doc != nil {
		body = r.doc
	}
	return body, r.ctype, uses
}

// usedForm returns the value of key ex was written in.
func (ex *exchange) usedForm(key string) (string, bool) {
	for _, u := range ex.forms {
		if u.key == key {
			return u.value, true
		}
	}
	return "", false
}

// sendForms sends a request and, while it is refused in a way one of its
// forms may explain, the same request once more in that choice's other
// form. It returns every exchange sent, the one the scenario judges last.
func (s *scenario) sendForms(send func(over map[string]string) (*exchange, error), body any) ([]*exchange, error) {
	first, err := send(nil)
	if err != nil {
		return nil, err
	}
	opID := first.op.ID
	sent, judged := []*exchange{first}, first
	over := map[string]string{}
	// A server checks the forms in an order of its own (the body's field
	// before the media type, say): after each form taken the choices are
	// read again, each tried at most once.
	tried := map[string]bool{}
	for again := true; again; {
		again = false
		for _, c := range formChoices() {
			if tried[c.key] || judged.status < 400 || judged.status > 499 {
				continue
			}
			value, ok := judged.usedForm(c.key)
			if !ok || !c.refusedFor(s, judged, value) {
				continue
			}
			other := c.other(value)
			next := map[string]string{c.key: other}
			for k, v := range over {
				next[k] = v
			}
			if _, _, uses := s.writeForms(opID, body, next); !hasForm(uses, c.key, other) {
				continue // the request cannot be written in the other form
			}
			tried[c.key] = true
			alt, err := send(next)
			if err != nil {
				return nil, err
			}
			sent = append(sent, alt)
			if alt.status >= 400 && alt.status <= 499 && c.refusedFor(s, alt, other) {
				continue // refused in both forms: the declared one is judged
			}
			if err := s.noteForm(c.key, value, other, judged, alt); err != nil {
				return nil, err
			}
			over, judged = next, alt
			again = true
		}
	}
	// The judged exchange is recorded last, as the scenario's last response.
	out := make([]*exchange, 0, len(sent))
	for _, ex := range sent {
		if ex != judged {
			out = append(out, ex)
		}
	}
	return append(out, judged), nil
}

// noteForm records that the target refused the request in value's form and
// took it in other's: a WARN under key observing other, and the scenario
// writes its next requests in other's form.
func (s *scenario) noteForm(key, value, other string, refused, taken *exchange) error {
	s.forms[key] = other
	how := "accepted"
	if taken.status >= 400 {
		how = fmt.Sprintf("refused for another reason (%d)", taken.status)
	}
	return s.assume(key, value, other, map[string]string{key: other},
		s.failf(refused, "refused with %s %s; the same request with %s %s was %s", key, value, key, other, how))
}

// skipUndeclaredForm skips a scenario that sent its request in value's form
// of the choice key on purpose, when the target refused it for the form and
// declares (or was seen to take) the other: which forms beyond its own a
// target takes is its choice.
func (s *scenario) skipUndeclaredForm(key, value string) error {
	ex, err := s.lastExchange()
	if err != nil || ex.status < 400 || ex.status > 499 {
		return err
	}
	declared := s.formValue(key)
	for _, c := range formChoices() {
		if c.key == key && declared != value && c.refusedFor(s, ex, value) {
			return &skipDeclared{key: key, value: declared + " (whether it takes " + value + " too is its choice)"}
		}
	}
	return nil
}

func hasForm(uses []formUse, key, value string) bool {
	for _, u := range uses {
		if u.key == key && u.value == value {
			return true
		}
	}
	return false
}

// otherOf returns the other form of a choice between two values.
func otherOf(a, b string) func(string) string {
	return func(v string) string {
		if v == a {
			return b
		}
		return a
	}
}

// otherRequestType is the spec-named media type other than v.
func otherRequestType(v string) string {
	if v == typeVndJSONAPI {
		return typeVndAPIJSON
	}
	return typeVndJSONAPI
}

// writeRequestType gives a JSON body the media type value.
func writeRequestType(_ *scenario, _ string, r *formRequest, value string) bool {
	if !r.json {
		return false
	}
	r.ctype = value
	return true
}

// writeMerchantField names an authorization's merchant by value's field:
// merchant_identity (canonical) or merchant, the configured merchant whose
// identity the canonical body names.
func writeMerchantField(s *scenario, opID string, r *formRequest, value string) bool {
	if opID != "authorizations.create" || r.doc == nil {
		return false
	}
	identity, ok := r.doc["merchant_identity"].(string)
	if !ok {
		return false
	}
	if _, named := r.doc["merchant"]; named {
		return false
	}
	if value == judging.MerchantFieldIdentity {
		return true
	}
	f := s.suite.cfg.Fixtures
	merchant := ""
	switch identity {
	case f.MerchantIdentity:
		merchant = f.Merchant
	case f.PlainMerchantIdentity:
		merchant = f.PlainMerchant
	}
	if identity == "" || merchant == "" {
		return false
	}
	doc := copyObject(r.doc)
	delete(doc, "merchant_identity")
	doc["merchant"] = merchant
	r.doc = doc
	return true
}

// writeAmountUpdate places a subscription amount update's amount by value:
// inside fee_amount_data (canonical) or at the top level.
func writeAmountUpdate(_ *scenario, opID string, r *formRequest, value string) bool {
	if opID != "subscription_amounts.update" || r.doc == nil {
		return false
	}
	fee, ok := r.doc["fee_amount_data"].(map[string]any)
	if !ok {
		return false
	}
	amount, ok := fee["amount"]
	if !ok {
		return false
	}
	if _, top := r.doc["amount"]; top {
		return false
	}
	if value == judging.AmountUpdateNested {
		return true
	}
	doc, nested := copyObject(r.doc), copyObject(fee)
	delete(nested, "amount")
	doc["fee_amount_data"], doc["amount"] = nested, amount
	r.doc = doc
	return true
}

func copyObject(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// refusedForMediaType: a JSON body refused as the declared kind for an
// unsupported media type (not_acceptable), or 415 Unsupported Media Type.
// A refusal it recognises is recorded as a not_acceptable refusal of the
// run (Summary.Observed): the writer covers it with the kind's statuses.
func refusedForMediaType(s *scenario, ex *exchange, _ string) bool {
	seen := refusalSeen(judging.RefusalNotAcceptable, ex)
	form := s.suite.profile.RefusalFor(seen.Kind, seen.Operation)
	if ex.status != http.StatusUnsupportedMediaType && !form.StatusMatches(ex.status) {
		return false
	}
	s.suite.observed.refusal(seen)
	return true
}

// refusedForFields: a refusal of the body whose items name one of the
// choice's fields (or a field within or around one), or that names no
// field at all and is neither the declared malformed nor unprocessable
// refusal (a refusal for a business rule is never about the form).
func refusedForFields(fields ...string) func(*scenario, *exchange, string) bool {
	return func(s *scenario, ex *exchange, _ string) bool {
		p := &s.suite.profile
		named := s.namedFields(ex)
		if len(named) == 0 {
			codes := errorField(ex.doc, "code")
			if !p.Refusal(judging.RefusalInvalidField).StatusMatches(ex.status) && ex.status != http.StatusBadRequest && ex.status != http.StatusUnprocessableEntity {
				return false
			}
			for _, kind := range []string{judging.RefusalMalformed, judging.RefusalUnprocessable} {
				if f := p.Refusal(kind); f.StatusMatches(ex.status) && len(f.Codes) > 0 && f.CodeMatches(codes) {
					return false
				}
			}
			return true
		}
		for _, n := range named {
			for _, f := range fields {
				if n == f || strings.HasPrefix(n, f+".") || strings.HasPrefix(f, n+".") {
					return true
				}
			}
		}
		return false
	}
}
