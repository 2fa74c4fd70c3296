package explore

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/conform-kit/conform/steps/report"
	"github.com/conform-kit/conform/validate"
	"github.com/conform-kit/conform/validate/judging"
)

// The oracle: every answer of the target judged by the judging law, with
// the model's answer to the same request as what a conformant server does.

var (
	basisServerError = judging.Basis{Clauses: []string{"7"}, Invariants: []string{"no_server_error"}}
	basisEnvelope    = saying(basisOf("7"), "error body: total (integer), _embedded.errors, each with code, logref, message and _links")
	basisSecrets     = judging.Basis{Invariants: []string{"secrets"}}
	basisList        = saying(basisOf("2.12", "4.10"), "page: offset, limit, count, count the total number of records; lists use offset, limit and sort")
	basisUnchanged   = judging.Basis{Clauses: []string{"7"}, Invariants: []string{"refusal_changes_nothing"}}
)

// finding builds a finding with its outcome under the profile and strictness.
func (r *runner) finding(check string, st Step, b judging.Basis, msg, want, got, assert string) *Finding {
	b = r.basisFor(check, st, b)
	if b.Normative() && b.Says == "" && len(b.Invariants) > 0 {
		b.Says = r.j.Table().Invariants[b.Invariants[0]] // an invariant's statement is its sentence
	}
	o := report.Fail
	if !b.Normative() {
		o = report.Warn
		if r.opts.Strict {
			o = report.Fail
		}
	}
	return &Finding{Check: check, Op: st.Op, Outcome: o, Basis: b, Message: msg, Expected: want, Observed: got, assert: assert, cause: normalise(msg, st), Occurrences: 1}
}

// declaredOtherwise reports whether the target's profile declares another
// choice (or unchecked) for an assumed key: the model, which is the
// reference, does not speak for the target there.
func (r *runner) declaredOtherwise(key string) bool {
	if key == "" {
		return false
	}
	a, ok1 := r.profile.Value(key)
	b, ok2 := r.defaults.Value(key)
	return ok1 != ok2 || string(a) != string(b)
}

func is2xx(s int) bool { return s >= 200 && s < 300 }
func is4xx(s int) bool { return s >= 400 && s < 500 }

// expectationsOf are the fields the answer to st must show: the step's,
// and on a read of a role every field sent to it before.
func expectationsOf(st Step, op validate.Operation, target *side) []expectField {
	role := st.Save
	if role == "" {
		role = st.Of
	}
	if role != "" && st.Save == "" && op.Response != "" && !strings.HasSuffix(op.Response, "_list") {
		return mergeExpect(target.expect[role], st.Expect)
	}
	return st.Expect
}

// answered are the expectations st.Answered takes from the target's
// accepted answer doc: each field as the answer showed it.
func answered(st Step, doc map[string]any) []expectField {
	var out []expectField
	for _, e := range st.Answered {
		v, ok := lookup(doc, e.Path)
		if n, isNum := v.(json.Number); isNum {
			v, ok = intOfNumber(n)
		}
		switch v.(type) {
		case string, bool, int64, nil:
			if ok {
				e.Value = v
				out = append(out, e)
			}
		}
	}
	return out
}

// mergeExpect overrides expectations by path.
func mergeExpect(old, add []expectField) []expectField {
	out := slices.Clone(old)
	for _, e := range add {
		i := slices.IndexFunc(out, func(x expectField) bool { return x.Path == e.Path })
		if i >= 0 {
			out[i] = e
		} else {
			out = append(out, e)
		}
	}
	return out
}

func roleOr(role, op string) string {
	if role != "" {
		return role
	}
	return op
}

func allowedWhy(st Step) string {
	if len(st.AtLimit) > 0 {
		return strings.Join(st.AtLimit, ", ") + " at the stated limit"
	}
	if len(st.Allowed) > 0 {
		names := make([]string, len(st.Allowed))
		for i, a := range st.Allowed {
			names[i] = a.Field
		}
		return strings.Join(names, ", ") + " in a form the spec states allowed"
	}
	return "every field within the contract"
}

// assertFor is the suite step that states the model's status class.
func assertFor(status int) string {
	if is4xx(status) {
		return "the request is refused"
	}
	return "the request succeeds"
}

// validateAnswer validates an answer against a schema's normative facts,
// from the document send decoded once; an answer that is not JSON is
// validated from its text, which reports it malformed.
func (r *runner) validateAnswer(schema string, ex Exchange) error {
	if ex.doc == nil {
		return r.j.ValidateNormative(schema, []byte(ex.Response))
	}
	return r.j.ValidateNormativeValue(schema, ex.doc)
}

// refusedForItsBody reports whether st was drawn for a state rule (which
// the reference refuses as unprocessable, after the body's own rules), the
// model refused it as an invalid field (the refusals table's invalid_field
// code) and st's body breaks its request schema: then the model never asked
// the state rule, and the body's basis (judging's, by its violations)
// judges. A field rule (a capture over the amount, also an invalid field)
// keeps its own basis.
func (r *runner) refusedForItsBody(st Step, mex Exchange) (judging.Basis, bool) {
	op, ok := r.v.Operation(st.Op)
	if !ok || !st.StateRule || st.Body == "" || !op.HasJSONBody() || op.Request == "" {
		return judging.Basis{}, false
	}
	row, ok := r.j.Refusal(judging.RefusalInvalidField)
	if !ok || len(row.Codes) == 0 {
		return judging.Basis{}, false
	}
	if code, _ := lookup(mex.doc, "_embedded.errors.0.code"); code != row.Codes[0] {
		return judging.Basis{}, false
	}
	shape := r.contract.schemas[op.Request]
	if shape == nil {
		return judging.Basis{}, false
	}
	dec := json.NewDecoder(strings.NewReader(st.Body))
	dec.UseNumber()
	var doc map[string]any
	if dec.Decode(&doc) != nil {
		return judging.Basis{}, false
	}
	err := r.contract.check(st.Op, shape, doc)
	if err == nil {
		return judging.Basis{}, false
	}
	return r.contract.bodyBasis(st.Op, err), true
}

// acceptedMessage says what a target accepted that the contract refuses:
// for a body breaking its request schema, the field, the value sent and
// the rule ("POST /authorizations: `additional_purchase_data/item_data/0/quantity`
// -1 accepted with 201; §8: greater than 0"), from the validator's first
// violation (its pointer and keyword) and the basis's words; otherwise the
// step's rule, with the basis's words when it has them.
func (r *runner) acceptedMessage(st Step, tex Exchange, b judging.Basis, rule string) string {
	words := b.Cites()
	if b.Says != "" {
		words += ": " + b.Says
	}
	if v, value, vb, ok := r.bodyViolation(st); ok && r.basisFor(checkForbidden, st, vb).Cites() == b.Cites() {
		// Judged on the body's own basis: its violation is the rule.
		if b.Says == "" {
			words = v.Rule + ": " + v.Message + " (" + b.Cites() + ")"
		}
		return fmt.Sprintf("%s %s: `%s` %s accepted with %d; %s", st.Method, tex.Path, strings.TrimPrefix(v.Pointer, "/"), value, tex.Status, words)
	}
	msg := fmt.Sprintf("%s %s was accepted with %d; %s", st.Method, tex.Path, tex.Status, rule)
	if b.Says != "" && !strings.Contains(rule, b.Says) {
		msg += " (" + words + ")"
	}
	return msg
}

// maxValueShown bounds a value a message quotes, in characters.
const maxValueShown = 40

// bodyViolation is the first violation of st's JSON body against its
// request schema, with the value the body holds at its pointer ("absent"
// for a required field left out), rendered as JSON and cut to
// maxValueShown characters, and the body's basis.
func (r *runner) bodyViolation(st Step) (validate.Violation, string, judging.Basis, bool) {
	op, ok := r.v.Operation(st.Op)
	if !ok || st.Body == "" || !op.HasJSONBody() || op.Request == "" {
		return validate.Violation{}, "", judging.Basis{}, false
	}
	shape := r.contract.schemas[op.Request]
	if shape == nil {
		return validate.Violation{}, "", judging.Basis{}, false
	}
	dec := json.NewDecoder(strings.NewReader(st.Body))
	dec.UseNumber()
	var doc map[string]any
	if dec.Decode(&doc) != nil {
		return validate.Violation{}, "", judging.Basis{}, false
	}
	var ve *validate.Error
	err := r.contract.check(st.Op, shape, doc)
	if !errors.As(err, &ve) || len(ve.Violations) == 0 {
		return validate.Violation{}, "", judging.Basis{}, false
	}
	v, b := ve.Violations[0], r.contract.bodyBasis(st.Op, err)
	val, ok := atPointer(doc, v.Pointer)
	if !ok {
		return v, "absent", b, true
	}
	shown := render(val)
	if rs := []rune(shown); len(rs) > maxValueShown {
		shown = string(rs[:maxValueShown]) + "…"
	}
	return v, shown, b, true
}

// atPointer is the value of a decoded document at a JSON pointer.
func atPointer(doc any, ptr string) (any, bool) {
	if ptr == "" {
		return doc, true
	}
	cur := doc
	for seg := range strings.SplitSeq(strings.TrimPrefix(ptr, "/"), "/") {
		seg = strings.ReplaceAll(strings.ReplaceAll(seg, "~1", "/"), "~0", "~")
		switch x := cur.(type) {
		case map[string]any:
			v, ok := x[seg]
			if !ok {
				return nil, false
			}
			cur = v
		case []any:
			i, err := strconv.Atoi(seg)
			if err != nil || i < 0 || i >= len(x) {
				return nil, false
			}
			cur = x[i]
		default:
			return nil, false
		}
	}
	return cur, true
}
