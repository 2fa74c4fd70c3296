package explore

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"

	"github.com/conform-kit/conform/steps/report"
	"github.com/conform-kit/conform/validate"
	"github.com/conform-kit/conform/validate/judging"
)

// Judging one answer: the target's against the model's, by the checks any
// answer keeps, the statuses' agreement, and for a success its shape,
// status, unchanged fields and fields read back.

// judge judges the target's answer tex to st, the model having answered mex.
func (r *runner) judge(st Step, tex, mex Exchange, target, model *side, secrets []string) (*Finding, bool) {
	st.routeAnswered = judging.RouteAnswered(tex.Status)
	if f, ok, done := r.judgeAnyAnswer(st, tex, mex, secrets); done {
		return f, ok
	}
	op, _ := r.v.Operation(st.Op)
	if f, ok, done := r.judgeStatuses(st, op, tex, mex); done {
		return f, ok
	}
	return r.judgeSuccess(st, op, tex, mex, target, model)
}

// judgeAnyAnswer judges what any answer must keep: no 5xx where the model
// answers, no secret, a refusal in the error envelope. done reports that
// the judging ends here.
func (r *runner) judgeAnyAnswer(st Step, tex, mex Exchange, secrets []string) (f *Finding, ok, done bool) {
	if tex.Status >= 500 && mex.Status < 500 {
		return r.finding(checkServerError, st, basisServerError,
			fmt.Sprintf("%s %s answered %d; a conformant server answers %d", st.Method, tex.Path, tex.Status, mex.Status),
			fmt.Sprintf("status %d", mex.Status), fmt.Sprintf("status %d", tex.Status), assertFor(mex.Status)), false, true
	}
	if f := r.secretsIn(st, tex, secrets); f != nil {
		return f, true, true
	}
	if is4xx(tex.Status) {
		if err := r.validateAnswer("error", tex); err != nil {
			return r.finding(checkEnvelope, st, basisEnvelope, fmt.Sprintf("the %d refusal is not the §7 error envelope: %v", tex.Status, err),
				"the §7 envelope", firstLine(tex.Response), "the request is refused"), true, true
		}
	}
	return nil, false, false
}

// judgeStatuses compares the target's status with the model's: where one
// accepted what the other refused, or the target refused, the judging
// ends (done) with a finding or none.
func (r *runner) judgeStatuses(st Step, op validate.Operation, tex, mex Exchange) (f *Finding, ok, done bool) {
	switch {
	case is2xx(mex.Status) && tex.Status == http.StatusTooManyRequests:
		// A quota the target reached (the model is fresh each sequence, the
		// target is not): its limits are its own; the states part here.
		return nil, false, true
	case st.Shared && is2xx(mex.Status) != is2xx(tex.Status):
		return nil, false, true // another sequence may have changed the shared fixture first
	case r.fixtures.bound(st) && !r.fixtures.isUpdate(st) && is2xx(mex.Status) != is2xx(tex.Status) && !r.phases.settled("merchants"):
		return nil, false, true // a merchant update the target never answered may have landed since the model was set
	case is2xx(mex.Status) && is4xx(tex.Status):
		f := r.judgeRefused(st, op, tex, mex)
		return f, false, true
	case is4xx(mex.Status) && is2xx(tex.Status):
		return r.judgeAccepted(st, tex, mex), false, true
	case !is2xx(tex.Status):
		return nil, true, true // no success of the target to judge further (both refused included)
	}
	return nil, false, false
}

// judgeRefused judges a request the model accepted and the target
// refused: a finding on the basis of what the refusal names, or none.
func (r *runner) judgeRefused(st Step, op validate.Operation, tex, mex Exchange) *Finding {
	if st.Refuse {
		return nil // the kit and its model disagree on this value: judge nothing more
	}
	b := r.refusedBasis(st, op, tex)
	unknown := op.Assumed == "extensions" && (tex.Status == http.StatusNotFound || tex.Status == http.StatusMethodNotAllowed)
	if unknown {
		// An operation the spec does not name, answered as an unknown
		// route: the target does not offer it (the suite's WARN too).
		b = assumed("extensions", op.Clauses...)
	}
	if b.Assumed == "reference_rules" && op.HasJSONBody() && op.Request != "" {
		// A body the spec shows no payload for (file_payloads): what the
		// reference accepts in it is its choice of that payload.
		if sb, ok := r.j.SchemaBasis(op.Request); ok && !sb.Normative() {
			b = judging.Basis{Assumed: sb.Assumed, Clauses: sb.Clauses}
		}
	}
	b = r.basisFor(checkAllowed, st, b)
	if r.declaredOtherwise(b.Assumed) || (!opBasis(op, st).Normative() && r.declaredOtherwise(op.Assumed)) {
		return nil
	}
	if unknown {
		return r.finding(checkAllowed, st, b, fmt.Sprintf("%s %s was answered %d, as an unknown route: the target does not offer %s, an operation the spec does not name", st.Method, tex.Path, tex.Status, st.Op),
			fmt.Sprintf("status %d", mex.Status), fmt.Sprintf("status %d", tex.Status), "the request succeeds")
	}
	return r.finding(checkAllowed, st, b, fmt.Sprintf("%s %s was refused with %d; the contract allows it (%s)", st.Method, tex.Path, tex.Status, allowedWhy(st)),
		fmt.Sprintf("status %d", mex.Status), fmt.Sprintf("status %d", tex.Status), "the request succeeds")
}

// refusedBasis is the basis of a refusal of an allowed request: the
// reference's rules, unless the refusal names a value at its stated limit
// or in a form a sentence allows; a role or a content type the profile
// decides.
func (r *runner) refusedBasis(st Step, op validate.Operation, tex Exchange) judging.Basis {
	b := assumed("reference_rules")
	if opBasis(op, st).Normative() && slices.ContainsFunc(st.AtLimit, func(f string) bool { return refusalNames(tex.doc, f) }) {
		// Refused for the value at its stated limit: the error names it.
		b = saying(basisOf(append([]string{"8"}, op.Clauses...)...), "a value within the limit the Limits table (§8) and the body table state is allowed")
	} else if i := slices.IndexFunc(st.Allowed, func(a allowedValue) bool { return refusalNames(tex.doc, a.Field) }); i >= 0 && opBasis(op, st).Normative() {
		// Refused for a value in the form a sentence allows: the error names it.
		b = st.Allowed[i].Basis
	}
	if st.User == userMerchant && st.Op != "merchants.update" {
		b = assumed("operation_roles")
	}
	if tex.Status == http.StatusNotAcceptable || tex.Status == http.StatusUnsupportedMediaType {
		b = assumed("request_content_type")
	}
	return b
}

// judgeAccepted judges a request the model refused and the target
// accepted: a finding on the basis of the rule it was drawn for, or none.
func (r *runner) judgeAccepted(st Step, tex, mex Exchange) *Finding {
	b := st.Basis
	rule := st.Rule
	if !st.Refuse {
		b, rule = assumed("reference_rules"), "the reference refuses it"
	}
	if bb, ok := r.refusedForItsBody(st, mex); ok && b.Normative() && !bb.Normative() {
		// The model refused the body for a rule of its schema the spec
		// does not state, before the rule the step was drawn for (a
		// merchant's Level 2/3 processing, which another sequence may
		// have changed since) was ever asked: the body's basis judges.
		b, rule = bb, "its body breaks a rule of its request schema the spec does not state"
	}
	b = r.basisFor(checkForbidden, st, b)
	if r.declaredOtherwise(b.Assumed) {
		return nil
	}
	return r.finding(checkForbidden, st, b, r.acceptedMessage(st, tex, b, rule),
		"a 4xx refusal", fmt.Sprintf("status %d", tex.Status), "the request is refused")
}

// verdicts are a success's findings: a FAIL ends the judging; a WARN is
// kept (the first) and the answer is still taken in: the states agree,
// the sequence goes on.
type verdicts struct{ warn *Finding }

// stop reports whether f ends the judging, keeping the first WARN.
func (v *verdicts) stop(f *Finding) bool {
	if f.Outcome == report.Fail {
		return true
	}
	if v.warn == nil {
		v.warn = f
	}
	return false
}

// judgeSuccess judges an answer both sides accepted: its shape, its
// status, what a refused request named, the fields read back; then takes
// the answer in.
func (r *runner) judgeSuccess(st Step, op validate.Operation, tex, mex Exchange, target, model *side) (*Finding, bool) {
	var v verdicts
	if f := r.checkAnswer(st, op, tex); f != nil && v.stop(f) {
		return f, true
	}
	doc, _ := tex.doc.(map[string]any)
	mdoc, _ := mex.doc.(map[string]any)
	role := st.Save
	if role == "" {
		role = st.Of
	}
	if f := r.checkUnchanged(st, target, doc, &v); f != nil {
		return f, true
	}
	if f := r.checkReadBack(st, op, target, doc, role, &v); f != nil {
		return f, true
	}
	takeIn(st, target, model, doc, mdoc, role)
	return v.warn, true
}

// checkAnswer checks a success's shape against its response schema and
// its status against the profile's: the first finding, or nil.
func (r *runner) checkAnswer(st Step, op validate.Operation, tex Exchange) *Finding {
	var v verdicts
	if op.Response != "" {
		if err := r.validateAnswer(op.Response, tex); err != nil {
			b, _ := r.j.SchemaBasis(op.Response)
			if b = r.basisFor(checkShape, st, b); !r.declaredOtherwise(b.Assumed) {
				if f := r.finding(checkShape, st, b, fmt.Sprintf("the %s answer breaks the %s schema: %v", st.Op, op.Response, err),
					"the "+op.Response+" schema", firstLine(tex.Response), "the request succeeds"); v.stop(f) {
					return f
				}
			}
		}
	}
	if want := r.profile.SuccessStatus(op); tex.Status != want && want != 0 {
		key := "success_status"
		if op.Status == 201 {
			key = "create_status"
		}
		if !r.declaredOtherwise(key) {
			if f := r.finding(checkSuccessStatus, st, assumed(key), fmt.Sprintf("%s answered %d, the profile declares %d", st.Op, tex.Status, want),
				strconv.Itoa(want), strconv.Itoa(tex.Status), "the request succeeds"); v.stop(f) {
				return f
			}
		}
	}
	return v.warn
}

// unchangedFields are the fields a read of what a refused request named
// must show as before, in the order they are compared.
func (r *runner) unchangedFields() []string {
	return slices.Concat([]string{"state", "transfer", "amount", "url", "enabled", "nickname"}, r.fixtures.fields(), []string{"display_name"})
}

// checkUnchanged checks that what a refused request named reads as it
// was: the FAIL that ends the judging, or nil (a WARN is kept in v).
func (r *runner) checkUnchanged(st Step, target *side, doc map[string]any, v *verdicts) *Finding {
	if !st.SameState || doc == nil {
		return nil
	}
	before := r.fixtures.own(st, target, target.docs[st.Of])
	if before == nil {
		return nil
	}
	var sent map[string]any
	_ = json.Unmarshal([]byte(st.RefusedBody), &sent) // a body that is not an object sent no field
	for _, k := range r.unchangedFields() {
		b, had := before[k]
		a, has := doc[k]
		if !had || (has && sameValue(a, b)) {
			continue
		}
		if val, carried := sent[k]; !changedByRules(k) && (!carried || !sameValue(a, val)) {
			// Not the refused request's: a field it did not send, or one it
			// sent that reads neither as before nor as it sent it. "before"
			// is the target's last answer, which an earlier write the
			// target acknowledged and did not keep makes wrong (a rename
			// answered with the new nickname, stored as the old): had the
			// refused request been applied, the field would read the value
			// it carried. What does not hold of an earlier write is
			// checkReadBack's to judge, on its own basis.
			continue
		}
		basis := basisUnchanged
		if k == "state" {
			// A state may move on its own (§3.3: transitions not shown):
			// its change between two reads is not the refused request's for
			// certain; nothing at all where the profile declares its values
			// otherwise (an authorization PENDING until fetched).
			if r.declaredOtherwise(keyFieldNotShown) {
				continue
			}
			basis = judging.Basis{Assumed: keyFieldNotShown, Clauses: []string{"3.3", "7"}}
		}
		if f := r.finding(checkChangesNone, st, basis, fmt.Sprintf("a refused request changed %s of the %s: %s before, %s after", k, st.Of, render(b), render(a)),
			k+" = "+render(b), render(a), fieldAssert(k, b)); v.stop(f) {
			return f
		}
	}
	return nil
}

// changedByRules tells the fields of unchangedFields a request changes
// without sending them (a capture's transfer and state, an amount an
// update of another resource moves): a refused request of any body is
// judged on them.
func changedByRules(field string) bool {
	return field == "state" || field == "transfer" || field == "amount"
}

// checkReadBack checks the fields read back and computed: this answer's,
// and every later read's of the role. The FAIL that ends the judging, or
// nil (a WARN is kept in v).
func (r *runner) checkReadBack(st Step, op validate.Operation, target *side, doc map[string]any, role string, v *verdicts) *Finding {
	expect := r.fixtures.ownExpect(st, target, expectationsOf(st, op, target))
	for _, e := range expect {
		got, ok := lookup(doc, e.Path)
		if matches(e.Value, got, ok) {
			continue
		}
		b := r.fieldBasis(e.Basis, op, st, e.Path)
		if r.declaredOtherwise(b.Assumed) {
			continue
		}
		if f := r.finding(e.Check, st, b, fmt.Sprintf("%s of the %s is %s, want %s", e.Path, roleOr(role, st.Op), renderOK(got, ok), render(e.Value)),
			e.Path+" = "+render(e.Value), renderOK(got, ok), fieldAssert(e.Path, e.Value)); v.stop(f) {
			return f
		}
	}
	return nil
}

// takeIn keeps a success's documents, ids and expectations on both sides.
func takeIn(st Step, target, model *side, doc, mdoc map[string]any, role string) {
	if role != "" && doc != nil {
		target.docs[role] = doc
		if mdoc != nil {
			model.docs[role] = mdoc
		}
	}
	if st.Save != "" {
		if id, _ := doc["id"].(string); id != "" {
			target.ids[st.Save] = id
		}
		if id, _ := mdoc["id"].(string); id != "" {
			model.ids[st.Save] = id
		}
	}
	if st.Of != "" && st.Method != "GET" && st.Save == "" {
		target.expect[st.Of] = mergeExpect(target.expect[st.Of], st.Expect)
		target.expect[st.Of] = mergeExpect(target.expect[st.Of], answered(st, doc))
	}
	if st.Save != "" {
		target.expect[st.Save] = mergeExpect(target.expect[st.Save], st.Expect)
	}
}
