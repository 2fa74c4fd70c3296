package main

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/conform-kit/conform/reference"
	"github.com/conform-kit/conform/reference/faults"
	"github.com/conform-kit/conform/steps"
)

// serveOptions holds the flags of conform serve.
type serveOptions struct {
	addr        string
	fixtures    string        // path to write the suite's config file to, "" for none
	reviewDelay time.Duration // simulated file review
	verbose     bool          // log requests to standard error
	faults      []string      // named faults of the catalog, to test a conformance suite
	variants    []string      // conformant variants of the catalog, composed: other choices where the spec is silent
	seed        int64         // seeds the deterministic credentials and fixtures
	grace       time.Duration // how long in-flight requests may run on at shutdown
	webhookNets []string      // CIDRs webhook deliveries may reach besides public addresses
	limits      limitFlags    // retention and quotas
	nsIdle      time.Duration // a namespace is dropped after this long unused
	nsMax       int           // namespaces held at once
	budgetMiB   int           // MiB of request bodies read at once
	idle        time.Duration // a kept-alive connection with no request is closed after this long
	write       time.Duration // a response not written (to a slow reader) by then is cut off
	store       string        // postgres://… keeps the whole sandbox there; "" in memory
	out         io.Writer
	errOut      io.Writer
}

func newServeCmd() *cobra.Command {
	opts := serveOptions{}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the bundled in-memory reference implementation of the API",
		Long: `Serve the reference implementation: the whole Payments Service API in memory, seeded
with credentials and fixtures. It prints its URL and the seeded credentials; --fixtures
writes them in the config-file shape "conform run --config" reads, with the sandbox's
admin token. "conform run --target URL --config FILE" with that file takes a fresh
namespace (its own applications, users and fixtures) for the run and drops it at the end.
POST /_conform/namespaces (Authorization: Bearer TOKEN) mints one and answers its config;
DELETE /_conform/namespaces/ID drops it; an unused one is dropped after --namespace-idle.
With --variant or --fault there are no namespaces: those rewrite the seeded reference's answers.

With --store postgres://… the sandbox lives in PostgreSQL instead of memory: resources,
users (salted hashes of their passwords), namespaces, quotas, idempotency keys, webhook
events and timers. Serves started on one database with the same --seed are one sandbox
and keep it across restarts; the first one seeds it. Each writes a fresh admin token to its
--fixtures file and keeps its SHA-256 in the database: every replica, a restarted one too,
accepts every token any replica handed out, so an earlier fixtures file keeps working.

The seeded passwords and the admin token are printed only when standard output is a
terminal; tools get them from --fixtures FILE (written with mode 0600).

Webhook deliveries go only to http(s) URLs; link-local and metadata addresses are always
refused, also after DNS resolution. Loopback and private ranges are allowed when --addr
is a loopback address, otherwise only the ranges given with --webhook-allow.

The reference is a model of the contract, not of the real service. Stop it with Ctrl-C
(SIGINT) or SIGTERM; in-flight requests get --shutdown-grace to finish, and serve exits
1 if any had to be cut off.`,
		Example: `  conform serve --addr 127.0.0.1:0 --fixtures conform.json
  conform serve --store postgres://conform@localhost/sandbox --fixtures conform.json
  conform run --target http://127.0.0.1:8080 --config conform.json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.out = cmd.OutOrStdout()
			opts.errOut = cmd.ErrOrStderr()
			return runServe(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.addr, "addr", "127.0.0.1:8080", `listen address ("127.0.0.1:0" picks a free port)`)
	cmd.Flags().StringVar(&opts.fixtures, "fixtures", "", "write the seeded credentials and fixtures to this config file")
	cmd.Flags().DurationVar(&opts.reviewDelay, "review-delay", time.Second, "how long the simulated file review takes")
	cmd.Flags().Int64Var(&opts.seed, "seed", 0, "seed of the credentials and fixture ids (the same seed gives the same ones)")
	cmd.Flags().BoolVarP(&opts.verbose, "verbose", "v", false, "log every request to standard error")
	cmd.Flags().DurationVar(&opts.grace, "shutdown-grace", 5*time.Second, "how long in-flight requests may run on after SIGINT or SIGTERM")
	cmd.Flags().StringSliceVar(&opts.webhookNets, "webhook-allow", nil, "a CIDR (repeatable) of private addresses webhooks may reach when not bound to loopback, e.g. 10.1.0.0/16")
	opts.limits.register(cmd)
	cmd.Flags().DurationVar(&opts.nsIdle, "namespace-idle", reference.DefaultNamespaceIdleTTL, "a namespace nobody used for this long is dropped with everything in it (0: kept until dropped)")
	cmd.Flags().IntVar(&opts.budgetMiB, "body-budget-mib", reference.DefaultBodyBudget>>20, "MiB of request bodies read and held at once (a JSON body counts four times); requests beyond it wait their turn (0: no bound)")
	cmd.Flags().IntVar(&opts.nsMax, "max-namespaces", reference.DefaultMaxNamespaces, "namespaces held at once; one more is 429 QUOTA_EXCEEDED (0: no bound)")
	cmd.Flags().DurationVar(&opts.idle, "idle-timeout", defaultIdleTimeout, "a kept-alive connection that sends no request for this long is closed")
	cmd.Flags().DurationVar(&opts.write, "write-timeout", defaultWriteTimeout, "a request whose answer is not written by then (a slow reader) loses its connection")
	cmd.Flags().StringVar(&opts.store, "store", "", "keep the whole sandbox in PostgreSQL (postgres://…): resources, users, namespaces, quotas, webhook events and timers; serves started on one database are one sandbox and survive restarts (default: in memory)")
	cmd.Flags().StringSliceVar(&opts.variants, "variant", nil, "serve a conformant variant of the reference: another choice where the spec is silent (see conform faults --variants); repeat it or separate names with commas to serve several choices at once")
	cmd.Flags().StringSliceVar(&opts.faults, "fault", nil, "break the reference on purpose with these named faults of its catalog (to test a suite; never for a sandbox)")
	return cmd
}

// runServe listens, serves the reference until ctx is done, then shuts down gracefully.
func runServe(ctx context.Context, opts serveOptions) error {
	if opts.reviewDelay < 0 {
		return usageError(fmt.Errorf("serve: --review-delay must not be negative, got %s", opts.reviewDelay))
	}
	if opts.idle <= 0 || opts.write <= 0 {
		return usageError(fmt.Errorf("serve: --idle-timeout and --write-timeout must be positive"))
	}
	if opts.nsIdle < 0 || opts.nsMax < 0 || opts.budgetMiB < 0 {
		return usageError(fmt.Errorf("serve: --namespace-idle, --max-namespaces and --body-budget-mib must not be negative"))
	}
	limits, err := opts.limits.limits()
	if err != nil {
		return usageError(fmt.Errorf("serve: %w", err))
	}
	if err := checkCatalogNames(opts.faults, opts.variants); err != nil {
		return usageError(fmt.Errorf("serve: %w", err))
	}
	allowed, err := parseCIDRs(opts.webhookNets)
	if err != nil {
		return usageError(fmt.Errorf("serve: --webhook-allow: %w", err))
	}
	ln, err := net.Listen("tcp", opts.addr)
	if err != nil {
		return usageError(fmt.Errorf("serve: listen on %s: %w", opts.addr, err))
	}
	loopback := isLoopback(ln.Addr())
	if loopback {
		allowed = append(reference.LocalNetworks(), allowed...)
	}
	url := "http://" + ln.Addr().String()
	logger := slog.New(slog.DiscardHandler)
	if opts.verbose {
		logger = slog.New(slog.NewTextHandler(opts.errOut, nil))
	}
	refCfg := reference.Config{
		BaseURL: url, ReviewDelay: opts.reviewDelay, Logger: logger, Seed: opts.seed,
		WebhookAllow: allowed, Limits: limits,
		NamespaceIdleTTL: offIfZero(opts.nsIdle), MaxNamespaces: offIfZero(opts.nsMax),
		BodyBudget: offIfZero(int64(opts.budgetMiB) << 20),
	}
	var pg *reference.PostgresStore
	if opts.store != "" {
		if !strings.HasPrefix(opts.store, "postgres://") && !strings.HasPrefix(opts.store, "postgresql://") {
			ln.Close()
			return usageError(fmt.Errorf("serve: --store must be a postgres:// URL"))
		}
		if len(opts.variants) > 0 || len(opts.faults) > 0 {
			ln.Close()
			return usageError(fmt.Errorf("serve: --store serves the sandbox: it excludes --variant and --fault"))
		}
		var err error
		if pg, err = reference.OpenPostgres(ctx, opts.store); err != nil {
			ln.Close()
			return fmt.Errorf("serve: --store: %w", err)
		}
		defer pg.Close()
		refCfg.Store = pg
	}
	token, err := newAdminToken()
	if err != nil {
		ln.Close()
		return fmt.Errorf("serve: %w", err)
	}
	// A durable sandbox keeps every admin token it hands out: a config file
	// an earlier replica wrote still works after a restart, on any replica.
	var holder adminTokenHolder
	if pg != nil && len(opts.variants) == 0 && len(opts.faults) == 0 {
		if err := pg.AddAdminToken(ctx, sha256.Sum256([]byte(token))); err != nil {
			ln.Close()
			return fmt.Errorf("serve: --store: %w", err)
		}
		holder = pg
	}
	var ref *reference.Server
	var handler http.Handler
	var seeded reference.Seeded
	switch {
	case len(opts.variants) > 0 && len(opts.faults) > 0:
		err = fmt.Errorf("%w: --variant and --fault exclude each other", faults.ErrUnknown)
	case len(opts.variants) > 0:
		ref, handler, seeded, err = faults.ServeVariants(refCfg, opts.variants...)
	default:
		ref, handler, err = faults.Serve(refCfg, opts.faults)
		if err == nil {
			seeded = ref.Seeded()
		}
	}
	if err != nil {
		ln.Close()
		if errors.Is(err, faults.ErrUnknown) {
			return usageError(fmt.Errorf("serve: %w", err))
		}
		return fmt.Errorf("serve: %w", err)
	}
	defer ref.Close()
	// Namespaces are the sandbox's, not the self-test's: a variant or a
	// fault rewrites the answers of the seeded reference (its ids, its
	// fixtures), which a namespace minted beside them would not share.
	sandbox := len(opts.variants) == 0 && len(opts.faults) == 0
	if sandbox {
		handler = sandboxHandler(ref, url, token, holder, handler)
	}

	if opts.fixtures != "" {
		cfg := suiteConfig(url, seeded)
		if sandbox {
			cfg.Sandbox = &steps.SandboxAccess{URL: url, AdminToken: token}
		}
		if err := writeJSONFile(opts.fixtures, cfg); err != nil {
			ln.Close()
			return usageError(fmt.Errorf("serve: write fixtures: %w", err))
		}
	}
	printServing(opts.out, url, seeded.Credentials, opts.fixtures, isTerminal(opts.out))
	if sandbox && isTerminal(opts.out) {
		fmt.Fprintf(opts.out, "  namespaces: POST %s%s with Authorization: Bearer %s\n", url, namespacesPath, token)
	}
	if !loopback {
		fmt.Fprintf(opts.errOut, "conform serve: bound beyond loopback; webhooks may reach public addresses%s\n", allowedSuffix(opts.webhookNets))
	}
	if len(opts.faults) > 0 {
		fmt.Fprintf(opts.errOut, "conform serve: WARNING: serving a deliberately broken reference (faults: %s)\n", strings.Join(opts.faults, ", "))
	}

	srv := sandboxHTTPServer(handler, opts.idle, opts.write)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return &exitError{code: exitFailed, err: fmt.Errorf("serve: %w", err)}
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), opts.grace)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		_ = srv.Close()
		return &exitError{code: exitFailed, err: fmt.Errorf("serve: requests still running after the %s shutdown grace were cut off: %w", opts.grace, err)}
	}
	fmt.Fprintln(opts.out, "conform serve: stopped")
	return nil
}

// The connection bounds of a long-lived shared sandbox: a client may not hold
// a connection it does not use, nor one it reads or writes slowly.
const (
	// defaultIdleTimeout closes a kept-alive connection with no request;
	// clients reconnect in a millisecond on loopback, and a sandbox shared
	// by many CI jobs must not keep their forgotten connections.
	defaultIdleTimeout = 30 * time.Second
	// defaultWriteTimeout bounds a request from the end of its headers to
	// the end of its answer: the largest body (10 MiB) and its answer at
	// modest speed, not a reader that never reads.
	defaultWriteTimeout = 60 * time.Second
	// readHeaderTimeout bounds the request line and headers (a slow-loris
	// client), readTimeout the whole request with its body.
	readHeaderTimeout = 5 * time.Second
	readTimeout       = 45 * time.Second
)

// sandboxHTTPServer is the http.Server of conform serve, with its bounds.
func sandboxHTTPServer(handler http.Handler, idle, write time.Duration) *http.Server {
	return &http.Server{
		Handler:                      handler,
		DisableGeneralOptionsHandler: true, // "OPTIONS *" gets the envelope too
		ReadHeaderTimeout:            readHeaderTimeout,
		ReadTimeout:                  readTimeout,
		WriteTimeout:                 write,
		IdleTimeout:                  idle,
	}
}

// printServing prints the URL and the seeded users; passwords only when
// showPasswords (standard output is a terminal), since a log file or a
// pipe would keep them.
func printServing(w io.Writer, url string, creds reference.Credentials, fixturesPath string, showPasswords bool) {
	fmt.Fprintf(w, "conform serve: reference listening on %s\n", url)
	for _, c := range []struct {
		role string
		cred reference.Credential
	}{
		{"platform", creds.Platform},
		{"merchant", creds.Merchant},
		{"other_application", creds.OtherApplication},
	} {
		if showPasswords {
			fmt.Fprintf(w, "  %-18s %s:%s\n", c.role, c.cred.Username, c.cred.Password)
		} else {
			fmt.Fprintf(w, "  %-18s %s (password not printed: standard output is not a terminal)\n", c.role, c.cred.Username)
		}
	}
	if fixturesPath != "" {
		fmt.Fprintf(w, "  fixtures written to %s (conform run --target %s --config %s)\n", fixturesPath, url, fixturesPath)
	} else if !showPasswords {
		fmt.Fprintln(w, "  use --fixtures FILE to get the credentials in a file only you can read")
	}
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// isLoopback reports whether a listener's address is a loopback address.
func isLoopback(a net.Addr) bool {
	tcp, ok := a.(*net.TCPAddr)
	return ok && tcp.IP.IsLoopback()
}

// parseCIDRs reads --webhook-allow values; a non-nil result even when empty.
func parseCIDRs(values []string) ([]netip.Prefix, error) {
	out := make([]netip.Prefix, 0, len(values))
	for _, v := range values {
		p, err := netip.ParsePrefix(strings.TrimSpace(v))
		if err != nil {
			return nil, fmt.Errorf("%q is not a CIDR such as 10.1.0.0/16: %w", v, err)
		}
		out = append(out, p.Masked())
	}
	return out, nil
}

func allowedSuffix(nets []string) string {
	if len(nets) == 0 {
		return " only (no --webhook-allow)"
	}
	return " and " + strings.Join(nets, ", ")
}

// limitFlags are the retention and quota flags of serve; 0 turns a bound off.
type limitFlags struct {
	maxAge    time.Duration
	retain    int
	retainMiB int
	creates   int
	webhooks  int
	uploadMiB int
	tags      int
}

func (l *limitFlags) register(cmd *cobra.Command) {
	f := cmd.Flags()
	f.DurationVar(&l.maxAge, "retention", reference.DefaultMaxAge, "client-created resources expire this long after creation (0: never)")
	f.IntVar(&l.retain, "retain", reference.DefaultMaxRetained, "client-created resources (and idempotency keys) one application may hold; one more is 429 QUOTA_EXCEEDED (0: no bound)")
	f.IntVar(&l.retainMiB, "retain-mib", reference.DefaultMaxBytes>>20, "estimated MiB of client-created resources one application may hold; a create past it is 429 QUOTA_EXCEEDED (0: no bound)")
	f.IntVar(&l.creates, "quota-creates", reference.DefaultCreatesPerMinute, "resources one application may create per minute before 429 (0: no quota)")
	f.IntVar(&l.webhooks, "quota-webhooks", reference.DefaultWebhooks, "enabled webhooks one application may hold before 429 (0: no quota)")
	f.IntVar(&l.uploadMiB, "quota-upload-mib", reference.DefaultUploadBytes>>20, "MiB of uploaded file content one application may hold before 429 (0: no quota)")
	f.IntVar(&l.tags, "quota-tags", reference.DefaultTags, "tags one resource may carry before 429 (0: no quota)")
}

// limits turns the flags into reference.Limits, where 0 means the default
// and a negative value no bound.
func (l *limitFlags) limits() (reference.Limits, error) {
	for _, f := range []struct {
		name string
		v    int64
	}{
		{"--retention", int64(l.maxAge)}, {"--retain", int64(l.retain)}, {"--retain-mib", int64(l.retainMiB)},
		{"--quota-creates", int64(l.creates)}, {"--quota-webhooks", int64(l.webhooks)},
		{"--quota-upload-mib", int64(l.uploadMiB)}, {"--quota-tags", int64(l.tags)},
	} {
		if f.v < 0 {
			return reference.Limits{}, fmt.Errorf("%s must not be negative", f.name)
		}
	}
	return reference.Limits{
		MaxAge: offIfZero(l.maxAge), MaxRetained: offIfZero(l.retain), MaxBytes: offIfZero(int64(l.retainMiB) << 20),
		CreatesPerMinute: offIfZero(l.creates), Webhooks: offIfZero(l.webhooks),
		UploadBytes: offIfZero(int64(l.uploadMiB) << 20), Tags: offIfZero(l.tags),
	}, nil
}

// offIfZero maps a flag's 0 ("no bound") to reference.Limits' -1.
func offIfZero[N int | int64 | time.Duration](v N) N {
	if v == 0 {
		return -1
	}
	return v
}

// writeJSONFile writes v as indented JSON to path (mode 0600: it may hold
// credentials), creating its folder when missing.
func writeJSONFile(path string, v any) error {
	if err := makeFolderOf(path); err != nil {
		return err
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o600)
}
