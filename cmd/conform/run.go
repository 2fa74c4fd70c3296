package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/conform-kit/conform/reference"
	"github.com/conform-kit/conform/steps"
	"github.com/conform-kit/conform/steps/explore"
	"github.com/conform-kit/conform/steps/explore/suite"
	results "github.com/conform-kit/conform/steps/report"
)

// runOptions holds the flags of conform run.
type runOptions struct {
	target       string
	configPath   string
	user         string
	password     string
	tags         string
	formats      []string
	strict       bool
	concurrency  int
	seed         int64
	list         bool
	timeout      time.Duration
	rerunFailed  string
	profile      string        // --profile FILE: the target's declared choices
	writeProf    string        // --write-profile FILE: the choices observed
	explore      time.Duration // --explore DURATION: an exploration after the suite, in the same report
	keepNS       string        // --keep-namespace FILE: keep the run's sandbox namespace, its config written here
	features     []string      // --features PATH: feature files or folders read from disk, added to the embedded ones
	featuresOnly bool          // --features-only: run only the --features, not the embedded ones
	attest       string        // --attest FILE: sign the reports, the attestation written here
	signingKey   string        // --signing-key KEY: a PEM file or env:NAME
	out          io.Writer
	errOut       io.Writer
	lookupEnv    func(string) (string, bool)
}

func newRunCmd() *cobra.Command {
	opts := runOptions{}
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Run the conformance suite against a target, or against the bundled reference",
		Long: `Run the conformance suite: every scenario of the embedded features, judged clause by
clause. Each scenario ends PASS, FAIL (a normative check failed), WARN (only checks of an
assumption where the spec is silent failed), SKIP (the config lacks a credential or fixture;
the key is named) or ERROR (the kit could not run it).

Without --target the bundled reference is started in-process on a loopback port and the
suite runs against it over HTTP, always strict. With --target, settings come from the
--config file, then these environment variables, then flags; flags win:

` + settingsHelp() + `
Against a conform sandbox (the config file "conform serve --fixtures" wrote, with
--target its URL) the run takes a fresh namespace of its own and drops it at the end
(--keep-namespace FILE keeps it and writes its config there); --user or --password use
the given users instead. Against any other target the admin token is never sent.

Before the first scenario one request checks that the target answers, speaks this API
(the §7 error envelope without credentials) and accepts every configured credential.

Scenarios of your own: --features PATH (a .feature file or a folder of them, repeatable)
adds feature files from disk to the embedded ones, with the same steps, tags, reports and
exit codes; --features-only runs them alone. A feature from disk that does not parse or
uses a step the kit does not define is refused (exit 2) with its file and line.

Reports: json:FILE (the conform results file, the source of the others), junit:FILE,
cucumber:FILE and html:FILE; one of them may go to standard output (no :FILE), and the
console output then goes to standard error. --rerun-failed FILE runs again the FAIL, WARN
and ERROR scenarios of a results file.

Exit codes: 0 no FAIL or ERROR; 1 any FAIL or ERROR (WARN too with --strict); 2 usage or
config error, or nothing tested: the target cannot be tested (unreachable, not this API,
credentials refused), the selection is empty, or every selected scenario was skipped.`,
		Example: `  conform run
  conform run --target https://sandbox.example --config conform.json --format progress,junit:conform.xml,html:conform.html
  conform run --tags '@transfers and not @assumed' --list
  conform run --config conform.json --format json:results.json
  conform run --config conform.json --rerun-failed results.json
  conform run --target http://127.0.0.1:8080 --config conform.json --features regressions/ --features-only`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.out, opts.errOut, opts.lookupEnv = cmd.OutOrStdout(), cmd.ErrOrStderr(), os.LookupEnv
			return runRun(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.target, "target", "", "base URL of the API under test (default: the bundled reference, in-process)")
	f.StringVar(&opts.configPath, "config", "", "config file: credentials, fixtures and webhook receiver (the shape conform serve --fixtures writes)")
	f.StringVar(&opts.user, "user", "", "platform user id (HTTP Basic username)")
	f.StringVar(&opts.password, "password", "", "platform user password")
	f.StringVar(&opts.tags, "tags", "", `tag expression selecting scenarios: "@transfers and not @assumed" (cucumber) or "@transfers && ~@assumed" (godog)`)
	f.StringSliceVar(&opts.formats, "format", []string{"progress"}, "outputs, comma-separated: progress or pretty on the console; json:FILE, junit:FILE, cucumber:FILE, html:FILE reports")
	f.BoolVar(&opts.strict, "strict", false, "count WARN (failed assumed checks) as FAIL; always on against the bundled reference")
	f.IntVar(&opts.concurrency, "concurrency", 0, "scenarios run at once (0: the number of CPUs)")
	f.Int64Var(&opts.seed, "seed", -1, "scenario order: -1 random (the seed is printed), 0 file order, N replays an order")
	f.BoolVar(&opts.list, "list", false, "print the scenarios that would run and run nothing")
	f.DurationVar(&opts.timeout, "timeout", 0, "per-request timeout, e.g. 5s (default 10s, or CONFORM_TIMEOUT)")
	f.StringVar(&opts.rerunFailed, "rerun-failed", "", "run again only the FAIL, WARN and ERROR scenarios of a results file (--format json:FILE)")
	f.StringVar(&opts.profile, "profile", "", "profile file: the target's choices where the spec is silent (wins over the config file's profile)")
	f.StringVar(&opts.writeProf, "write-profile", "", "write the choices the run observed as a profile file to review and pass back with --profile")
	f.StringVar(&opts.keepNS, "keep-namespace", "", "against a conform sandbox: keep the run's namespace instead of dropping it, and write its config to this file")
	f.StringArrayVar(&opts.features, "features", nil, "a feature file, or a folder of them, read from disk and run with the embedded features (repeatable)")
	f.BoolVar(&opts.featuresOnly, "features-only", false, "run only the --features, without the embedded features")
	f.DurationVar(&opts.explore, "explore", 0, "after the suite, explore the target for this long (conform explore) and add its findings to the same reports")
	addAttestFlags(f, &opts)
	return cmd
}

// settingFlags names the flag that overrides a setting, where one does.
func settingFlags() map[string]string {
	return map[string]string{"CONFORM_TARGET": "--target", "CONFORM_USER": "--user", "CONFORM_PASSWORD": "--password", "CONFORM_TIMEOUT": "--timeout"}
}

// settingsHelp lists every CONFORM_* variable with the config-file key it
// overrides and its default, one a line, for "conform run --help".
func settingsHelp() string {
	settings := steps.Settings()
	width := 0
	for _, s := range settings {
		width = max(width, len(s.Env))
	}
	var b strings.Builder
	for _, s := range settings {
		line := s.Key
		if line == "" {
			line = "(environment only)"
		}
		if f := settingFlags()[s.Env]; f != "" {
			line += ", flag " + f
		}
		if s.Default != "none" {
			line += "; default " + s.Default
		}
		fmt.Fprintf(&b, "  %-*s  %s\n", width, s.Env, line)
	}
	return b.String()
}

// settingsTable renders the same settings as the rows of steps/README.md's
// settings table (flag, environment, config file, default); a test keeps that
// README in step.
func settingsTable() string {
	var b strings.Builder
	code := func(s string) string {
		if s == "" {
			return ""
		}
		return "`" + s + "`"
	}
	for _, s := range steps.Settings() {
		b.WriteString("|")
		for _, cell := range []string{code(settingFlags()[s.Env]), code(s.Env), code(s.Key), s.Default} {
			if cell != "" {
				b.WriteString(" " + cell)
			}
			b.WriteString(" |")
		}
		b.WriteString("\n")
	}
	return b.String()
}

// runRun resolves the configuration, runs the suite and maps the outcome to an exit code.
func runRun(ctx context.Context, opts runOptions) error {
	if opts.concurrency == 0 {
		opts.concurrency = runtime.NumCPU()
	}
	if opts.concurrency < 1 {
		return usageError(fmt.Errorf("run: --concurrency must be at least 1, got %d", opts.concurrency))
	}
	if opts.timeout < 0 {
		return usageError(fmt.Errorf("run: --timeout must be positive, got %s", opts.timeout))
	}
	att, err := prepareAttest("run", &opts)
	if err != nil {
		return err
	}
	runOpts := steps.Options{
		Tags: opts.tags, Formats: opts.formats, Strict: opts.strict, Concurrency: opts.concurrency,
		Seed: opts.seed, Out: opts.out, ErrOut: opts.errOut, ListOnly: opts.list,
		Features: opts.features, FeaturesOnly: opts.featuresOnly,
	}
	if err := runOpts.Check(); err != nil {
		return usageError(fmt.Errorf("run: %w", err))
	}
	if !opts.list {
		if err := makeReportFolders(opts.formats); err != nil {
			return usageError(fmt.Errorf("run: %w", err))
		}
	}
	if opts.rerunFailed != "" {
		prev, err := results.ReadResultsFile(opts.rerunFailed)
		if err != nil {
			return usageError(fmt.Errorf("run: --rerun-failed: %w", err))
		}
		runOpts.Only = prev.Unsettled()
		if runOpts.Only == nil {
			runOpts.Only = []results.Ref{}
		}
	}
	if opts.list {
		return exitFor(steps.Run(ctx, steps.Config{}, runOpts))
	}
	cfg, err := resolveRunConfig(opts)
	if err != nil {
		return usageError(fmt.Errorf("run: %w", err))
	}
	if cfg.Target == "" {
		stop, bundled, err := startBundledReference(cfg.Timeout)
		if err != nil {
			return fmt.Errorf("run: %w", err)
		}
		defer stop()
		bundled.Timeout = cfg.Timeout
		bundled.Profile = cfg.Profile
		cfg, runOpts.Strict = bundled, true
		fmt.Fprintf(opts.errOut, "conform run: bundled reference at %s (strict)\n", cfg.Target)
	}
	cfg, release, err := takeNamespace(ctx, "run", cfg, opts)
	if err != nil {
		return err
	}
	defer release()
	var explored *explore.Result
	if opts.explore > 0 {
		runOpts.After = func(ctx context.Context, run *results.Run) error {
			res, err := explore.Run(ctx, explore.Options{Target: suite.Target(cfg), Model: referenceModel, Seed: clockSeed(),
				Time: opts.explore, Strict: runOpts.Strict, Log: opts.errOut})
			if err != nil {
				return err
			}
			printExplore(opts.errOut, res)
			res.AddTo(run)
			explored = &res
			return nil
		}
	}
	cfg, runOpts.After = att.hook(cfg, runOpts.After)
	sum, err := steps.Run(ctx, cfg, runOpts)
	if err == nil {
		if err := att.signRun(cfg, sum.Sources); err != nil {
			return err
		}
	}
	if err == nil && explored != nil && explored.Failed() {
		return &exitError{code: exitFailed}
	}
	if err == nil && opts.writeProf != "" {
		if err := writeProfileFile(opts.writeProf, sum); err != nil {
			return fmt.Errorf("run: %w", err)
		}
		fmt.Fprintf(opts.errOut, "conform run: observed profile written to %s\n", opts.writeProf)
	}
	return exitFor(sum, err)
}

// exitFor maps the outcome of a run to an exit code: 2 when the suite could
// not run or tested nothing, 1 on any FAIL or ERROR.
func exitFor(sum steps.Summary, err error) error {
	switch {
	case errors.Is(err, steps.ErrConfig), errors.Is(err, steps.ErrUsage), errors.Is(err, steps.ErrTarget), errors.Is(err, steps.ErrNothingTested):
		return usageError(fmt.Errorf("run: %w", err))
	case err != nil:
		return fmt.Errorf("run: %w", err)
	case sum.Failed():
		return &exitError{code: exitFailed}
	}
	return nil
}

// resolveRunConfig layers the config file, CONFORM_* variables and flags (flags win).
func resolveRunConfig(opts runOptions) (steps.Config, error) {
	var cfg steps.Config
	if opts.configPath != "" {
		loaded, err := steps.LoadConfigFile(opts.configPath)
		if err != nil {
			return cfg, err
		}
		cfg = loaded
	}
	cfg, err := steps.ApplyEnv(cfg, opts.lookupEnv)
	if err != nil {
		return cfg, err
	}
	if opts.target != "" {
		cfg.Target = opts.target
	}
	if opts.timeout > 0 {
		cfg.Timeout = opts.timeout
	}
	if opts.user != "" || opts.password != "" {
		c := steps.Credential{}
		if cfg.Credentials.Platform != nil {
			c = *cfg.Credentials.Platform
		}
		if opts.user != "" {
			c.Username = opts.user
		}
		if opts.password != "" {
			c.Password = opts.password
		}
		cfg.Credentials.Platform = &c
	}
	if opts.profile != "" {
		data, err := os.ReadFile(opts.profile)
		if err != nil {
			return cfg, fmt.Errorf("%w: read profile: %w", steps.ErrConfig, err)
		}
		cfg.Profile = data
	}
	if cfg.Target != "" {
		return cfg, cfg.Check()
	}
	return cfg, nil
}

// writeProfileFile writes the profile the run observed to path.
func writeProfileFile(path string, sum steps.Summary) error {
	if err := makeFolderOf(path); err != nil {
		return fmt.Errorf("write profile: %w", err)
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("write profile: %w", err)
	}
	if err := steps.WriteProfile(f, sum); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// bundledHeaderBound is how long the bundled reference waits for a
// request's headers on a connection: at least as long as the kit waits for
// an answer (requestTimeout, 10 s by default), since the only client is the
// kit on loopback. A shorter bound (5 s before) closed a connection whose
// client, starved on a loaded machine, wrote its request late: the kit
// read EOF on a POST it would have been answered (TestRunWholeSuite at
// concurrency 32, load 15–17).
func bundledHeaderBound(requestTimeout time.Duration) time.Duration {
	return max(requestTimeout, 30*time.Second)
}

// startBundledReference serves the reference on a loopback port and returns
// the suite config for it (its seeded fixtures) and a stop function; it
// reads a request's headers as long as bundledHeaderBound(requestTimeout).
func startBundledReference(requestTimeout time.Duration) (func(), steps.Config, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, steps.Config{}, fmt.Errorf("listen for the bundled reference: %w", err)
	}
	url := "http://" + ln.Addr().String()
	ref, err := reference.New(reference.Config{BaseURL: url, ReviewDelay: 50 * time.Millisecond, RetryScale: 0.001})
	if err != nil {
		ln.Close()
		return nil, steps.Config{}, fmt.Errorf("start the bundled reference: %w", err)
	}
	srv := &http.Server{Handler: ref, ReadHeaderTimeout: bundledHeaderBound(requestTimeout)}
	go srv.Serve(ln) //nolint:errcheck // ErrServerClosed after stop
	stop := func() {
		srv.Close()
		ref.Close()
	}
	return stop, suiteConfig(url, ref.Seeded()), nil
}

// takeNamespace gives a run against a conform sandbox (--target is the
// sandbox of its config, no --user or --password given) a fresh namespace
// of its own: the returned config names it, and release drops it, unless
// --keep-namespace wrote its config to keep it. Against any other target
// the config comes back unchanged and release does nothing.
func takeNamespace(ctx context.Context, verb string, cfg steps.Config, opts runOptions) (steps.Config, func(), error) {
	sb, ok := sandboxFor(cfg)
	if !ok || opts.user != "" || opts.password != "" {
		if opts.keepNS != "" {
			return cfg, func() {}, usageError(fmt.Errorf("%s: --keep-namespace needs --target to be the conform sandbox of the --config file", verb))
		}
		return cfg, func() {}, nil
	}
	ns, err := sb.mint(ctx)
	if err != nil {
		return cfg, func() {}, &exitError{code: exitUsage, err: fmt.Errorf("%s: %w", verb, err)}
	}
	id := ns.Sandbox.Namespace
	if opts.keepNS != "" {
		if err := writeJSONFile(opts.keepNS, ns); err != nil {
			_ = sb.drop(context.WithoutCancel(ctx), id)
			return cfg, func() {}, usageError(fmt.Errorf("%s: --keep-namespace: %w", verb, err))
		}
		fmt.Fprintf(opts.errOut, "conform %s: sandbox namespace %s (kept; its config is in %s)\n", verb, id, opts.keepNS)
		return inNamespace(cfg, ns), func() {}, nil
	}
	fmt.Fprintf(opts.errOut, "conform %s: sandbox namespace %s (dropped at the end)\n", verb, id)
	return inNamespace(cfg, ns), func() {
		if err := sb.drop(context.WithoutCancel(ctx), id); err != nil {
			fmt.Fprintf(opts.errOut, "conform %s: %v\n", verb, err)
		}
	}, nil
}
