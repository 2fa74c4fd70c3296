package explore

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/conform-kit/conform/validate"
)

// The fixtures the run's sequences share and change: each fixture an
// update operation of the contract changes (a merchant's Level 2/3
// processing today), with the fields of the update's request schema.
// Sequences running at once update them, and steps of others depend on
// them (a payment with Level 2/3 data is refused or accepted after its
// merchant's flag): an update runs alone, a dependent step beside the
// others' dependent steps, and every side keeps the values it last set or
// saw.

// mutableFixture is one fixture the sequences update: its fixture key,
// the role the generator names it by, the path of its read and of its
// update, the update's operation and method, and the fields of the
// update's request schema with a value each takes when a read omits it.
type mutableFixture struct {
	key, role string
	path      string // "/merchants/{fixture:merchant}"
	get       string // the read's operation id
	update    string // the update's operation id
	noun      string // the resource, singular ("merchant")
	method    string // the update's method
	fields    []string
	zero      map[string]any
}

// fixtureRoles are the fixtures every sequence may update and others'
// steps depend on, by role, key and resource: the two merchants. (The
// fixture subscription amount is updated too, once a run (§3.2): a
// sequence finding it updated by another ends there instead.)
func fixtureRoles() [][3]string {
	return [][3]string{{"merchant", "merchant", "merchants"}, {"plain merchant", "plain_merchant", "merchants"}}
}

// sharedFixtures is the fixtures' state the run's sequences share: which
// fixtures are mutable and their fields (read from the update schemas),
// the lock an update holds alone and a dependent step holds with others,
// and how many updates the run sent to each.
type sharedFixtures struct {
	list   []mutableFixture
	lock   sync.RWMutex
	mu     sync.Mutex     // guards writes and the sides' seen
	writes map[string]int // fixture key → the run's updates sent to it
}

// newSharedFixtures reads the mutable fixtures from the contract: each
// role's resource's update operation and the members of its request schema.
func newSharedFixtures(v *validate.Validator, c *contract) *sharedFixtures {
	sf := &sharedFixtures{writes: map[string]int{}}
	for _, fr := range fixtureRoles() {
		role, key, resource := fr[0], fr[1], fr[2]
		get, okGet := v.Operation(resource + ".get")
		up, okUp := v.Operation(resource + ".update")
		schema := c.schemas[c.ops[up.ID]]
		if !okGet || !okUp || schema == nil {
			continue
		}
		m := mutableFixture{key: key, role: role, get: get.ID, update: up.ID, method: up.Method, noun: strings.TrimSuffix(resource, "s"), zero: map[string]any{},
			path: strings.Replace(get.Path, "{id}", "{fixture:"+key+"}", 1)}
		for _, p := range schema.Props {
			m.fields = append(m.fields, p.Name)
			m.zero[p.Name] = zeroOf(p)
		}
		sf.list = append(sf.list, m)
	}
	return sf
}

// zeroOf is the value a read that omits a field is taken to hold.
func zeroOf(s *shape) any {
	switch {
	case s.has("boolean"):
		return false
	case s.has("integer"), s.has("number"):
		return json.Number("0")
	case s.has("string"):
		return ""
	}
	return nil
}

// byRole is the mutable fixture a role names, if any.
func (sf *sharedFixtures) byRole(role string) (mutableFixture, bool) {
	i := slices.IndexFunc(sf.list, func(m mutableFixture) bool { return m.role == role })
	if i < 0 {
		return mutableFixture{}, false
	}
	return sf.list[i], true
}

// keyOf is the fixture key of a step on a mutable fixture ("" for others).
func (sf *sharedFixtures) keyOf(st Step) string {
	m, _ := sf.byRole(st.Of)
	return m.key
}

// isUpdate reports whether st is an update of a mutable fixture.
func (sf *sharedFixtures) isUpdate(st Step) bool {
	return slices.ContainsFunc(sf.list, func(m mutableFixture) bool { return m.update == st.Op })
}

// bound reports whether a step reads, changes or depends on a mutable
// fixture: a merchant's read or update, or a payment with Level 2/3 data.
func (sf *sharedFixtures) bound(st Step) bool {
	return slices.ContainsFunc(sf.list, func(m mutableFixture) bool { return m.get == st.Op || m.update == st.Op }) || dependsOnFixture(st)
}

// dependsOnFixture reports whether a step's answer depends on a mutable
// fixture's fields: Level 2/3 data on a payment.
func dependsOnFixture(st Step) bool { return strings.Contains(st.Body, "additional_purchase_data") }

// fields are the mutable fixtures' fields, each once, in table order.
func (sf *sharedFixtures) fields() []string {
	var out []string
	for _, m := range sf.list {
		for _, f := range m.fields {
			if !slices.Contains(out, f) {
				out = append(out, f)
			}
		}
	}
	return out
}

// isField reports whether path is a field of a mutable fixture.
func (sf *sharedFixtures) isField(path string) bool {
	return slices.ContainsFunc(sf.list, func(m mutableFixture) bool { return slices.Contains(m.fields, path) })
}

// updateStep is the update setting a fixture's fields to values.
func (m mutableFixture) updateStep(values map[string]any) Step {
	body, _ := json.Marshal(values) // a map's keys in order: the same bytes for the same values
	return Step{Op: m.update, Method: m.method, Path: m.path, Body: string(body)}
}

// fieldsOf are the fixture's fields a document shows (a field it omits
// is taken as its zero), and whether it shows them all.
func (m mutableFixture) fieldsOf(doc any, zero bool) (map[string]any, bool) {
	d, _ := doc.(map[string]any)
	out, all := map[string]any{}, true
	for _, f := range m.fields {
		v, ok := d[f]
		switch {
		case ok && v != nil:
			out[f] = v
		case zero:
			out[f] = m.zero[f]
			all = false
		default:
			all = false
		}
	}
	return out, all
}

// setFixtures sets the target's mutable fixtures to start (by fixture key)
// as the platform, outside the judged trace, counting each as an update
// other sequences did not see.
func (r *runner) setFixtures(ctx context.Context, target *side, start map[string]map[string]any) error {
	sf := r.fixtures
	for _, key := range slices.Sorted(maps.Keys(start)) {
		i := slices.IndexFunc(sf.list, func(m mutableFixture) bool { return m.key == key })
		if i < 0 {
			continue
		}
		set := sf.list[i].updateStep(start[key])
		sf.lock.Lock()
		_, err := target.send(ctx, set, set.Path)
		r.requests.Add(1)
		sf.mu.Lock()
		sf.writes[key]++
		sf.mu.Unlock()
		sf.lock.Unlock()
		if err != nil {
			return err
		}
	}
	return nil
}

// startState is each mutable fixture's fields as the prelude of a trace
// read them, by fixture key.
func (sf *sharedFixtures) startState(trace []Exchange) map[string]map[string]any {
	out := map[string]map[string]any{}
	for _, ex := range trace {
		m, ok := sf.byRole(ex.Step.Of)
		if !ex.Page || !ok || ex.Step.Op != m.get || !is2xx(ex.Status) {
			break
		}
		if vals, _ := m.fieldsOf(ex.doc, false); len(vals) > 0 {
			out[m.key] = vals
		}
	}
	return out
}

// syncFixtures reads each mutable fixture on the target and sets the
// model's alike; the reads are the sequence's prelude.
func (r *runner) syncFixtures(ctx context.Context, target, model *side) ([]Exchange, error) {
	sf := r.fixtures
	var out []Exchange
	for _, m := range sf.list {
		if target.fixture(m.key) == "" || model.fixture(m.key) == "" {
			continue
		}
		get := Step{Op: m.get, Method: "GET", Path: m.path, Of: m.role}
		sf.lock.RLock()
		ex, err := target.send(ctx, get, get.Path)
		r.requests.Add(1)
		if err != nil {
			sf.lock.RUnlock()
			return out, err
		}
		vals, _ := m.fieldsOf(ex.doc, true)
		if d, ok := ex.doc.(map[string]any); ok {
			target.docs[m.role] = d
		}
		sf.mu.Lock()
		target.seen[m.key] = sf.writes[m.key]
		sf.mu.Unlock()
		sf.lock.RUnlock()
		model.fixed[m.key] = vals
		ex.Page = true // not part of the scenario's own requests
		out = append(out, ex)
		set := m.updateStep(vals)
		if _, err := model.send(ctx, set, set.Path); err != nil {
			return out, err
		}
	}
	return out, nil
}

// lockFor takes the fixtures' lock a step needs, if any: alone for an
// update, beside others for a step that reads or depends on one. The
// returned function releases it.
func (sf *sharedFixtures) lockFor(st Step) func() {
	switch {
	case !sf.bound(st):
		return func() {}
	case sf.isUpdate(st):
		sf.lock.Lock()
		return sf.lock.Unlock
	}
	sf.lock.RLock()
	return sf.lock.RUnlock
}

// noteUpdate counts an update of a mutable fixture sent to the target
// (accepted or not: a refused one may change it too, and then only this
// sequence can tell) and notes the model's fields. Called under the lock.
func (r *runner) noteUpdate(st Step, target, model *side, mex Exchange) {
	sf := r.fixtures
	m, ok := sf.byRole(st.Of)
	if !ok {
		return
	}
	sf.mu.Lock()
	stale := sf.writes[m.key] != target.seen[m.key]
	sf.writes[m.key]++
	if !stale {
		target.seen[m.key] = sf.writes[m.key]
	}
	sf.mu.Unlock()
	if !is2xx(mex.Status) {
		return
	}
	if vals, _ := m.fieldsOf(mex.doc, false); len(vals) > 0 {
		fixed := maps.Clone(model.fixed[m.key])
		if fixed == nil {
			fixed = map[string]any{}
		}
		maps.Copy(fixed, vals)
		model.fixed[m.key] = fixed
	}
}

// noteUnanswered counts an update the target never answered: it may still
// be applied, to every sequence another's update.
func (sf *sharedFixtures) noteUnanswered(st Step) {
	if key := sf.keyOf(st); key != "" && sf.isUpdate(st) {
		sf.mu.Lock()
		sf.writes[key]++
		sf.mu.Unlock()
	}
}

// noteRead records that a read of a mutable fixture showed it as it now
// is, and drops from the sequence's expectations the fields another
// sequence changed since it last saw them.
func (sf *sharedFixtures) noteRead(st Step, target *side) {
	key := sf.keyOf(st)
	if key == "" || st.Method != "GET" {
		return
	}
	if sf.othersWrote(st, target) {
		// What this sequence sent to the fixture is no longer what it shows.
		target.expect[st.Of] = slices.DeleteFunc(target.expect[st.Of], func(e expectField) bool { return sf.isField(e.Path) })
	}
	sf.mu.Lock()
	target.seen[key] = sf.writes[key]
	sf.mu.Unlock()
}

// resyncFixtures reads the fixtures a dependent step names on the target
// (both merchants for a capture, whose body names none) and sets the
// model's alike, when another sequence changed one since this one began
// (the read is then a note the scenario prints as the state it goes on
// from). Called under the lock.
func (r *runner) resyncFixtures(ctx context.Context, st Step, target, model *side) ([]Exchange, error) {
	if !dependsOnFixture(st) {
		return nil, nil
	}
	var notes []Exchange
	named := slices.ContainsFunc(r.fixtures.list, func(m mutableFixture) bool { return namesFixture(st.Body, m.key) })
	for _, m := range r.fixtures.list {
		if named && !namesFixture(st.Body, m.key) {
			continue // the body names another
		}
		had, ok := model.fixed[m.key]
		if !ok || target.fixture(m.key) == "" {
			continue
		}
		get := Step{Op: m.get, Method: "GET", Path: m.path, Of: m.role}
		ex, err := target.send(ctx, get, get.Path)
		r.requests.Add(1)
		if err != nil {
			return notes, err
		}
		now, all := m.fieldsOf(ex.doc, false)
		if !all || sameJSON(now, had) {
			continue
		}
		set := m.updateStep(now)
		if _, err := model.send(ctx, set, set.Path); err != nil {
			return notes, err
		}
		model.fixed[m.key] = now
		ex.Page = true // not part of the scenario's own requests
		notes = append(notes, ex)
	}
	return notes, nil
}

// namesFixture reports whether a body names the fixture key's resource:
// "{fixture:merchant}" or "{fixture:merchant_identity}", not
// "{fixture:plain_merchant}".
func namesFixture(body, key string) bool {
	for i := 0; ; {
		j := strings.Index(body[i:], "{fixture:"+key)
		if j < 0 {
			return false
		}
		rest := body[i+j+len("{fixture:"+key):]
		if strings.HasPrefix(rest, "}") || strings.HasPrefix(rest, "_identity}") {
			return true
		}
		i += j + 1
	}
}

// othersWrote reports whether another sequence sent an update of the
// mutable fixture a step reads since this one last saw it: its fields are
// then what the run as a whole made them, which this sequence cannot
// predict (nor blame on its own requests).
func (sf *sharedFixtures) othersWrote(st Step, target *side) bool {
	key := sf.keyOf(st)
	if key == "" {
		return false
	}
	sf.mu.Lock()
	defer sf.mu.Unlock()
	return sf.writes[key] != target.seen[key]
}

// own is the document a refused request's read compares with: without the
// fixture's fields when another sequence may have changed them.
func (sf *sharedFixtures) own(st Step, target *side, doc map[string]any) map[string]any {
	if doc == nil || !sf.othersWrote(st, target) {
		return doc
	}
	out := maps.Clone(doc)
	maps.DeleteFunc(out, func(k string, _ any) bool { return sf.isField(k) })
	return out
}

// ownExpect is a read's expectations, less the fixture's fields when
// another sequence may have changed them.
func (sf *sharedFixtures) ownExpect(st Step, target *side, expect []expectField) []expectField {
	if !sf.othersWrote(st, target) {
		return expect
	}
	return slices.DeleteFunc(slices.Clone(expect), func(e expectField) bool { return sf.isField(e.Path) })
}

// refusedUpdateChanged compares a mutable fixture read before and after a
// refused update: the first field whose value changed, as a finding's
// message, expectation, observation and assertion ("" when none did).
func (sf *sharedFixtures) refusedUpdateChanged(st Step, before, after Exchange) (msg, want, got, assert string) {
	m, ok := sf.byRole(st.Of)
	if !ok || !is2xx(before.Status) || !is2xx(after.Status) {
		return "", "", "", ""
	}
	for _, field := range m.fields {
		b, had := lookup(before.doc, field)
		a, has := lookup(after.doc, field)
		if had && (!has || !sameValue(a, b)) {
			return fmt.Sprintf("a refused %s update changed %s of the %s: %s before, %s after", m.noun, field, st.Of, render(b), renderOK(a, has)),
				field + " = " + render(b), renderOK(a, has), fieldAssert(field, b)
		}
	}
	return "", "", "", ""
}
