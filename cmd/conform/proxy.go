package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/conform-kit/conform/validate/judging"
	"github.com/conform-kit/conform/validate/proxy"
)

// proxyOptions holds the flags of conform proxy.
type proxyOptions struct {
	target  string
	addr    string
	logFile string
	fail    bool
	maxBody int64
	profile string
}

func newProxyCmd() *cobra.Command {
	opts := proxyOptions{}
	cmd := &cobra.Command{
		Use:   "proxy --target URL [--addr ADDR] [--log FILE] [--profile FILE] [--fail]",
		Short: "Check live traffic against the contract as a reverse proxy",
		Long: `Forward every request to --target untouched and check the request and the response against
the contract: operation by method and path, path ids, list parameters, request body, response
status, content type and schema, the error envelope on 4xx. A response with violations gets a
Conform-Violations header (a JSON array of {severity, where, pointer, message, key}, at most
8 KB) and Conform-Violations-Count. Severity comes from the contract's data (judging.json,
operations.json); an assumed violation names its profile key, and --profile checks the
target's declared choices instead of the reference's. Each exchange with violations is one
NDJSON line in --log, with credentials masked. On exit (Ctrl-C, SIGTERM) a summary by operation goes to standard error.

Exit codes: 0, or 1 with --fail when a normative violation was seen; 2 usage error.`,
		Example: `  conform proxy --target http://localhost:8080 --addr 127.0.0.1:8081 --log violations.ndjson
  conform proxy --target https://sandbox.example.com --fail   # in CI, around a real client`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runProxy(cmd.Context(), opts, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	cmd.Flags().StringVar(&opts.target, "target", "", "base URL of the service to forward to (required)")
	cmd.Flags().StringVar(&opts.addr, "addr", "127.0.0.1:8081", "address to listen on")
	cmd.Flags().StringVar(&opts.logFile, "log", "", "append one NDJSON line per exchange with violations to FILE")
	cmd.Flags().StringVar(&opts.profile, "profile", "", "the target's declared profile (JSON of profile keys over the defaults)")
	cmd.Flags().BoolVar(&opts.fail, "fail", false, "exit 1 when a normative violation was seen")
	cmd.Flags().Int64Var(&opts.maxBody, "max-body", proxy.DefaultMaxBody, "largest body, each way, buffered and checked; larger ones are streamed unchecked")
	return cmd
}

func runProxy(ctx context.Context, opts proxyOptions, stdout, stderr io.Writer) error {
	target, err := url.Parse(opts.target)
	if err != nil || opts.target == "" || (target.Scheme != "http" && target.Scheme != "https") || target.Host == "" {
		return usageError(fmt.Errorf("proxy: --target must be an http or https URL, got %q", opts.target))
	}
	v, err := judging.Default()
	if err != nil {
		return fmt.Errorf("proxy: load schemas: %w", err)
	}
	cfg := proxy.Config{Target: target, Judge: v, MaxBody: opts.maxBody}
	if opts.profile != "" {
		profile, err := v.LoadProfile(opts.profile)
		if err != nil {
			return usageError(fmt.Errorf("proxy: %w", err))
		}
		cfg.Profile = &profile
	}
	if opts.logFile != "" {
		f, err := os.OpenFile(opts.logFile, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
		if err != nil {
			return usageError(fmt.Errorf("proxy: %w", err))
		}
		defer f.Close()
		cfg.Log = f
	}
	p := proxy.New(cfg)
	ln, err := net.Listen("tcp", opts.addr)
	if err != nil {
		return usageError(fmt.Errorf("proxy: %w", err))
	}
	srv := &http.Server{Handler: p, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(stdout, "conform proxy: http://%s -> %s\n", ln.Addr(), target)
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		if !errors.Is(err, http.ErrServerClosed) {
			return fmt.Errorf("proxy: %w", err)
		}
	case <-ctx.Done():
		shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shutdownCtx)
	}
	printSummary(stderr, p.Summary())
	if opts.fail && p.SawNormative() {
		return &exitError{code: exitFailed, err: errors.New("proxy: normative violations seen")}
	}
	return nil
}

// printSummary writes the counts by operation as a table.
func printSummary(w io.Writer, rows []proxy.OperationSummary) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "OPERATION\tEXCHANGES\tWITH VIOLATIONS\tNORMATIVE\tASSUMED")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\n", r.Operation, r.Exchanges, r.WithViolations, r.Normative, r.Assumed)
	}
	_ = tw.Flush()
}
