// Package reference is the in-memory reference implementation of the Payments
// Service API: one http.Handler serving every operation of the operations
// table (schemas/operations.json), with every assumption of the kit where the spec
// is silent (features/README.md, "Assumptions"). It validates requests with the validate package, keeps its
// state in a Store (memory by default, or PostgreSQL), and seeds
// deterministic fixtures (two applications, users, merchants, a dispute, ...)
// that Seeded returns.
//
// The reference models the contract, not the real service.
package reference

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"
	"net/url"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/conform-kit/conform/reference/ledger"
	"github.com/conform-kit/conform/validate"
	"github.com/conform-kit/conform/validate/judging"
)

// Config configures a Server. The zero value is usable.
type Config struct {
	// BaseURL is the absolute base of every _links href and external link
	// URL; "" derives it from each request (scheme and Host).
	BaseURL string
	// Now is the clock; default time.Now.
	Now func() time.Time
	// NewID generates the ids of created resources; default random base62.
	NewID func(prefix string) string
	// Seed makes the seeded fixtures (ids, credentials) deterministic.
	Seed int64
	// ReviewDelay is how long the simulated file review and the dispute
	// INQUIRY stage last; default 1s.
	ReviewDelay time.Duration
	// RetryScale multiplies the webhook retry backoff; default 1.
	RetryScale float64
	// WebhookClient delivers webhook events; default a client with a 10s
	// timeout, no proxy, whose dialer refuses addresses WebhookAllow does not
	// admit. A client given here keeps its transport; redirects are never
	// followed either way.
	WebhookClient *http.Client
	// WebhookAllow lists the non-public ranges webhook URLs may reach besides
	// public addresses; nil means LocalNetworks (loopback and private ranges,
	// right for a server bound to loopback), empty means public addresses
	// only. Link-local and metadata addresses are refused whatever it says.
	WebhookAllow []netip.Prefix
	// Limits bounds what clients may store; the zero value takes the
	// defaults (see Limits).
	Limits ledger.Limits
	// NamespaceIdleTTL is how long a namespace (see CreateNamespace) is
	// kept after the last request authenticated into it; default 1h, <0 keeps
	// namespaces until dropped.
	NamespaceIdleTTL time.Duration
	// MaxNamespaces bounds the namespaces held at once; default 64, <0 no bound.
	MaxNamespaces int
	// Store keeps the Server's state: nil is MemoryStore(), everything in
	// this process; OpenPostgres gives a PostgreSQL database that Servers
	// (replicas) on it share as one sandbox, and PostgresLedger one that
	// keeps only the idempotency keys. The Server does not close it.
	Store ledger.Store
	// BodyBudget bounds the bytes of request bodies read and held at once
	// (a JSON body counts four times); requests beyond it wait their turn.
	// Default 16 MiB (DefaultBodyBudget); <0 no bound.
	BodyBudget int64
	// Logger receives operational logs; default discards them.
	Logger *slog.Logger
}

// Server is the reference implementation; it is an http.Handler safe for
// concurrent use. Close stops its timers and webhook deliveries.
type Server struct {
	cfg      Config
	log      *slog.Logger
	v        *validate.Validator
	judged   judging.Table       // judging.json: the status and codes of each kind of refusal
	units    ledger.SandboxStore // the store seam: every request is one unit of work
	mux      *http.ServeMux
	fixtures ledger.Seeded
	policy   webhookPolicy
	limits   ledger.Limits // cfg.Limits with defaults
	bodies   *bodyBudget
	answers  sync.Pool // of *[]byte: buffers answers are encoded into (writeJSON)

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup // webhook deliveries and review timers
	swept  chan struct{}  // closed when the expiry sweeper has returned

	lifeMu sync.Mutex
	timers map[*time.Timer]struct{}
	lines  map[string]*hookLine // webhook deliveries waiting for their first attempts, per application and host (webhooks.go)
	// pending holds each webhook's deliveries not yet settled, oldest
	// first, at most Limits.PendingDeliveries (webhooks.go), by
	// application and webhook id.
	pending map[string][]*pendingDelivery
	closed  bool
}

// New builds a Server: it fills Config defaults, seeds the fixtures and
// registers every operation of the operations table.
func New(cfg Config) (*Server, error) {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.NewID == nil {
		cfg.NewID = ledger.RandomID
	}
	if cfg.ReviewDelay <= 0 {
		cfg.ReviewDelay = time.Second
	}
	if cfg.RetryScale <= 0 {
		cfg.RetryScale = 1
	}
	cfg.NamespaceIdleTTL = ledger.Pick(cfg.NamespaceIdleTTL, DefaultNamespaceIdleTTL)
	cfg.MaxNamespaces = ledger.Pick(cfg.MaxNamespaces, DefaultMaxNamespaces)
	cfg.BodyBudget = ledger.Pick(cfg.BodyBudget, DefaultBodyBudget)
	policy := newWebhookPolicy(cfg.WebhookAllow)
	if cfg.WebhookClient == nil {
		cfg.WebhookClient = policy.webhookClient()
	} else {
		c := *cfg.WebhookClient
		c.CheckRedirect = noRedirects
		cfg.WebhookClient = &c
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	cfg.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	v, err := validate.Default()
	if err != nil {
		return nil, fmt.Errorf("reference: load schemas: %w", err)
	}
	j, err := judging.Default()
	if err != nil {
		return nil, fmt.Errorf("reference: load the judging table: %w", err)
	}
	if cfg.Store == nil {
		cfg.Store = MemoryStore()
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &Server{
		judged: j.Table(),
		cfg:    cfg,
		policy: policy,
		log:    cfg.Logger,
		v:      v,
		limits: cfg.Limits.WithDefaults(),
		ctx:    ctx,
		cancel: cancel,
		timers: map[*time.Timer]struct{}{},
		bodies: newBodyBudget(cfg.BodyBudget),
	}
	if s.units, s.fixtures, err = cfg.Store.Open(ctx, s.storeEnv()); err != nil {
		cancel()
		s.wg.Wait()
		return nil, err
	}
	s.sweepEveryMinute()
	if s.mux, err = s.routes(); err != nil {
		cancel()
		return nil, fmt.Errorf("reference: %w", err)
	}
	return s, nil
}

// storeEnv is what the Server's store takes from it: the clock, ids,
// limits and seed, and the Server's side of delivering what units set in
// motion (in this process, or claimed from a shared store).
func (s *Server) storeEnv() ledger.StoreEnv {
	return ledger.StoreEnv{
		Clock: s.cfg.Now, NewID: s.cfg.NewID, Seed: s.cfg.Seed, Limits: s.limits,
		Dispatch: s.dispatch,
		Work: ledger.Worker{
			Ctx: s.ctx, Log: s.log, Spawn: s.spawn,
			RunTimer: s.runTimer, NewEvent: s.newEvent, Post: s.postClaimed,
		},
	}
}

// spawn runs fn in a goroutine Close waits for, unless the Server is
// closed (false).
func (s *Server) spawn(fn func()) bool {
	s.lifeMu.Lock()
	defer s.lifeMu.Unlock()
	if s.closed {
		return false
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		fn()
	}()
	return true
}

// maxTargetBytes bounds the request target (path and query): no operation
// needs more, and error answers carry the path in their links.
const maxTargetBytes = 8 << 10

// ServeHTTP serves one request; a panic becomes a 500 in the error envelope.
// Every answer the handler gives is in the envelope, also for the request
// targets the ServeMux would answer on its own: "*", CONNECT's authority form
// (400), a target over 8 KiB (414), a query that does not parse or has more
// parameters than net/url reads (400, rather than silently dropping them), and
// a path not in canonical form ("//disputes", "/a/../b": 404 rather than a
// redirect with an HTML body). Every request is logged at Info level, without
// its credentials or body.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	sw := passThrough(w)
	defer func() {
		if p := recover(); p != nil {
			if p == http.ErrAbortHandler {
				panic(p)
			}
			s.log.Error("panic serving request", "method", r.Method, "path", logPath(r.URL.Path), "panic", fmt.Sprint(p))
			validate.WriteError(sw, s.errorRequest(r), fmt.Errorf("panic: %v", p))
		}
		s.logRequest(r, sw, start)
	}()
	if err := checkTarget(r); err != nil {
		s.writeError(sw, r, err)
		return
	}
	s.mux.ServeHTTP(sw, r)
}

// checkTarget refuses request targets that are not a canonical origin-form
// path with a readable query.
func checkTarget(r *http.Request) error {
	p := r.URL.Path
	switch {
	case r.RequestURI == "*" || p == "" || p[0] != '/':
		return &ledger.DomainError{Kind: ledger.KindBadRequest, Message: "the request target must be an absolute path"}
	case len(r.RequestURI) > maxTargetBytes || len(p)+len(r.URL.RawQuery) > maxTargetBytes:
		return &ledger.DomainError{Kind: ledger.KindURITooLong, Message: fmt.Sprintf("the request target exceeds %d bytes", maxTargetBytes)}
	case !canonicalPath(p):
		return &ledger.DomainError{Kind: ledger.KindNotFound, Message: "the path was not found (not in canonical form)"}
	}
	if r.URL.RawQuery != "" {
		if _, err := url.ParseQuery(r.URL.RawQuery); err != nil {
			return &ledger.DomainError{Kind: ledger.KindBadRequest, Message: "the query string could not be read: " + queryProblem(err)}
		}
	}
	return nil
}

// queryProblem names what is wrong with a query without echoing it.
func queryProblem(err error) string {
	if strings.Contains(err.Error(), "too many") {
		return "too many parameters"
	}
	return "a parameter is not URL-encoded (or uses ';')"
}

// canonicalPath reports whether p is already in the form ServeMux routes
// without redirecting: rooted, no empty, "." or ".." segments.
func canonicalPath(p string) bool {
	if p == "" || p[0] != '/' {
		return true // not an origin-form path; the mux answers it
	}
	clean := path.Clean(p)
	if strings.HasSuffix(p, "/") && clean != "/" {
		clean += "/"
	}
	return clean == p
}

// logRequest writes one Info line per request: method, path (external link
// ids masked), status, duration and the request id of an error response.
func (s *Server) logRequest(r *http.Request, sw *recorder, start time.Time) {
	if !s.log.Enabled(r.Context(), slog.LevelInfo) {
		return
	}
	status := sw.status
	if status == 0 {
		status = http.StatusOK
	}
	s.log.LogAttrs(r.Context(), slog.LevelInfo, "request",
		slog.String("method", r.Method),
		slog.String("path", logPath(r.URL.Path)),
		slog.Int("status", status),
		slog.Duration("duration", time.Since(start)),
		slog.String("request_id", sw.Header().Get("X-Request-Id")),
	)
}

// logPath is a request path fit for a log line. An external link's id is
// the only credential of its upload URL, so it is masked by its shape
// wherever it stands: every segment that begins with the link prefix "EL"
// (the id, also a mangled or truncated one), and every non-empty segment
// that follows an "external_links" segment (whatever a client wrote there),
// also in a path that is not canonical ("//external_links//EL_…/upload",
// repeated segments).
func logPath(p string) string {
	if !strings.Contains(p, "EL") && !strings.Contains(p, "external_links") {
		return p
	}
	segs := strings.Split(p, "/")
	afterLinks := false
	for i, seg := range segs {
		switch {
		case seg == "":
			continue // an empty segment keeps a following id masked
		case strings.HasPrefix(seg, "EL"):
			segs[i] = "…"
		case afterLinks:
			segs[i] = "…"
		}
		afterLinks = seg == "external_links"
	}
	return strings.Join(segs, "/")
}

// Close stops pending review timers and webhook deliveries and waits for the
// delivery goroutines to return. It is safe to call more than once.
func (s *Server) Close() error {
	s.lifeMu.Lock()
	s.closed = true
	for t := range s.timers {
		t.Stop()
	}
	clear(s.timers)
	s.lifeMu.Unlock()
	s.cancel()
	s.wg.Wait()
	<-s.swept
	return nil
}

// Seeded returns the seeded credentials and resource ids.
func (s *Server) Seeded() ledger.Seeded { return s.fixtures }

// after runs fn once d has passed, unless the server is closed first.
func (s *Server) after(d time.Duration, fn func()) {
	s.lifeMu.Lock()
	defer s.lifeMu.Unlock()
	if s.closed {
		return
	}
	var t *time.Timer
	t = time.AfterFunc(d, func() {
		s.lifeMu.Lock()
		_, live := s.timers[t]
		delete(s.timers, t)
		if live {
			s.wg.Add(1)
		}
		s.lifeMu.Unlock()
		if !live {
			return
		}
		defer s.wg.Done()
		fn()
	})
	s.timers[t] = struct{}{}
}

// sweepEveryMinute expires resources once a minute until Close.
func (s *Server) sweepEveryMinute() {
	s.swept = make(chan struct{})
	go func() {
		defer close(s.swept)
		t := time.NewTicker(time.Minute)
		defer t.Stop()
		for {
			select {
			case <-s.ctx.Done():
				return
			case <-t.C:
				s.units.Sweep(s.ctx, s.now(), s.cfg.NamespaceIdleTTL)
			}
		}
	}()
}

// baseURL is the configured base, or the request's scheme and host.
func (s *Server) baseURL(r *http.Request) string {
	if s.cfg.BaseURL != "" {
		return s.cfg.BaseURL
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// now is the time of one operation.
func (s *Server) now() time.Time { return ledger.Stamp(s.cfg.Now) }
