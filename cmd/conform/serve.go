package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/conform-kit/conform/reference"
	"github.com/conform-kit/conform/reference/faults"
)

// serveOptions holds the flags of conform serve.
type serveOptions struct {
	addr        string
	fixtures    string        // path to write the suite's config file to, "" for none
	reviewDelay time.Duration // simulated file review
	verbose     bool          // log requests to standard error
	faults      []string      // named faults of the catalog, to test a conformance suite
	variant     string        // a conformant variant of the catalog: other choices where the spec is silent
	seed        int64         // seeds the deterministic credentials and fixtures
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
writes them in the config-file shape "conform run --config" reads.

The reference is a model of the contract, not of the real service. Stop it with Ctrl-C
(SIGINT) or SIGTERM; in-flight requests get five seconds to finish.`,
		Example: `  conform serve --addr 127.0.0.1:0 --fixtures conform.json
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
	cmd.Flags().StringVar(&opts.variant, "variant", "", "serve a conformant variant of the reference: another choice where the spec is silent (see conform faults --variants)")
	cmd.Flags().StringSliceVar(&opts.faults, "fault", nil, "break the reference on purpose with these named faults of its catalog (to test a suite; never for a sandbox)")
	return cmd
}

// runServe listens, serves the reference until ctx is done, then shuts down gracefully.
func runServe(ctx context.Context, opts serveOptions) error {
	if opts.reviewDelay < 0 {
		return usageError(fmt.Errorf("serve: --review-delay must not be negative, got %s", opts.reviewDelay))
	}
	ln, err := net.Listen("tcp", opts.addr)
	if err != nil {
		return usageError(fmt.Errorf("serve: listen on %s: %w", opts.addr, err))
	}
	url := "http://" + ln.Addr().String()
	logger := slog.New(slog.DiscardHandler)
	if opts.verbose {
		logger = slog.New(slog.NewTextHandler(opts.errOut, nil))
	}
	refCfg := reference.Config{BaseURL: url, ReviewDelay: opts.reviewDelay, Logger: logger, Seed: opts.seed}
	var ref *reference.Server
	var handler http.Handler
	var seeded reference.Seeded
	switch {
	case opts.variant != "" && len(opts.faults) > 0:
		err = fmt.Errorf("%w: --variant and --fault exclude each other", faults.ErrUnknown)
	case opts.variant != "":
		ref, handler, seeded, err = faults.ServeVariant(refCfg, opts.variant)
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

	if opts.fixtures != "" {
		if err := writeJSONFile(opts.fixtures, suiteConfig(url, seeded)); err != nil {
			ln.Close()
			return usageError(fmt.Errorf("serve: write fixtures: %w", err))
		}
	}
	printServing(opts.out, url, seeded.Credentials, opts.fixtures)
	if len(opts.faults) > 0 {
		fmt.Fprintf(opts.errOut, "conform serve: WARNING: serving a deliberately broken reference (faults: %s)\n", strings.Join(opts.faults, ", "))
	}

	srv := &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       2 * time.Minute,
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve: shutdown: %w", err)
	}
	fmt.Fprintln(opts.out, "conform serve: stopped")
	return nil
}

func printServing(w io.Writer, url string, creds reference.Credentials, fixturesPath string) {
	fmt.Fprintf(w, "conform serve: reference listening on %s\n", url)
	for _, c := range []struct {
		role string
		cred reference.Credential
	}{
		{"platform", creds.Platform},
		{"merchant", creds.Merchant},
		{"other_application", creds.OtherApplication},
	} {
		fmt.Fprintf(w, "  %-18s %s:%s\n", c.role, c.cred.Username, c.cred.Password)
	}
	if fixturesPath != "" {
		fmt.Fprintf(w, "  fixtures written to %s (conform run --target %s --config %s)\n", fixturesPath, url, fixturesPath)
	}
}

func writeJSONFile(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o600)
}
