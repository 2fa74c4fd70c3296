package explore

import (
	"context"
	"fmt"
	"strings"

	"github.com/conform-kit/conform/steps"
)

// Sequences: one generated sequence sent step by step to the target and
// the model, every answer handed to the oracle.

// outcome is what one run of a sequence showed.
type outcome struct {
	finding *Finding
	trace   []Exchange
	marks   []span
}

// sequence generates and runs one sequence from the choices, judging every answer.
func (r *runner) sequence(ctx context.Context, c *choices, index int, count bool) (outcome, error) {
	h, mcfg, closeModel, err := r.opts.Model()
	if err != nil {
		return outcome{}, fmt.Errorf("explore: model: %w", err)
	}
	defer closeModel()
	ctype := r.profile.RequestContentType
	model := newSide(handlerDo(h), modelBase, mcfg, ctype)
	target := newSide(r.client.Do, strings.TrimRight(r.opts.Target.Target, "/"), r.opts.Target, ctype)
	target.isTarget = true
	tag := fmt.Sprintf("%s-%d-%d", r.opts.RunID, r.opts.Seed, index)
	if !count {
		// A replay while shrinking: idempotency ids of its own, so the
		// target does not answer it with the first run's resources.
		r.replays++
		tag += fmt.Sprintf("-r%d", r.replays)
	}
	g := &generator{c: c, con: r.contract, seq: tag, profile: r.profile, offers: r.offers,
		roles: map[string][]string{}, auths: map[string]*authState{}, amounts: map[string]*amountState{}, deleted: map[string]bool{}, linkFile: map[string]string{}, linkType: map[string]string{}, enrolled: map[string]bool{}}
	g.hookBase = r.hookBase
	g.declineTrigger, _ = r.profile.DeclineTrigger()
	g.disputeTrigger, _ = r.profile.DisputeTrigger()
	var out outcome
	// The model starts where the target is: each merchant's Level 2/3 processing.
	prelude, err := r.syncMerchants(ctx, target, model)
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
			if f != nil {
				out.finding = f
				out.marks = c.mark
				return out, nil
			}
			if !ok {
				// The model's answer rests on an assumption the target
				// declares otherwise: the two no longer agree on state.
				out.marks = c.mark
				return out, nil
			}
			g.observe(st, lastOK(exs))
		}
	}
	out.marks = c.mark
	return out, nil
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
	c := r.opts.Target.Credentials
	for _, cr := range []*steps.Credential{c.Platform, c.Merchant, c.OtherApplication} {
		if cr != nil && len(cr.Password) >= 6 {
			out = append(out, cr.Password)
		}
	}
	return out
}

// syncMerchants reads each merchant's Level 2/3 processing on the target
// and sets the model's alike; the reads are the sequence's prelude.
func (r *runner) syncMerchants(ctx context.Context, target, model *side) ([]Exchange, error) {
	var out []Exchange
	for _, role := range []string{"merchant", "plain merchant"} {
		key := fixtureOfMerchant(role)
		if target.fixture(key) == "" || model.fixture(key) == "" {
			continue
		}
		get := Step{Op: "merchants.get", Method: "GET", Path: "/merchants/{fixture:" + key + "}", Of: role}
		ex, err := target.send(ctx, get, get.Path)
		r.requests++
		if err != nil {
			return out, err
		}
		on := false
		if m, ok := ex.doc.(map[string]any); ok {
			on, _ = m["level_two_level_three_data_enabled"].(bool)
			target.docs[role] = m
		}
		ex.Page = true // not part of the scenario's own requests
		out = append(out, ex)
		set := Step{Op: "merchants.update", Method: "PUT", Path: "/merchants/{fixture:" + key + "}", Body: fmt.Sprintf(`{"level_two_level_three_data_enabled":%t}`, on)}
		if _, err := model.send(ctx, set, set.Path); err != nil {
			return out, err
		}
	}
	return out, nil
}

// step sends one step to the model and the target and judges the target's
// answers. ok is false when the sequence cannot go on comparing the two.
func (r *runner) step(ctx context.Context, st Step, target, model *side, secrets *[]string, count bool) (*Finding, []Exchange, bool, error) {
	*secrets = append(*secrets, st.Secrets...)
	if st.Walk != nil {
		f, exs, err := r.walk(ctx, st, target, *secrets)
		return f, exs, true, err
	}
	var probe *Exchange
	listPath := map[string]string{"webhooks.create": "/webhooks", "files.create": "/files"}[st.Op]
	if st.Refuse && st.Save != "" && listPath != "" {
		p := Step{Op: strings.TrimSuffix(st.Op, ".create") + ".list", Method: "GET", Path: listPath}
		ex, err := target.send(ctx, p, listPath+"?limit=1")
		r.requests++
		if err != nil {
			return nil, nil, false, err
		}
		ex.Probe = true
		probe = &ex
	}
	mex, err := model.send(ctx, st, st.Path)
	if err != nil {
		return nil, nil, false, err
	}
	routed := r.routed(st)
	tex, err := target.send(ctx, routed, routed.Path)
	r.requests++
	if err != nil {
		return nil, nil, false, err
	}
	if count {
		r.coverage.add(st, tex)
	}
	exs := []Exchange{tex}
	if probe != nil {
		exs = []Exchange{*probe, tex}
	}
	if r.judged != nil {
		op, _ := r.v.Operation(st.Op)
		r.judged(st, expectationsOf(st, op, target), tex, mex)
	}
	f, ok := r.judge(st, tex, mex, target, model, *secrets)
	if f != nil || !ok {
		return f, exs, ok, nil
	}
	if probe != nil && is4xx(tex.Status) {
		p := Step{Op: probe.Step.Op, Method: "GET", Path: probe.Step.Path}
		after, err := target.send(ctx, p, p.Path+"?limit=1")
		r.requests++
		if err != nil {
			return nil, exs, false, err
		}
		after.Probe = true
		exs = append(exs, after)
		before, _ := lookupInt(probe.doc, "page.count")
		now, _ := lookupInt(after.doc, "page.count")
		if now != before {
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
	out, err := r.sequence(ctx, replay(recipe), sequence, false)
	if err != nil || out.finding == nil {
		return nil, err
	}
	f := r.render(*out.finding, out.trace)
	f.Sequence, f.Seed, f.Recipe = sequence, opts.Seed, recipe
	return &f, nil
}
