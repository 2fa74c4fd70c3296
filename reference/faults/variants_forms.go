package faults

import (
	"mime"
	"net/http"

	"github.com/conform-kit/conform/validate"
)

// Variants whose choice is a media type or the form of a request the spec
// shows two ways: the JSON media types (§1 names two), the field naming an
// authorization's merchant and the place of a subscription amount update's
// amount (§4.1, §4.5: the argument table and the example differ).

// formVariants take and answer other media types and request forms.
func formVariants() []Variant {
	return []Variant{
		{
			Name: "plain-json", Tags: "@transfers", Choice: "answers with Content-Type application/json",
			Profile: `{"response_content_type": "application/json"}`,
			build:   parts(wrapOnly(plainJSON)),
		},
		{
			Name: "vnd-api-json-only", Tags: "@errors,@transfers", Choice: "takes JSON request bodies only as application/vnd.api+json (406 for the other types)",
			Profile: `{"request_content_type": "application/vnd.api+json"}`,
			build:   parts(wrapOnly(onlyRequestType("application/vnd.api+json"))),
		},
		{
			Name: "vnd-json-api-only", Tags: "@errors", Choice: "takes JSON request bodies only as application/vnd.json+api, the default (406 for the other types)",
			Profile: `{"request_media_types": ["application/vnd.json+api"]}`,
			build:   parts(wrapOnly(onlyRequestType("application/vnd.json+api"))),
		},
		{
			Name: "authorization-merchant-field", Tags: "@authorizations", Choice: "names an authorization's merchant only by merchant (the Merchant id); merchant_identity is an unknown field",
			Profile: `{"authorization_merchant_field": "merchant"}`,
			build:   parts(wrapOnly(merchantFieldOnly)),
		},
		{
			Name: "amount-update-top-level", Tags: "@subscriptions", Choice: "takes a subscription amount update's amount only at the top level; inside fee_amount_data it is an unknown field",
			Profile: `{"subscription_amount_update_form": "top_level"}`,
			build:   parts(wrapOnly(amountUpdateTopLevelOnly)),
		},
	}
}

// plainJSON labels every JSON response application/json; charset=utf-8.
func plainJSON(next http.Handler, _ faultDeps) http.Handler {
	return onJSON(next, func(_ *http.Request, rec *faultRecorder, body []byte) []byte {
		rec.header.Set("Content-Type", "application/json; charset=utf-8")
		return body
	})
}

// onlyRequestType refuses a JSON request body of any media type but mt with
// 406 NOT_ACCEPTABLE, as the reference refuses a type it does not take.
func onlyRequestType(mt string) func(http.Handler, faultDeps) http.Handler {
	return func(next http.Handler, _ faultDeps) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if got, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err == nil && validate.JSONMediaType(got) && got != mt {
				validate.WriteEnvelope(w, r, http.StatusNotAcceptable, validate.ErrorItem{
					Code: "NOT_ACCEPTABLE", Message: "Content-Type must be " + mt,
				})
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

// merchantFieldOnly takes an authorization's merchant only as merchant (the
// Merchant id, as the spec's example): merchant_identity is refused as an
// unknown field (422 INVALID_FIELD naming it), and a refusal for a missing
// merchant names merchant.
func merchantFieldOnly(next http.Handler, d faultDeps) http.Handler {
	renamed := rewriteResponse(renameErrorField("/merchant_identity", "/merchant"), "authorizations.create")(next, d)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, ok := faultRoute(r, "authorizations.create"); ok {
			if in := peekJSON(r); in != nil && in["merchant_identity"] != nil {
				validate.WriteEnvelope(w, r, http.StatusUnprocessableEntity, validate.ErrorItem{
					Code: "INVALID_FIELD", Field: "/merchant_identity", Message: "merchant_identity is not a field of an authorization: name the merchant with merchant",
				})
				return
			}
		}
		renamed.ServeHTTP(w, r)
	})
}

// amountUpdateTopLevelOnly takes a subscription amount update's amount only
// at the top level (as the spec's example): an amount inside
// fee_amount_data is refused as an unknown field (422 INVALID_FIELD naming it).
func amountUpdateTopLevelOnly(next http.Handler, _ faultDeps) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, ok := faultRoute(r, "subscription_amounts.update"); ok {
			if in := peekJSON(r); in != nil && objectAt(in, "fee_amount_data")["amount"] != nil {
				validate.WriteEnvelope(w, r, http.StatusUnprocessableEntity, validate.ErrorItem{
					Code: "INVALID_FIELD", Field: "/fee_amount_data/amount", Message: "amount is a field of the update itself, not of fee_amount_data",
				})
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// renameErrorField renames the field from to to in a refusal's error items.
func renameErrorField(from, to string) func(x *faultExchange) bool {
	return editErrorItems(func(item map[string]any) {
		if item["field"] == from {
			item["field"] = to
		}
	})
}
