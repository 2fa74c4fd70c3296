// Package reference is the in-memory reference implementation of the Payments
// Service API: one http.Handler serving every operation of the operations
// table (schemas/operations.json), with every decision of DESIGN.md where the
// spec is silent. It validates requests with the validate package, keeps its
// state in memory, and seeds deterministic fixtures (two applications, users,
// merchants, a dispute, ...) that Seeded returns.
//
// The reference models the contract, not the real service.
package reference

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/conform-kit/conform/validate"
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
	// WebhookClient delivers webhook events; default a client with a 10s timeout.
	WebhookClient *http.Client
	// Logger receives operational logs; default discards them.
	Logger *slog.Logger
}

// Server is the reference implementation; it is an http.Handler safe for
// concurrent use. Close stops its timers and webhook deliveries.
type Server struct {
	cfg      Config
	log      *slog.Logger
	v        *validate.Validator
	st       *store
	mux      *http.ServeMux
	fixtures Seeded

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	lifeMu sync.Mutex
	timers map[*time.Timer]struct{}
	closed bool
}

// New builds a Server: it fills Config defaults, seeds the fixtures and
// registers every operation of the operations table.
func New(cfg Config) (*Server, error) {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.NewID == nil {
		cfg.NewID = randomID
	}
	if cfg.ReviewDelay <= 0 {
		cfg.ReviewDelay = time.Second
	}
	if cfg.RetryScale <= 0 {
		cfg.RetryScale = 1
	}
	if cfg.WebhookClient == nil {
		cfg.WebhookClient = &http.Client{Timeout: 10 * time.Second}
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	cfg.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	v, err := validate.Default()
	if err != nil {
		return nil, fmt.Errorf("reference: load schemas: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &Server{
		cfg:    cfg,
		log:    cfg.Logger,
		v:      v,
		st:     newStore(cfg.NewID),
		ctx:    ctx,
		cancel: cancel,
		timers: map[*time.Timer]struct{}{},
	}
	s.fixtures = seed(s.st, cfg.Seed, stamp(cfg.Now))
	if s.mux, err = s.routes(); err != nil {
		cancel()
		return nil, fmt.Errorf("reference: %w", err)
	}
	return s, nil
}

// ServeHTTP serves one request; a panic becomes a 500 in the error envelope.
// A path that is not in canonical form ("//disputes", "/a/../b") is 404 in
// the envelope rather than the ServeMux's redirect with an HTML body. Every
// request is logged at Info level, without its credentials or body.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	sw := &statusWriter{ResponseWriter: w}
	defer func() {
		if p := recover(); p != nil {
			if p == http.ErrAbortHandler {
				panic(p)
			}
			s.log.Error("panic serving request", "method", r.Method, "path", logPath(r.URL.Path), "panic", fmt.Sprint(p))
			validate.WriteError(sw, r, fmt.Errorf("panic: %v", p))
		}
		s.logRequest(r, sw, start)
	}()
	if !canonicalPath(r.URL.Path) {
		s.writeError(sw, r, &domainError{kind: kindNotFound, message: r.URL.Path + " was not found"})
		return
	}
	s.mux.ServeHTTP(sw, r)
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
func (s *Server) logRequest(r *http.Request, sw *statusWriter, start time.Time) {
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

// logPath is a request path fit for a log line: the id in an external link's
// upload URL is its only credential, so it is masked.
func logPath(p string) string {
	const prefix = "/external_links/"
	if strings.HasPrefix(p, prefix) {
		return prefix + "…/upload"
	}
	return p
}

// statusWriter records the status a handler writes, for the request log.
type statusWriter struct {
	http.ResponseWriter
	status int
}

// WriteHeader records the first status and passes it on.
func (w *statusWriter) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
	w.ResponseWriter.WriteHeader(status)
}

// Write records an implicit 200 and passes b on.
func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(b)
	if err != nil {
		return n, fmt.Errorf("write response: %w", err)
	}
	return n, nil
}

// Unwrap gives http.ResponseController the underlying writer.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

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
	return nil
}

// Seeded returns the seeded credentials and resource ids.
func (s *Server) Seeded() Seeded { return s.fixtures }

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
func (s *Server) now() time.Time { return stamp(s.cfg.Now) }
