package faults

import (
	"net/http"
)

// Variants whose choice is a status or a refusal code the spec leaves open:
// the success status of a create or a capture (§2 shows only the bodies),
// and the status and code of a refusal (§7 lists codes, not statuses).

// statusVariants answer with other success statuses and refusal codes.
func statusVariants() []Variant {
	return []Variant{
		{
			Name: "create-200", Tags: "@transfers", Choice: "answers every create with 200 instead of 201",
			Profile: `{"create_status": 200}`,
			build:   parts(wrapOnly(createdAs200)),
		},
		{
			Name: "validation-400", Tags: "@authorizations", Choice: "refuses invalid fields with 400 VALIDATION_ERROR and business rules with 409 CONFLICT",
			Profile: `{"refusals": {"invalid_field": {"status": 400, "codes": ["VALIDATION_ERROR"]}, "unprocessable": {"status": 409, "codes": ["CONFLICT"]}}}`,
			build: parts(wrapOnly(recodeRefusals(map[string]recode{
				"INVALID_FIELD":        {400, "VALIDATION_ERROR"},
				"UNPROCESSABLE_ENTITY": {409, "CONFLICT"},
			}))),
		},
		{
			Name: "capture-202", Tags: "@authorizations", Choice: "answers a capture with 202 Accepted instead of 200",
			Profile: `{"success_status": {"authorizations.capture": 202}}`,
			build:   parts(wrapOnly(successStatus("authorizations.capture", http.StatusAccepted))),
		},
	}
}

// createdAs200 answers 200 OK where the reference answers 201 Created.
func createdAs200(next http.Handler, _ faultDeps) http.Handler {
	return onJSON(next, func(_ *http.Request, rec *faultRecorder, body []byte) []byte {
		if rec.status == http.StatusCreated {
			rec.status = http.StatusOK
		}
		return body
	})
}

// successStatus answers the operation's success with status.
func successStatus(opID string, status int) func(http.Handler, faultDeps) http.Handler {
	return func(next http.Handler, _ faultDeps) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !matchAny(r, opID) {
				next.ServeHTTP(w, r)
				return
			}
			rec := newFaultRecorder()
			next.ServeHTTP(rec, r)
			if isSuccess(rec.status) {
				rec.status = status
			}
			rec.flush(w, rec.body.Bytes())
		})
	}
}

// recode is another status and code for a refusal code.
type recode struct {
	status int
	code   string
}

// recodeRefusals answers a refusal whose code by names with the status and
// code by gives it.
func recodeRefusals(by map[string]recode) func(http.Handler, faultDeps) http.Handler {
	return func(next http.Handler, _ faultDeps) http.Handler {
		return onRefusal(next, func(_ *http.Request, m map[string]any) int {
			code, _ := m["code"].(string)
			rc, ok := by[code]
			if !ok {
				return 0
			}
			m["code"] = rc.code
			return rc.status
		})
	}
}
