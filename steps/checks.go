package steps

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"

	"github.com/cucumber/godog"

	"github.com/conform-kit/conform/validate"
	"github.com/conform-kit/conform/validate/judging"
)

// opBasis is the basis of an exchange's success or refusal at all: the
// step's when it is assumed, else the operation's (assumed under its key for
// extensions and the webhook routes, else the spec sections it implements,
// with the scenario's).
func (s *scenario) opBasis(ex *exchange) judging.Basis {
	b := s.stepBasis()
	if !b.Normative() || !ex.hasOp {
		return b
	}
	if ob := judging.OperationBasisOnRoute(ex.op, judging.RouteAnswered(ex.status)); !ob.Normative() {
		return ob
	}
	b.Clauses = union(ex.op.Clauses, b.Clauses)
	return b
}

func union(a, b []string) []string {
	out := slices.Clone(a)
	for _, v := range b {
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

// onUndeclaredRoute reports whether a webhook create or update was answered
// 405 on the route the profile declares: the target uses another one.
func onUndeclaredRoute(ex *exchange) bool {
	return ex.hasOp && judging.OperationBasis(ex.op).Assumed == judging.KeyWebhookRoutes && ex.status == http.StatusMethodNotAllowed
}

// refusalNotAsked reports whether a refusal says the target does not take
// the request's route at all (an extension it does not offer, a webhook
// route it does not use): the refusal the step expects was never asked, and
// checkRefused has judged it so.
func refusalNotAsked(ex *exchange, kind string) bool {
	return notOffered(ex, kind) || onUndeclaredRoute(ex)
}

// refusalClauses are the spec sections a failed refusal check cites: the
// scenario's own sections that the kind of refusal is normative by (a
// capture over the amount cites §4.1, not every section with a field
// rule), else the scenario's sections (they are why this request must be
// refused), else the kind's.
func refusalClauses(kind, scenario []string) []string {
	var both []string
	for _, c := range scenario {
		if slices.Contains(kind, c) {
			both = append(both, c)
		}
	}
	switch {
	case len(both) > 0:
		return both
	case len(scenario) > 0:
		return slices.Clone(scenario)
	}
	return slices.Clone(kind)
}

// checkSuccess: a 2xx (by the operation's basis: normative for the
// operations the spec names), the declared success status (assumed:
// create_status or success_status), and the response schema. A non-2xx of
// an assumed operation warns and stops the scenario: what follows depends on it.
func (s *scenario) checkSuccess(ex *exchange) error {
	if ex.status < 200 || ex.status > 299 {
		if notOffered(ex, "") {
			if err := s.judgeCheck(s.notOfferedCheck(ex, "2xx")); err != nil {
				return err
			}
			return fmt.Errorf("%w: the rest of the scenario depends on %s", godog.ErrSkip, ex.op.ID)
		}
		b := s.opBasis(ex)
		c := Check{Basis: b, Key: b.Assumed, Expected: "2xx", Observed: strconv.Itoa(ex.status), Err: s.failf(ex, "status %d, want 2xx", ex.status)}
		if b.Assumed == "operation_roles" && ex.hasOp && ex.status == http.StatusForbidden {
			c.Key, c.Expected, c.Observed = "operation_roles."+ex.op.ID, "the "+ex.user+" user may call it", "403"
			c.Patch = rolesWithout(s.suite.profile.Roles(ex.op), ex.op.ID, userRole(ex.user))
		}
		if b.Assumed == "webhook_routes" && ex.hasOp && ex.status == http.StatusMethodNotAllowed {
			routeByAllow(&c, s.suite.profile, ex)
		}
		if err := s.judgeCheck(c); err != nil {
			return err
		}
		return fmt.Errorf("%w: the rest of the scenario depends on this assumed success", godog.ErrSkip)
	}
	if ex.hasOp {
		if want := s.suite.profile.SuccessStatus(ex.op); ex.status != want {
			key := "success_status." + ex.op.ID
			if _, declared := s.suite.profile.SuccessStatusByOp[ex.op.ID]; !declared && ex.op.Status == 201 {
				key = "create_status"
			}
			patch := map[string]any{"success_status": map[string]int{ex.op.ID: ex.status}}
			if err := s.assume(key, strconv.Itoa(want), strconv.Itoa(ex.status), patch, s.failf(ex, "status %d, want %d (%s)", ex.status, want, ex.op.ID)); err != nil {
				return err
			}
		}
	}
	return s.checkSchema(ex)
}

// routeByAllow reads a webhook operation's method from the Allow header of
// a 405 on its declared path: the one write method allowed there is the
// observed route.
func routeByAllow(c *Check, p judging.Profile, ex *exchange) {
	method, pattern := p.Route(ex.op)
	c.Key, c.Expected = "webhook_routes."+ex.op.ID, method+" "+pattern
	c.Observed = "405, Allow: " + ex.header.Get("Allow")
	if write, ok := otherWriteMethod(ex.header.Get("Allow"), method); ok {
		b, _ := json.Marshal(map[string]any{"webhook_routes": map[string]string{ex.op.ID: write + " " + pattern}})
		c.Patch = b
	}
}

// userRole is the role of a credential key of the config.
func userRole(user string) string {
	if user == "merchant" {
		return "ROLE_MERCHANT"
	}
	return "ROLE_PLATFORM"
}

// rolesWithout is the profile object declaring that role may not call the operation.
func rolesWithout(roles []string, opID, role string) json.RawMessage {
	kept := without(roles, func(r string) bool { return r == role })
	b, _ := json.Marshal(map[string]any{"operation_roles": map[string][]string{opID: kept}})
	return b
}

// checkSchema validates a 2xx body against the operation's response schema,
// judged by the schema's basis in judging.json (never by the step's: the
// same fact is judged the same way in every scenario) or, for an operation
// that is itself assumed, under its key; then the reference's exact forms
// (validate.AssumedValue: id_form, timestamp_precision, payloads the spec
// does not show, ...), each a WARN under its profile key unless the profile
// declares the target's own choice. Each response is judged once: send
// checks every 2xx response.
func (s *scenario) checkSchema(ex *exchange) error {
	if !ex.hasOp || ex.op.Response == "" || ex.schemaJudged {
		return nil
	}
	ex.schemaJudged = true
	b, _ := s.suite.j.SchemaBasis(ex.op.Response)
	if b.Normative() {
		if err := s.suite.v.Validate(ex.op.Response, ex.body); err != nil {
			msg := s.failCause(ex, err, "response does not match schema %q: %s", ex.op.Response, violations(err))
			if ob := judging.OperationBasis(ex.op); !ob.Normative() {
				if err := s.assume(ob.Assumed, "schema "+ex.op.Response, "violations", nil, msg); err != nil {
					return err
				}
			} else if err := s.judgeCheck(Check{Basis: b, Err: msg}); err != nil {
				return err
			}
		}
	}
	return s.checkForms(ex)
}

// checkForms judges the deviations of a response from the reference's exact
// forms (validate.AssumedValue), once per key, expected and observed.
func (s *scenario) checkForms(ex *exchange) error {
	devs, err := s.suite.j.AssumedValue(ex.op.Response, ex.doc, s.suite.profile)
	if err != nil {
		return nil // not a JSON document: the schema check has judged it
	}
	seen := map[judging.Deviation]bool{}
	var errs []error
	for _, d := range devs {
		k := judging.Deviation{Key: d.Key, Expected: d.Expected, Observed: d.Observed}
		if seen[k] {
			continue
		}
		seen[k] = true
		errs = append(errs, s.assume(d.Key, d.Expected, d.Observed, deviationPatch(d), s.failf(ex, "%s", d)))
	}
	return errors.Join(errs...)
}

// deviationPatch is the profile object that declares a deviation's observed
// choice, when one can be read from it.
func deviationPatch(d judging.Deviation) any {
	switch d.Key {
	case "id_form":
		return map[string]any{"id_form": "[0-9A-Za-z]+"}
	case "signing_key_form":
		// One secret shows its alphabet, not the target's: any printable form.
		return map[string]any{"signing_key_form": `\S+`}
	case "timestamp_precision":
		var n int
		if _, err := fmt.Sscanf(d.Observed, "%d fractional digits", &n); err == nil && n > 0 {
			return map[string]any{"timestamp_precision": n}
		}
	case "api_key_literal":
		if lit, err := strconv.Unquote(d.Observed); err == nil {
			return map[string]any{"api_key_literal": lit}
		}
		return map[string]any{"api_key_literal": ""}
	case "file_payloads", "event_layout", "resource_values":
		return map[string]any{d.Key: judging.Unchecked}
	}
	return nil
}

// checkRefused: the request was refused (any 4xx) with a well-formed §7
// envelope: normative, by the basis of the refusal's row (refusals table of
// judging.json) and the scenario's sections; the declared status and codes
// of that kind of refusal are assumed (refusals.<kind>). kind "" is a
// refusal of no particular kind.
func (s *scenario) checkRefused(ex *exchange, kind string) error {
	b := s.stepBasis()
	var form judging.RefusalForm
	if kind != "" {
		row, ok := s.suite.j.Refusal(kind)
		if !ok {
			return &kitError{fmt.Errorf("unknown kind of refusal %q", kind)}
		}
		form = s.suite.profile.Refusal(kind)
		switch {
		case !b.Normative():
		case !row.Normative():
			b = row.Basis
		default:
			b.Clauses = refusalClauses(row.Clauses, b.Clauses)
			b.Invariants = union(row.Invariants, b.Invariants)
			b.Says = cmp.Or(b.Says, s.says, row.Says) // the scenario's words before the kind's
		}
	}
	if kind == judging.RefusalForbidden && ex.hasOp && ex.op.ID != "merchants.update" && slices.Contains(s.suite.profile.Roles(ex.op), userRole(ex.user)) {
		// §5 item 6 leaves which roles call what open: a profile letting
		// this role call the operation declares the refusal absent.
		return &skipDeclared{key: "operation_roles", value: ex.op.ID + " with " + userRole(ex.user)}
	}
	if ex.status < 400 || ex.status > 499 {
		b = s.bodyBasis(ex, kind, b)
		want := "4xx"
		if kind != "" {
			want = "4xx (" + kind + ", declared " + form.String() + ")"
		}
		c := Check{Basis: b, Key: b.Assumed, Expected: want, Observed: strconv.Itoa(ex.status),
			Err: s.failf(ex, "status %d, want a refusal: %s", ex.status, want)}
		if kind == judging.RefusalForbidden && b.Assumed == "operation_roles" && ex.hasOp && ex.status >= 200 && ex.status <= 299 {
			// The role called it: the target lets it.
			c.Key, c.Expected, c.Observed = "operation_roles."+ex.op.ID, "the "+ex.user+" user may not call it", strconv.Itoa(ex.status)
			roles := append(slices.Clone(s.suite.profile.Roles(ex.op)), userRole(ex.user))
			c.Patch, _ = json.Marshal(map[string]any{"operation_roles": map[string][]string{ex.op.ID: roles}})
		}
		if kind == judging.RefusalDeclined && b.Assumed == "decline_trigger_amount" && ex.status >= 200 && ex.status <= 299 {
			c.Expected, c.Observed, c.Patch = "a decline", "accepted", json.RawMessage(`{"decline_trigger_amount": 0}`)
		}
		return s.judgeCheck(c)
	}
	if notOffered(ex, kind) {
		// The target does not offer the extension: the refusal was never asked.
		return s.judgeCheck(s.notOfferedCheck(ex, "a refusal: "+orNone(kind)))
	}
	if err := s.checkEnvelope(ex); err != nil || kind == "" {
		return err
	}
	if onUndeclaredRoute(ex) {
		// The declared route is not the target's: the refusal was never asked.
		c := Check{Basis: judging.Basis{Assumed: "webhook_routes", Clauses: slices.Clone(s.clauses)},
			Err: s.failf(ex, "status 405 on the declared route of %s, want a refusal: %s", ex.op.ID, kind)}
		routeByAllow(&c, s.suite.profile, ex)
		return s.judgeCheck(c)
	}
	seen := refusalSeen(kind, ex)
	s.suite.observed.refusal(seen)
	if form = form.ForOperation(seen.Operation); !form.StatusMatches(ex.status) || !form.CodeMatches(seen.Codes) {
		// No patch: the writer reads every refusal of the kind the run
		// observed (Summary.Observed), not this one alone.
		observed := judging.RefusalForm{Status: ex.status, Codes: seen.Codes}
		return s.assume("refusals."+kind, form.String(), observed.String(), nil,
			s.failf(ex, "refused with %s, want %s (%s)", observed, form, kind))
	}
	return nil
}

// bodyBasis is the basis of a missed invalid_field refusal of a body that
// breaks its request schema: the judge's (judging.BodyBasis), so a body a
// rule of the spec forbids FAILs with that rule's sentence, and a body
// that breaks only a rule the spec does not state (an unknown field, an
// empty string, both merchant names) WARNs under the rule's key, whatever
// the scenario is tagged: the suite, the exploration and the proxy judge
// one body alike. A body the schema takes (a business rule: a capture
// over the amount) keeps the scenario's basis b.
func (s *scenario) bodyBasis(ex *exchange, kind string, b judging.Basis) judging.Basis {
	if kind != judging.RefusalInvalidField || !b.Normative() || !ex.hasOp || ex.reqBody == nil {
		return b
	}
	body, ok := s.suite.j.BodyBasis(ex.op, ex.reqBody)
	if !ok {
		return b
	}
	if !body.Normative() {
		return judging.Basis{Assumed: body.Assumed, Clauses: slices.Clone(s.clauses)}
	}
	b.Says = body.Says
	b.Clauses = union(body.Clauses, b.Clauses)
	return b
}

// without is a copy of list less the members drop picks, never nil (a
// profile list observed empty is written [], not null).
func without(list []string, drop func(string) bool) []string {
	return nonNil(slices.DeleteFunc(slices.Clone(list), drop))
}

func nonNil(list []string) []string {
	if list == nil {
		return []string{}
	}
	return list
}

// errorSchema is the resource schema of the §7 error envelope.
const errorSchema = "error"

// checkEnvelope validates the §7 error envelope (normative by the error
// schema's basis); its total equal to its items is assumed (resource_values).
func (s *scenario) checkEnvelope(ex *exchange) error {
	if err := s.suite.v.Resource(errorSchema, ex.body); err != nil {
		b, _ := s.suite.j.SchemaBasis(errorSchema)
		fe := s.failCause(ex, err, "error body is not the §7 envelope: %s", violations(err))
		return s.judgeCheck(Check{Basis: b, Err: fe})
	}
	if s.declaresUnchecked(keyResourceValues) {
		return nil
	}
	items, _ := lookup(ex.doc, "_embedded.errors")
	list, _ := items.([]any)
	total, _ := lookup(ex.doc, "total")
	if n, ok := asInt(total); !ok || n != int64(len(list)) || n < 1 {
		return s.assume(keyResourceValues, "total = number of errors", render(total),
			map[string]any{keyResourceValues: judging.Unchecked},
			s.failf(ex, "envelope total %v, want the number of errors %d (≥1)", total, len(list)))
	}
	return nil
}

// Profile keys the steps judge by name (schemas/judging.json).
const (
	keyResourceValues = "resource_values"
	keyReferenceRules = "reference_rules"
	keyResourceEvents = "resource_events"
)

// errorField collects one field of every envelope item.
func errorField(doc any, field string) []string {
	items, _ := lookup(doc, "_embedded.errors")
	list, _ := items.([]any)
	var out []string
	for _, it := range list {
		if m, ok := it.(map[string]any); ok {
			if v, ok := m[field].(string); ok {
				out = append(out, v)
			}
		}
	}
	return out
}

func containsString(list []string, want string) bool {
	for _, v := range list {
		if v == want {
			return true
		}
	}
	return false
}

// lookup walks a dotted path ("_links.self.href", "items.0.id") through a document.
func lookup(doc any, path string) (any, bool) { return validate.FieldAt(doc, path) }

// asInt reads a JSON number (json.Number or float64) as an integer.
func asInt(v any) (int64, bool) {
	switch n := v.(type) {
	case json.Number:
		i, err := n.Int64()
		return i, err == nil
	case float64:
		return int64(n), n == float64(int64(n))
	case int64:
		return n, true
	case int:
		return int64(n), true
	}
	return 0, false
}

// render shows a JSON value compactly in messages.
func render(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// isAbsoluteURL reports an http(s) URL with a host.
func isAbsoluteURL(v any) bool {
	str, ok := v.(string)
	if !ok {
		return false
	}
	u, err := url.Parse(str)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}
