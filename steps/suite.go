// Package steps holds the godog step definitions of the conformance suite and
// its runner: configuration, the judging model (PASS, FAIL, WARN, SKIP, ERROR),
// the webhook receiver and the reports.
//
// Run is the entry point: a suite value holds what every scenario shares and
// never changes; godog calls its initializeScenario once per scenario, which
// builds a fresh state value, so scenarios can run concurrently and in random order.
package steps

import (
	"fmt"
	"net/http"
	"regexp"
	"time"

	"github.com/cucumber/godog"
	"github.com/go-resty/resty/v2"

	"github.com/conform-kit/conform/validate"
	"github.com/conform-kit/conform/validate/judging"
)

// stepDef binds one precompiled, anchored pattern to a method of the scenario state.
type stepDef struct {
	re      *regexp.Regexp
	pattern string // as written, unanchored: what Vocabulary renders
	bind    func(s *scenario) any
}

// step compiles pattern once, anchored, also accepting a trailing
// " (assumed: <profile key>)" that judges the step's checks under that key
// (WARN rather than FAIL).
func step(pattern string, bind func(s *scenario) any) stepDef {
	return stepDef{re: regexp.MustCompile(`^` + pattern + `(?: \(assumed: [a-z_]+\))?$`), pattern: pattern, bind: bind}
}

// suite is what every scenario of one run shares: the configuration, one HTTP
// client, the validator, the webhook receiver and the results.
type suite struct {
	cfg     Config
	client  *resty.Client
	v       *validate.Validator
	j       *judging.Judge
	table   judging.Table // j's table, copied once: checks read it, never change it
	recv    *receiver
	strict  bool
	defs    []stepDef
	results *recorder
	catalog *catalog
	// observed collects the choices the scenarios judged, for the writer.
	observed *observer
	// profile is the target's declared choices (the config's profile over
	// the reference's defaults); profileKeys the keys of judging.json.
	profile     judging.Profile
	profileKeys map[string]bool
}

// newSuite prepares a suite for cfg. With strict, an assumed check that fails
// fails its scenario. cat selects the scenarios; notify receives each verdict.
// Close releases the webhook receiver.
func newSuite(cfg Config, strict bool, cat *catalog, notify func(ScenarioResult)) (*suite, error) {
	if err := cfg.Check(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults(time.Now())
	v, err := validate.New()
	if err != nil {
		return nil, fmt.Errorf("steps: load schemas: %w", err)
	}
	j, err := judging.New(v)
	if err != nil {
		return nil, fmt.Errorf("steps: load the judging table: %w", err)
	}
	recv, err := newReceiver(cfg.WebhookReceiver)
	if err != nil {
		return nil, err
	}
	client := resty.New().
		SetTimeout(cfg.Timeout).
		SetRedirectPolicy(resty.NoRedirectPolicy()).
		SetDisableWarn(true)
	client.SetTransport(&http.Transport{MaxIdleConnsPerHost: 64, MaxIdleConns: 64, IdleConnTimeout: 30 * time.Second})
	profile, err := cfg.decodeProfile(j)
	if err != nil {
		_ = recv.Close()
		return nil, err
	}
	table := j.Table()
	keys := map[string]bool{}
	for _, k := range table.Profile {
		keys[k.Key] = true
	}
	s := &suite{cfg: cfg, client: client, v: v, j: j, table: table, recv: recv, strict: strict, results: newRecorder(notify), catalog: cat, profile: profile, profileKeys: keys, observed: &observer{}}
	s.defs = allSteps()
	return s, nil
}

// close stops the webhook receiver.
func (s *suite) close() error { return s.recv.Close() }

// initializeScenario registers every step on sc, bound to a fresh scenario state.
func (s *suite) initializeScenario(sc *godog.ScenarioContext) {
	st := newScenario(s)
	for _, d := range s.defs {
		sc.Step(d.re, d.bind(st))
	}
	sc.Before(st.before)
	sc.StepContext().Before(st.beforeStep)
	sc.StepContext().After(st.afterStep)
	sc.After(st.after)
}

// allSteps lists the step definitions of every vocabulary file.
func allSteps() []stepDef {
	var defs []stepDef
	for _, group := range stepGroups() {
		defs = append(defs, group.defs...)
	}
	return defs
}

// stepGroup is the step definitions of one vocabulary file.
type stepGroup struct {
	name string
	defs []stepDef
}

// stepGroups are the step definitions by vocabulary file, in the order
// they are matched.
func stepGroups() []stepGroup {
	return []stepGroup{
		{"requests", httpSteps()}, {"response fields", fieldSteps()}, {"errors", errorSteps()},
		{"authentication", authenticationSteps()}, {"authorizations", authorizationSteps()},
		{"level 2/3 data", level3Steps()}, {"sales", transferSteps()}, {"payment cards", paymentInstrumentSteps()},
		{"merchants", merchantSteps()}, {"subscriptions", subscriptionSteps()}, {"disputes", disputeSteps()},
		{"balance transfers", balanceTransferSteps()}, {"files", fileSteps()}, {"webhooks", webhookSteps()},
		{"webhook silence", webhookSilenceSteps()}, {"lists", listSteps()},
	}
}
