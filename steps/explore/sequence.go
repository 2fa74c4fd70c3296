package explore

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/conform-kit/conform/steps/report"
)

// Sequences: one generated sequence sent step by step to the target and
// the model, every answer handed to the oracle.

// outcome is what one run of a sequence showed: its findings in the order
// found (a WARN the states survive does not end it), its trace and the
// spans of its actions' draws.
type outcome struct {
	found []found
	trace []Exchange
	marks []span
}

// found is a finding and the trace up to it.
type found struct {
	finding *Finding
	trace   []Exchange
}

// has reports whether the outcome holds a finding of the cause (Group).
func (o outcome) has(group string) (found, bool) {
	for _, f := range o.found {
		if f.finding.Group() == group {
			return f, true
		}
	}
	return found{}, false
}

// sequence generates and runs one sequence from the choices, judging every
// answer. replay is 0 for the run's own sequence, else the number of a
// replay while shrinking (its idempotency ids are its own, so the target
// does not answer it with the first run's resources).
//
// start, when set (a replay while shrinking), is each mutable fixture's
// fields when the sequence first ran, by fixture key: the target's
// fixtures are set so first (another sequence may have changed them since,
// and a payment with Level 2/3 data is refused or accepted after its
// merchant's).
func (r *runner) sequence(ctx context.Context, c *choices, index int, replay int, start map[string]map[string]any) (outcome, error) {
	count := replay == 0
	h, mcfg, closeModel, err := r.opts.Model()
	if err != nil {
		return outcome{}, fmt.Errorf("explore: model: %w", err)
	}
	defer closeModel()
	ctype := r.profile.RequestContentType
	model := newSide(handlerDo(h), modelBase, mcfg, ctype)
	target := newSide(r.client.Do, strings.TrimRight(r.opts.Target.URL, "/"), r.opts.Target, ctype)
	target.isTarget = true
	tag := fmt.Sprintf("%s-%d-%d", r.opts.RunID, r.opts.Seed, index)
	if replay != 0 {
		tag += fmt.Sprintf("-r%d", replay)
	}
	g := &generator{c: c, con: r.contract, seq: tag, profile: r.profile, offers: r.offers,
		roles: map[string][]string{}, auths: map[string]*authState{}, amounts: map[string]*amountState{}, deleted: map[string]bool{}, linkFile: map[string]string{}, linkType: map[string]string{}, enrolled: map[string]bool{}}
	g.hookBase = r.hookBase
	r.asking(g, target, model)
	g.useFixtures(func(key string) bool { return target.fixture(key) != "" && model.fixture(key) != "" })
	g.declineTrigger, _ = r.profile.DeclineTrigger()
	g.disputeTrigger, _ = r.profile.DisputeTrigger()
	var out outcome
	defer func() { r.disableWebhooks(ctx, target, out.trace) }()
	if err := r.setFixtures(ctx, target, start); err != nil {
		return out, err
	}
	// The model starts where the target is: each mutable fixture's fields.
	prelude, err := r.syncFixtures(ctx, target, model)
	if err != nil {
		return out, err
	}
	out.trace = append(out.trace, prelude...)
	n := 1 + c.draw(r.opts.MaxSteps)
	secrets := r.credentialSecrets()
	for range n {
		if count && r.spent(ctx) {
			break
		}
		c.begin()
		batch := g.next(r.actions)
		c.end()
		for _, st := range batch {
			f, exs, ok, err := r.step(ctx, st, target, model, &secrets, count)
			out.trace = append(out.trace, exs...)
			if err != nil {
				return out, err
			}
			if f != nil && !slices.ContainsFunc(out.found, func(x found) bool { return x.finding.Group() == f.Group() }) {
				out.found = append(out.found, found{finding: f, trace: slices.Clone(out.trace)})
			}
			if !ok || (f != nil && f.Outcome == report.Fail) {
				// A FAIL, or the target and the model no longer agree on
				// state (one accepted what the other refused): what
				// follows the model cannot predict.
				out.marks = c.mark
				return out, nil
			}
			if st.Op == "authorizations.capture" && st.Question == "" && lastOK(exs) {
				bindCaptureTransfer(st.Of, target, model)
			}
			g.observe(st, lastOK(exs))
		}
	}
	out.marks = c.mark
	return out, nil
}

// disableWebhooks turns off, on the target, the webhooks the sequence
// made, through the route the profile declares, outside the judged trace.
// Left enabled, each would receive every later event of its application at
// a receiver that closes with the run, and a shared sandbox's webhook quota
// would fill run after run (the suite's cleanup does the same). The
// answers are not judged: the sequence is over.
func (r *runner) disableWebhooks(ctx context.Context, target *side, trace []Exchange) {
	op, ok := r.v.Operation("webhooks.update")
	if !ok {
		return
	}
	method, pattern := r.profile.Route(op)
	ctx = context.WithoutCancel(ctx)
	for _, ex := range trace {
		if ex.Step.Op != "webhooks.create" || ex.Probe || !is2xx(ex.Status) {
			continue
		}
		doc, _ := ex.doc.(map[string]any)
		id, _ := doc["id"].(string)
		if id == "" {
			continue
		}
		path := strings.Replace(pattern, "{id}", url.PathEscape(id), 1)
		leave := r.phases.enter(phaseWrite, "webhooks")
		r.disableWebhook(ctx, target, Step{Op: op.ID, User: ex.User, Method: method, Path: path, Body: `{"enabled":false}`})
		leave()
	}
}

// disableWebhook sends one disable, each try with a deadline of its own,
// and tries once more when the first got no answer (a timeout, a reset).
// A deadline shared by all the disables of a sequence ran out on a slow
// target (a loaded CI machine) before the last webhooks were disabled, and
// a disable lost once left its webhook enabled for good. Disabling is
// idempotent, so a try that did arrive does no harm when sent again.
func (r *runner) disableWebhook(ctx context.Context, target *side, st Step) {
	for range 2 {
		tctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		_, err := target.send(tctx, st, st.Path)
		cancel()
		if err == nil {
			return
		}
	}
}

func lastOK(exs []Exchange) bool {
	for _, ex := range exs {
		if !ex.Page && !ex.Probe && ex.Step.Method != "" {
			return is2xx(ex.Status)
		}
	}
	return false
}

// credentialSecrets are the passwords of the configured users.
func (r *runner) credentialSecrets() []string {
	var out []string
	c := r.opts.Target.Users
	for _, cr := range []*User{c.Platform, c.Merchant, c.OtherApplication} {
		if cr != nil && len(cr.Password) >= 6 {
			out = append(out, cr.Password)
		}
	}
	return out
}

// step sends one step to the model and the target and judges the target's
// answers. ok is false when the sequence cannot go on comparing the two.
// Steps of concurrent sequences take turns where they share the target's
// state: a list walk (or the list reads around a refused create) never
// runs while a write does, and a step that depends on a merchant's Level
// 2/3 processing runs with the model set as the target last accepted it.
func (r *runner) step(ctx context.Context, st Step, target, model *side, secrets *[]string, count bool) (*Finding, []Exchange, bool, error) {
	if st.Question != "" {
		return r.question(ctx, st, target, model, secrets, count)
	}
	*secrets = append(*secrets, st.Secrets...)
	if st.Walk != nil {
		defer r.phases.enterWalk(listKind(st.Path))()
		f, exs, err := r.walk(ctx, st, target, *secrets)
		return f, exs, true, err
	}
	listPath := map[string]string{"webhooks.create": "/webhooks", "files.create": "/files"}[st.Op]
	probing := st.Refuse && st.Save != "" && listPath != ""
	switch {
	case probing:
		defer r.phases.enterProbe(listKind(listPath))()
	case st.Method != "GET":
		defer r.phases.enter(phaseWrite, writeKinds(st)...)()
	}
	var exs []Exchange
	defer r.fixtures.lockFor(st)()
	notes, err := r.resyncFixtures(ctx, st, target, model)
	if err != nil {
		return nil, nil, false, err
	}
	exs = append(exs, notes...)
	// A fixture update the contract refuses is read before and after, all
	// under the fixtures' lock: no other sequence's update comes between.
	var fixtureBefore *Exchange
	if m, ok := r.fixtures.byRole(st.Of); ok && st.Op == m.update && st.Refuse {
		get := Step{Op: m.get, Method: "GET", Path: st.Path, Of: st.Of}
		ex, err := target.send(ctx, get, get.Path)
		r.requests.Add(1)
		if err != nil {
			return nil, nil, false, err
		}
		ex.Probe = true
		fixtureBefore = &ex
		exs = append(exs, ex)
	}
	var probe *Exchange
	if probing {
		p := Step{Op: strings.TrimSuffix(st.Op, ".create") + ".list", Method: "GET", Path: listPath}
		ex, err := target.send(ctx, p, listPath+"?limit=1")
		r.requests.Add(1)
		if err != nil {
			return nil, nil, false, err
		}
		ex.Probe = true
		probe = &ex
		exs = append(exs, ex)
	}
	mex, err := model.send(ctx, st, st.Path)
	if err != nil {
		return nil, nil, false, err
	}
	routed := r.routed(st)
	r.sent.note(st.Op, st.Body)
	tex, err := target.send(ctx, routed, routed.Path)
	r.requests.Add(1)
	if err != nil {
		if st.Method != "GET" {
			r.phases.noteUnanswered(writeKinds(st)...)
		}
		r.fixtures.noteUnanswered(st)
		return nil, nil, false, err
	}
	if count {
		r.coverage.add(st, tex)
	}
	exs = append(exs, tex)
	if r.fixtures.isUpdate(st) {
		r.noteUpdate(st, target, model, mex)
	}
	if r.judged != nil {
		op, _ := r.v.Operation(st.Op)
		r.judged(st, expectationsOf(st, op, target), tex, mex)
	}
	f, ok := r.judge(st, tex, mex, target, model, *secrets)
	r.fixtures.noteRead(st, target)
	if f != nil && f.Check == checkAllowed {
		// Refused where the model accepted: was it the id's, held from an
		// earlier run? Then the target is not judged on it, and the states
		// part here (the create is that run's on the target).
		// (Where it was not, the finding's request stays last in its
		// trace: the request sent again, refused, changed nothing.)
		again, held, err := r.heldBefore(ctx, routed, target)
		if err != nil {
			return nil, exs, false, err
		}
		if held {
			return nil, append(exs, *again), false, nil
		}
	}
	if f != nil || !ok {
		return f, exs, ok, nil
	}
	if fixtureBefore != nil && is4xx(tex.Status) {
		after, err := target.send(ctx, fixtureBefore.Step, fixtureBefore.Step.Path)
		r.requests.Add(1)
		if err != nil {
			return nil, exs, false, err
		}
		after.Probe = true
		exs = append(exs, after)
		if msg, want, got, assert := r.fixtures.refusedUpdateChanged(st, *fixtureBefore, after); msg != "" {
			return r.finding(checkChangesNone, st, basisUnchanged, msg, want, got, assert), exs, true, nil
		}
	}
	if probe != nil && is4xx(tex.Status) {
		p := Step{Op: probe.Step.Op, Method: "GET", Path: probe.Step.Path}
		after, err := target.send(ctx, p, p.Path+"?limit=1")
		r.requests.Add(1)
		if err != nil {
			return nil, exs, false, err
		}
		after.Probe = true
		exs = append(exs, after)
		before, _ := lookupInt(probe.doc, "page.count")
		now, _ := lookupInt(after.doc, "page.count")
		if now != before && r.phases.settled(listKind(listPath)) {
			return r.finding(checkChangesNone, st, basisUnchanged,
				fmt.Sprintf("a refused %s left a trace: page.count %d before, %d after", st.Op, before, now),
				fmt.Sprintf("page.count = %d", before), fmt.Sprintf("%d", now), fmt.Sprintf(`the page count is %d`, before)), exs, true, nil
		}
	}
	return nil, exs, true, nil
}

// Replay runs one recipe (a finding's shrunk draws) of a sequence against
// the target once and returns what it finds, judged anew: nil when the
// sequence passes.
func Replay(ctx context.Context, opts Options, sequence int, recipe []uint32) (*Finding, error) {
	r, err := newRunner(opts)
	if err != nil {
		return nil, err
	}
	stop, err := r.startReceiver()
	if err != nil {
		return nil, err
	}
	defer stop()
	// A replay's idempotency ids are its own: a target keeps the run's.
	out, err := r.sequence(ctx, replay(recipe), sequence, int(time.Now().UnixNano()%1e9)+1, nil)
	if err != nil || len(out.found) == 0 {
		return nil, err
	}
	f := r.render(*out.found[0].finding, out.found[0].trace)
	f.Sequence, f.Seed, f.Recipe = sequence, opts.Seed, recipe
	return &f, nil
}
