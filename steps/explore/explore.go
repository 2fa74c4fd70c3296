// Package explore generates request sequences from the contract, sends
// each to a target and to a fresh model (a conformant server answering the
// same sequence in-process), judges every answer by the kit's judging law
// and shrinks a failing sequence to the fewest, simplest requests that fail
// the same check on the same basis. A finding prints as a Gherkin scenario
// in the suite's own step vocabulary, a curl replay script and the seed.
//
// The package never imports the reference: the model is a Model, which the
// CLI wires to the bundled reference.
package explore

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/conform-kit/conform/steps"
	"github.com/conform-kit/conform/steps/report"
	"github.com/conform-kit/conform/validate"
	"github.com/conform-kit/conform/validate/judging"
)

// Model gives a fresh conformant server for each sequence: its handler, the
// users and fixtures it seeded (in the suite's config form), and a function
// releasing it.
type Model func() (http.Handler, steps.Config, func(), error)

// Options configure an exploration.
type Options struct {
	// Target is the server under test: base URL, users, fixtures, profile.
	Target steps.Config
	// Model answers every sequence as a conformant server would.
	Model Model
	// Client sends the target's requests; default a client with a 10s timeout.
	Client *http.Client
	// Seed decides every request; the same seed and RunID send the same requests.
	Seed uint64
	// RunID makes the run's idempotency ids its own, so a run does not
	// replay an earlier run's answers; default derived from the clock.
	RunID string
	// Budget bounds the requests sent to the target (0: none).
	Budget int
	// Time bounds the exploration (0: none). With neither bound, DefaultTime.
	Time time.Duration
	// Ops selects operations by id with comma-separated path.Match
	// patterns ("authorizations.*,transfers.create"); "" selects all.
	Ops string
	// Strict turns WARN into FAIL.
	Strict bool
	// MaxSteps bounds the actions of a sequence; default 20.
	MaxSteps int
	// ShrinkRuns bounds the replays spent shrinking one finding; default 300.
	ShrinkRuns int
	// FirstFinding stops the exploration at its first finding (a self-test).
	FirstFinding bool
	// Log receives a line per finding as it is found (nil: none).
	Log io.Writer
}

// DefaultTime is the exploration's length when no bound is given.
const DefaultTime = 20 * time.Second

// ErrOptions reports unusable options.
var ErrOptions = errors.New("explore: options")

// Result is what an exploration found and covered.
type Result struct {
	Seed      uint64
	RunID     string
	Requests  int // sent to the target, shrinking included
	Sequences int
	Duration  time.Duration
	Findings  []Finding
	// Coverage is every operation the explorer can reach with the
	// target's answers; Schemas every request schema (and the list query)
	// with the leaves sent and the keyword boundaries reached.
	Coverage []report.ExploredOp
	Schemas  []report.ExploredSchema
}

// Failed reports whether any finding is a FAIL (WARN too under strict).
func (r Result) Failed() bool {
	for _, f := range r.Findings {
		if f.Outcome == report.Fail {
			return true
		}
	}
	return false
}

// Count is the number of findings of an outcome.
func (r Result) Count(o report.Outcome) int {
	n := 0
	for _, f := range r.Findings {
		if f.Outcome == o {
			n++
		}
	}
	return n
}

// Finding is one failed check, shrunk.
type Finding struct {
	Check    string // checkShape, checkEnvelope, ...
	Op       string
	Outcome  report.Outcome
	Basis    judging.Basis
	Message  string
	Expected string
	Observed string
	// Sequence is the index of the sequence (under Seed) that first failed.
	Sequence int
	// Seed is the run's seed; Recipe the shrunk sequence's draws.
	Seed   uint64
	Recipe []uint32
	// Original and Shrunk are the numbers of requests before and after shrinking.
	Original, Shrunk int
	// Occurrences counts the sequences that failed the same way.
	Occurrences int
	// Trace is the shrunk sequence as sent to the target.
	Trace []Exchange
	// Gherkin is the shrunk sequence as a feature in the suite's step
	// vocabulary; Curl a replay script.
	Gherkin, Curl string
	assert        string // the suite step that fails
}

// Key groups findings: the same check on the same basis for one operation.
func (f Finding) Key() string {
	return f.Check + "|" + f.Op + "|" + string(f.Outcome) + "|" + f.Basis.Cites()
}

// Clause is the finding's basis as a report cites it.
func (f Finding) Clause() string { return f.Basis.Cites() }

// Exchange is one request and its answer.
type Exchange struct {
	Step        Step
	User        string
	Method      string
	Path        string // expanded, with query
	ContentType string
	Body        string // expanded
	Status      int
	Response    string
	doc         any
	// Page is set on the pages of a walk after the first, and on the
	// prelude's reads; Probe on the list reads around a refused create.
	Page, Probe bool
}

// Check names.
const (
	checkServerError   = "no 5xx for a request"
	checkShape         = "normative response shape"
	checkEnvelope      = "error envelope on a refusal"
	checkForbidden     = "forbidden request refused"
	checkAllowed       = "allowed request not refused"
	checkChangesNone   = "refused request changes nothing"
	checkReadBack      = "read back as sent"
	checkComputed      = "computed field"
	checkListWalk      = "list pages walk to page.count"
	checkListComplete  = "list holds what the run made"
	checkTenancy       = "another application sees nothing"
	checkSecrets       = "no secret in an answer"
	checkSuccessStatus = "success status"
)

// Run explores the target until the budget or the time is spent, or ctx ends.
func Run(ctx context.Context, opts Options) (Result, error) {
	r, err := newRunner(opts)
	if err != nil {
		return Result{}, err
	}
	return r.run(ctx)
}

type runner struct {
	opts     Options
	v        *validate.Validator
	j        *judging.Judge
	profile  judging.Profile
	defaults judging.Profile
	actions  []action
	client   *http.Client
	start    time.Time
	requests int
	replays  int
	hookBase string // the explorer's own webhook receiver, answering 200 to every delivery
	contract *contract
	coverage *coverage
	deadline time.Time
}

func newRunner(opts Options) (*runner, error) {
	if opts.Model == nil {
		return nil, fmt.Errorf("%w: a model is required", ErrOptions)
	}
	if opts.Target.Target == "" {
		return nil, fmt.Errorf("%w: a target URL is required", ErrOptions)
	}
	if opts.Budget < 0 || opts.Time < 0 {
		return nil, fmt.Errorf("%w: budget and time must not be negative", ErrOptions)
	}
	j, err := judging.Default()
	if err != nil {
		return nil, err
	}
	v := j.Validator()
	prof := j.DefaultProfile()
	if len(opts.Target.Profile) > 0 {
		if prof, err = j.MergeProfile(prof, opts.Target.Profile); err != nil {
			return nil, fmt.Errorf("%w: profile: %w", ErrOptions, err)
		}
	}
	if opts.MaxSteps <= 0 {
		opts.MaxSteps = 20
	}
	if opts.ShrinkRuns <= 0 {
		opts.ShrinkRuns = 300
	}
	if opts.RunID == "" {
		opts.RunID = strconv.FormatInt(time.Now().UnixNano()%1e9, 36)
	}
	if opts.Budget == 0 && opts.Time == 0 {
		opts.Time = DefaultTime
	}
	client := opts.Client
	if client == nil {
		client = &http.Client{Timeout: 10 * time.Second}
	}
	r := &runner{opts: opts, v: v, j: j, profile: prof, defaults: j.DefaultProfile(), client: client}
	if r.contract, err = newContract(v, prof.ListMaxLimit); err != nil {
		return nil, err
	}
	r.coverage = newCoverage(r.contract)
	var patterns []string
	for p := range strings.SplitSeq(opts.Ops, ",") {
		if p = strings.TrimSpace(p); p != "" {
			if _, err := path.Match(p, ""); err != nil {
				return nil, fmt.Errorf("%w: --ops pattern %q: %w", ErrOptions, p, err)
			}
			patterns = append(patterns, p)
		}
	}
	selected := func(op string) bool {
		if len(patterns) == 0 {
			return true
		}
		for _, p := range patterns {
			if ok, _ := path.Match(p, op); ok {
				return true
			}
		}
		return false
	}
	r.actions = actionsFor(r.offers, selected)
	if len(r.actions) == 0 {
		return nil, fmt.Errorf("%w: --ops %q selects no operation the target offers", ErrOptions, opts.Ops)
	}
	hasAlways := false
	for _, a := range r.actions {
		if a.ready(&generator{roles: map[string][]string{}, deleted: map[string]bool{}}) {
			hasAlways = true
		}
	}
	if !hasAlways {
		// The selected operations need resources made by others: add their makers.
		for _, a := range actionsFor(r.offers, func(op string) bool {
			return op == "payment_instruments.create" || op == "authorizations.create" || op == "webhooks.create" ||
				op == "files.create" || op == "subscription_schedules.create" || op == "subscription_amounts.create" || op == "subscription_enrollments.create"
		}) {
			r.actions = append(r.actions, a)
		}
	}
	return r, nil
}

// offers reports whether the target offers the operation (its profile's extensions).
func (r *runner) offers(id string) bool {
	op, ok := r.v.Operation(id)
	return ok && r.profile.Offers(op)
}

// sequenceSeed derives the seed of sequence i of a run.
func sequenceSeed(seed uint64, i int) uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%d/%d", seed, i)
	return h.Sum64()
}

func (r *runner) run(ctx context.Context) (Result, error) {
	r.start = time.Now()
	stop, err := r.startReceiver()
	if err != nil {
		return Result{}, err
	}
	defer stop()
	if r.opts.Time > 0 {
		r.deadline = r.start.Add(r.opts.Time)
	}
	res := Result{Seed: r.opts.Seed, RunID: r.opts.RunID}
	byKey := map[string]int{}
	for i := 0; !r.spent(ctx); i++ {
		res.Sequences++
		c := newChoices(sequenceSeed(r.opts.Seed, i))
		out, err := r.sequence(ctx, c, i, true)
		if err != nil {
			return res, err
		}
		if out.finding == nil {
			continue
		}
		f := *out.finding
		if j, ok := byKey[f.Key()]; ok {
			res.Findings[j].Occurrences++
			continue
		}
		f.Sequence, f.Seed, f.Original = i, r.opts.Seed, len(requestsOf(out.trace))
		shrunk := r.shrink(ctx, c.used(), f, i, out.trace)
		byKey[shrunk.Key()] = len(res.Findings)
		if r.opts.Log != nil {
			fmt.Fprintf(r.opts.Log, "explore: %s %s [%s] %s (%d → %d requests)\n", shrunk.Outcome, shrunk.Check, shrunk.Clause(), shrunk.Op, shrunk.Original, shrunk.Shrunk)
		}
		res.Findings = append(res.Findings, shrunk)
		if r.opts.FirstFinding {
			break
		}
	}
	res.Requests, res.Duration = r.requests, time.Since(r.start)
	res.Coverage, res.Schemas = r.coverageRows()
	return res, nil
}

// spent reports whether the budget or the time is used up.
func (r *runner) spent(ctx context.Context) bool {
	if ctx.Err() != nil {
		return true
	}
	if r.opts.Budget > 0 && r.requests >= r.opts.Budget {
		return true
	}
	return !r.deadline.IsZero() && time.Now().After(r.deadline)
}

// outcome is what one run of a sequence showed.
type outcome struct {
	finding *Finding
	trace   []Exchange
	marks   []span
}

// side is one server answering the sequence: the target or the model.
type side struct {
	do       func(*http.Request) (*http.Response, error)
	base     string
	cfg      steps.Config
	ids      map[string]string
	docs     map[string]map[string]any // role → last document seen of it
	expect   map[string][]expectField  // role → fields its reads must show
	ctype    string
	isTarget bool
}

// newSide is a side that has seen nothing yet.
func newSide(do func(*http.Request) (*http.Response, error), base string, cfg steps.Config, ctype string) *side {
	return &side{do: do, base: base, cfg: cfg, ctype: ctype,
		ids: map[string]string{}, docs: map[string]map[string]any{}, expect: map[string][]expectField{}}
}

// fixtures are the side's {fixture:key} values, in the order of steps.Fixtures.
func (s *side) fixtures() [][2]string {
	f := s.cfg.Fixtures
	return [][2]string{
		{"buyer_identity", f.BuyerIdentity}, {"merchant", f.Merchant}, {"merchant_identity", f.MerchantIdentity},
		{"plain_merchant", f.PlainMerchant}, {"plain_merchant_identity", f.PlainMerchantIdentity},
		{"subscription_schedule", f.SubscriptionSchedule}, {"subscription_amount", f.SubscriptionAmount},
		{"dispute", f.Dispute}, {"balance_transfer", f.BalanceTransfer},
	}
}

// fixture is the side's value of one fixture key ("" if unset or unknown).
func (s *side) fixture(key string) string {
	for _, kv := range s.fixtures() {
		if kv[0] == key {
			return kv[1]
		}
	}
	return ""
}

// expand replaces {role} and {fixture:key} as the suite's steps do.
func (s *side) expand(text string) string {
	if !strings.Contains(text, "{") {
		return text
	}
	var pairs []string
	for k, v := range s.ids {
		pairs = append(pairs, "{"+k+"}", v)
	}
	for _, kv := range s.fixtures() {
		pairs = append(pairs, "{fixture:"+kv[0]+"}", kv[1])
	}
	return strings.NewReplacer(pairs...).Replace(text)
}

func (s *side) credential(user string) *steps.Credential {
	switch user {
	case userMerchant:
		return s.cfg.Credentials.Merchant
	case userOther:
		return s.cfg.Credentials.OtherApplication
	}
	return s.cfg.Credentials.Platform
}

// send performs one request of the step on the side.
func (s *side) send(ctx context.Context, st Step, pathWithQuery string) (Exchange, error) {
	ex := Exchange{Step: st, User: st.User, Method: st.Method, Path: s.expand(pathWithQuery), Body: s.expand(st.Body), ContentType: st.ContentType}
	if ex.User == "" {
		ex.User = userPlatform
	}
	var body io.Reader
	if st.Body != "" {
		body = strings.NewReader(ex.Body)
		if ex.ContentType == "" {
			ex.ContentType = s.ctype
		}
	}
	req, err := http.NewRequestWithContext(ctx, st.Method, s.base+ex.Path, body)
	if err != nil {
		return ex, fmt.Errorf("explore: build request: %w", err)
	}
	if ex.ContentType != "" {
		req.Header.Set("Content-Type", ex.ContentType)
	}
	if c := s.credential(ex.User); c != nil {
		req.SetBasicAuth(c.Username, c.Password)
	}
	resp, err := s.do(req)
	if err != nil {
		return ex, fmt.Errorf("explore: %s %s: %w", st.Method, ex.Path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		return ex, fmt.Errorf("explore: read %s %s: %w", st.Method, ex.Path, err)
	}
	ex.Status, ex.Response = resp.StatusCode, string(data)
	if len(bytes.TrimSpace(data)) > 0 {
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		var doc any
		if dec.Decode(&doc) == nil {
			ex.doc = doc
		}
	}
	return ex, nil
}

// handlerDo serves a request with an in-process handler.
func handlerDo(h http.Handler) func(*http.Request) (*http.Response, error) {
	return func(req *http.Request) (*http.Response, error) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec.Result(), nil
	}
}

const modelBase = "http://model.explore.invalid"

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
	g := &generator{c: c, seq: tag, profile: r.profile, offers: r.offers,
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

// coverageRows renders the coverage tables in a stable order: every
// operation the explorer can reach, in the operations table's order.
func (r *runner) coverageRows() ([]report.ExploredOp, []report.ExploredSchema) {
	return r.coverage.rows(r.v.Operations(), func(op validate.Operation) bool {
		return r.profile.Offers(op) && slices.ContainsFunc(r.actions, func(a action) bool { return a.op == op.ID })
	})
}

// startReceiver listens where the config's webhook receiver says (default
// a loopback port) and answers every delivery 200, so the webhooks a run
// makes point somewhere that takes their events without retries.
func (r *runner) startReceiver() (func(), error) {
	listen := r.opts.Target.WebhookReceiver.Listen
	if listen == "" {
		listen = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return nil, fmt.Errorf("%w: webhook receiver: %w", ErrOptions, err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		_, _ = io.Copy(io.Discard, req.Body)
	}), ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(ln) //nolint:errcheck // ErrServerClosed after stop
	r.hookBase = strings.TrimRight(r.opts.Target.WebhookReceiver.PublicURL, "/")
	if r.hookBase == "" {
		r.hookBase = "http://" + ln.Addr().String()
	}
	return func() { _ = srv.Close() }, nil
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

// routed is the step as the target takes it: the method and path its
// profile declares for the operation (webhook_routes), the ids kept.
func (r *runner) routed(st Step) Step {
	op, ok := r.v.Operation(st.Op)
	if !ok {
		return st
	}
	method, pattern := r.profile.Route(op)
	if method == op.Method && pattern == op.Path {
		return st
	}
	// The table's pattern and the step's path have the same segments: the
	// step's placeholders fill the declared pattern's parameters in order.
	var fills []string
	tmpl, concrete := strings.Split(op.Path, "/"), strings.Split(st.Path, "/")
	for i, seg := range tmpl {
		if strings.HasPrefix(seg, "{") && i < len(concrete) {
			fills = append(fills, concrete[i])
		}
	}
	var out []string
	for _, seg := range strings.Split(pattern, "/") {
		if strings.HasPrefix(seg, "{") && len(fills) > 0 {
			seg, fills = fills[0], fills[1:]
		}
		out = append(out, seg)
	}
	st.Method, st.Path = method, strings.Join(out, "/")
	return st
}
