package faults

import (
	"bytes"
	"fmt"
	"mime"
	"net/http"
	"regexp"
	"strconv"
	"strings"

	"github.com/conform-kit/conform/validate"
)

// Variants that answer as real servers do where the spec is silent: a
// kind of refusal with several codes, or with another status for some
// requests, fields named by dotted paths in a member of their own, a list
// maximum the kit must search for, an Accept it does not serve ignored.
// Each differs from the reference in one choice; their profiles say so
// with the forms the profile has for it.

// realisticVariants are the variants of this file, in the catalog's order.
func realisticVariants() []Variant {
	return []Variant{
		{
			Name: "state-rules-409", Tags: "@authorizations,@subscriptions,@idempotency",
			Choice:  "refuses each state or business rule with 409 and a code of its own (a captured or void authorization, a reused idempotency id, a second amount update)",
			Profile: `{"refusals": {"unprocessable": {"status": 409, "codes": ["AMOUNT_ALREADY_UPDATED", "AUTHORIZATION_STATE", "BUSINESS_RULE", "IDEMPOTENCY_KEY_REUSED"]}}}`,
			build:   parts(wrapOnly(stateRulesByCode)),
		},
		{
			Name: "validation-400-dotted", Tags: "@authorizations,@level3,@webhooks,@errors",
			Choice:  `refuses invalid fields with 400 and two codes (INVALID_AMOUNT for amounts, VALIDATION_ERROR otherwise), naming the field by a dotted path in "path"`,
			Profile: `{"refusals": {"invalid_field": {"status": 400, "codes": ["INVALID_AMOUNT", "VALIDATION_ERROR"]}}, "error_field_form": "dotted", "error_field_member": "path"}`,
			build:   parts(wrapOnly(dottedValidation)),
		},
		{
			Name: "too-large-400", Tags: "@errors",
			Choice:  "refuses a body over the limit with 400 PAYLOAD_TOO_LARGE instead of 413",
			Profile: `{"refusals": {"too_large": {"status": 400, "codes": ["PAYLOAD_TOO_LARGE"]}}}`,
			build: parts(wrapOnly(func(next http.Handler, _ faultDeps) http.Handler {
				return onRefusal(next, func(_ *http.Request, m map[string]any) int {
					if m["code"] != "REQUEST_TOO_LARGE" {
						return 0
					}
					m["code"] = "PAYLOAD_TOO_LARGE"
					return http.StatusBadRequest
				})
			})),
		},
		{
			Name: "media-type-415", Tags: "@errors",
			Choice:  "refuses a request body of a media type it does not take with 415 UNSUPPORTED_MEDIA_TYPE; an Accept it does not serve stays 406",
			Profile: `{"refusals": {"not_acceptable": {"status": [406, 415], "codes": ["NOT_ACCEPTABLE", "UNSUPPORTED_MEDIA_TYPE"]}}}`,
			build:   parts(wrapOnly(unsupportedAs415)),
		},
		{
			Name: "upload-401-first", Tags: "@files",
			Choice:  "answers an upload through a link that does not exist, which carries no credentials, 401 before 404",
			Profile: `{"refusals": {"not_found": {"operations": {"files.external_upload": {"status": 401, "codes": ["UNKNOWN"]}}}}}`,
			build:   parts(wrapOnly(uploadUnauthenticatedFirst)),
		},
		{
			Name: "list-max-250", Tags: "@lists",
			Choice:  "lists take a limit up to 250 and refuse a larger one",
			Profile: `{"list_max_limit": 250}`,
			build:   parts(wrapOnly(listMaximum(250))),
		},
		{
			Name: "accept-ignored", Tags: "@errors",
			Choice:  "ignores an Accept naming no JSON type and answers as if Accept were absent (HTTP lets a server disregard Accept)",
			Profile: `{"accept_unserved": "ignore"}`,
			build:   parts(wrapOnly(ignoreAccept)),
		},
	}
}

// stateRulesByCode answers every unprocessable refusal 409 with a code
// naming its rule.
func stateRulesByCode(next http.Handler, _ faultDeps) http.Handler {
	return onRefusal(next, func(r *http.Request, m map[string]any) int {
		if m["code"] != "UNPROCESSABLE_ENTITY" {
			return 0
		}
		msg, _ := m["message"].(string)
		code := "BUSINESS_RULE"
		switch {
		case strings.Contains(msg, "idempotency_id"):
			code = "IDEMPOTENCY_KEY_REUSED"
		case matchAny(r, "authorizations.capture", "authorizations.void"):
			code = "AUTHORIZATION_STATE"
		case matchAny(r, "subscription_amounts.update"):
			code = "AMOUNT_ALREADY_UPDATED"
		}
		m["code"] = code
		return http.StatusConflict
	})
}

// dottedValidation answers every invalid field refusal 400, INVALID_AMOUNT
// for a field whose name holds "amount" and VALIDATION_ERROR otherwise,
// the field named in "path" as a dotted path with bracketed indexes
// (additional_purchase_data.item_data[0].quantity).
func dottedValidation(next http.Handler, _ faultDeps) http.Handler {
	return onRefusal(next, func(_ *http.Request, m map[string]any) int {
		if m["code"] != "INVALID_FIELD" {
			return 0
		}
		code := "VALIDATION_ERROR"
		if f, ok := m["field"].(string); ok {
			delete(m, "field")
			m["path"] = dottedPath(f)
			if strings.Contains(f, "amount") {
				code = "INVALID_AMOUNT"
			}
		}
		m["code"] = code
		return http.StatusBadRequest
	})
}

// onRefusal lets edit change each item of a 4xx error envelope of next; a
// status edit returns (not 0) becomes the response's. Other responses pass
// as they are, undecoded.
func onRefusal(next http.Handler, edit func(r *http.Request, item map[string]any) int) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := newFaultRecorder()
		next.ServeHTTP(rec, r)
		if rec.status < 400 || rec.status > 499 {
			rec.flush(w, rec.body.Bytes())
			return
		}
		doc := decodeFaultJSON(rec.body.Bytes())
		changed := false
		for _, m := range envelopeItems(doc) {
			if st := edit(r, m); st != 0 {
				rec.status, changed = st, true
			}
		}
		if !changed {
			rec.flush(w, rec.body.Bytes())
			return
		}
		writeFaultJSONHeader(w, rec, doc)
	})
}

// dottedPath writes a JSON pointer as a dotted path, indexes in brackets.
func dottedPath(pointer string) string {
	var b strings.Builder
	for i, seg := range strings.Split(strings.TrimPrefix(pointer, "/"), "/") {
		seg = strings.NewReplacer("~1", "/", "~0", "~").Replace(seg)
		switch _, err := strconv.Atoi(seg); {
		case err == nil && i > 0:
			fmt.Fprintf(&b, "[%s]", seg)
		case i > 0:
			b.WriteString("." + seg)
		default:
			b.WriteString(seg)
		}
	}
	return b.String()
}

// envelopeItems are the items of an error envelope.
func envelopeItems(doc map[string]any) []map[string]any {
	items, _ := objectAt(doc, "_embedded")["errors"].([]any)
	out := make([]map[string]any, 0, len(items))
	for _, it := range items {
		if m, ok := it.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

// unsupportedAs415 refuses a request body whose media type is not JSON
// (nor multipart, where an upload takes it) with 415 UNSUPPORTED_MEDIA_TYPE.
func unsupportedAs415(next http.Handler, _ faultDeps) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ct := r.Header.Get("Content-Type")
		if mt, _, err := mime.ParseMediaType(ct); ct != "" && (err != nil || !validate.JSONMediaType(mt) && !strings.HasPrefix(mt, "multipart/")) &&
			r.Method != http.MethodGet && !matchAny(r, "files.external_upload") {
			writeFaultJSON(w, http.StatusUnsupportedMediaType, errorEnvelope(r, "UNSUPPORTED_MEDIA_TYPE", "Content-Type "+ct+" is not taken"))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// uploadUnauthenticatedFirst answers an upload through a link that does not
// exist 401, as a server that authenticates the link before it looks it up.
func uploadUnauthenticatedFirst(next http.Handler, _ faultDeps) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !matchAny(r, "files.external_upload") {
			next.ServeHTTP(w, r)
			return
		}
		rec := newFaultRecorder()
		next.ServeHTTP(rec, r)
		if rec.status == http.StatusNotFound {
			writeFaultJSON(w, http.StatusUnauthorized, errorEnvelope(r, "UNKNOWN", "Unauthorized"))
			return
		}
		rec.flush(w, rec.body.Bytes())
	})
}

// referenceMaxLimit is the reference's list maximum.
const referenceMaxLimit = 100

// pageLimit finds the limit of a list's page and of its links.
var pageLimit = regexp.MustCompile(`("limit"\s*:\s*)` + strconv.Itoa(referenceMaxLimit) + `\b|([?&]limit=)` + strconv.Itoa(referenceMaxLimit) + `\b`)

// listMaximum takes a list limit up to max: the reference is asked for its
// own maximum and the page and links show the limit asked (the lists the
// suite asks so much of hold fewer items than either); a larger limit is
// refused as the reference refuses one over its maximum.
func listMaximum(max int) func(http.Handler, faultDeps) http.Handler {
	return func(next http.Handler, _ faultDeps) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			q := r.URL.Query()
			n, err := strconv.Atoi(q.Get("limit"))
			if r.Method != http.MethodGet || err != nil || n <= referenceMaxLimit {
				next.ServeHTTP(w, r)
				return
			}
			if n > max {
				validate.WriteEnvelope(w, r, http.StatusUnprocessableEntity, validate.ErrorItem{
					Code: "INVALID_FIELD", Field: "/limit", Message: fmt.Sprintf("limit must be an integer from 1 to %d", max),
				})
				return
			}
			q.Set("limit", strconv.Itoa(referenceMaxLimit))
			r.URL.RawQuery = q.Encode()
			rec := newFaultRecorder()
			next.ServeHTTP(rec, r)
			body := rec.body.Bytes()
			if isSuccess(rec.status) {
				body = pageLimit.ReplaceAllFunc(body, func(m []byte) []byte {
					return append(bytes.TrimSuffix(m, []byte(strconv.Itoa(referenceMaxLimit))), strconv.Itoa(n)...)
				})
			}
			rec.flush(w, body)
		})
	}
}

// ignoreAccept drops an Accept header that names no JSON type (nor */*),
// so the request is answered as if it had none.
func ignoreAccept(next http.Handler, _ faultDeps) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if a := r.Header.Get("Accept"); a != "" && !validate.AcceptsJSON(a) {
			r.Header.Del("Accept")
		}
		next.ServeHTTP(w, r)
	})
}
