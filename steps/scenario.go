package steps

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/conform-kit/conform/steps/report"
)

// scenario is the state of one scenario: who calls, the last exchange, the
// resources created so far by role name, and the verdict being built.
type scenario struct {
	suite *suite

	name, feature string
	start         time.Time
	tags          []string
	allAssumed    bool     // tagged @assumed: every generic check is assumed under profileKey
	profileKey    string   // the @profile-<key> tag of an @assumed scenario
	clauses       []string // the spec sections of the @spec-* tags
	says          string   // the scenario's description: the spec's words it rests on
	stepKey       string   // the profile key of a step ending in "(assumed: <key>)"

	auth       authMode
	user       string // credential key of the current user
	last       *exchange
	ids        map[string]string    // role name ("authorization", "card") → id
	docs       map[string]any       // role name → last fetched representation
	amounts    map[string]int64     // role name → amount
	secrets    []string             // values masked in every message
	sent       map[string]string    // secrets sent ("card number", "security code") by name
	first      map[string]*exchange // first response of an idempotent request, by role
	batch      []*exchange          // responses to requests sent at once
	uniq       string               // scope of idempotency keys
	remembered []any                // items of an earlier list page
	forms      map[string]string    // request forms the target took instead of the declared ones, by profile key

	hookToken    string
	hookURL      string
	hookCh       <-chan delivery
	hookSecret   string
	hookPassword string  // the basic authentication password of the webhook under test
	webhooks     []owned // webhooks to disable at the end
	restore      func(ctx context.Context) error

	skipped string // why the scenario stopped, when a step skipped it
	rec     record // what the reports need, its verdicts among them (outcome.go)
}

// owned is a resource id with the credential key of the user who created it.
type owned struct{ id, user string }

// authMode is how the next requests authenticate.
type authMode int

const (
	authUser          authMode = iota // the current user's credentials
	authNone                          // no Authorization header
	authWrongPassword                 // the current user with a wrong password
)

func newScenario(s *suite) *scenario {
	return &scenario{
		suite:   s,
		user:    "platform",
		ids:     map[string]string{},
		docs:    map[string]any{},
		amounts: map[string]int64{},
		sent:    map[string]string{},
		first:   map[string]*exchange{},
		forms:   map[string]string{},
	}
}

// cleanup disables the webhooks the scenario created, restores what it
// toggled and closes its receiver route.
func (s *scenario) cleanup(ctx context.Context) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.suite.cfg.Timeout)
	defer cancel()
	s.auth = authUser
	for _, w := range s.webhooks {
		ex, err := s.disableOwned(ctx, w)
		if err == nil && (ex.status < 200 || ex.status > 299) {
			s.verdict(Verdict{Report: report.Check{Kind: report.KindAssumed, Step: "clean-up", Message: fmt.Sprintf("could not disable webhook %s: status %d", w.id, ex.status)}})
		}
	}
	if s.restore != nil {
		if err := s.restore(ctx); err != nil {
			s.verdict(Verdict{Report: report.Check{Kind: report.KindNormative, Clauses: slices.Clone(s.clauses), Step: "clean-up", Message: err.Error()}})
		}
	}
	if s.hookToken != "" {
		s.suite.recv.unregister(s.hookToken)
	}
}

// disableOwned disables a webhook the scenario created, through the route
// the run declares. A target that refuses that route with 405 and names one
// other write method in Allow (a route the run has not declared yet) is
// asked again with that method: a webhook left enabled receives every later
// event of its application at a receiver route that is closed, and run
// after run those deliveries pile up on the target.
func (s *scenario) disableOwned(ctx context.Context, w owned) (*exchange, error) {
	path := "/webhooks/" + w.id
	off := map[string]any{"enabled": false}
	ex, err := s.send(ctx, "PUT", path, off, w.user)
	if err != nil || ex.status != http.StatusMethodNotAllowed {
		return ex, err
	}
	if method, ok := otherWriteMethod(ex.header.Get("Allow"), ex.method); ok {
		return s.send(ctx, method, path, off, w.user)
	}
	return ex, nil
}

// otherWriteMethod is the one write method of an Allow header other than
// refused, if there is exactly one.
func otherWriteMethod(allow, refused string) (string, bool) {
	var writes []string
	for _, m := range strings.Split(allow, ",") {
		m = strings.ToUpper(strings.TrimSpace(m))
		if (m == "PUT" || m == "PATCH" || m == "POST") && m != refused && !slices.Contains(writes, m) {
			writes = append(writes, m)
		}
	}
	if len(writes) != 1 {
		return "", false
	}
	return writes[0], true
}

// deadline returns the end of an asynchronous wait started now.
func (s *scenario) deadline() time.Time { return time.Now().Add(s.suite.cfg.WaitTimeout) }
