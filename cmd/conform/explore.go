package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/conform-kit/conform/reference"
	"github.com/conform-kit/conform/steps"
	"github.com/conform-kit/conform/steps/explore"
	"github.com/conform-kit/conform/steps/explore/suite"
	results "github.com/conform-kit/conform/steps/report"
)

// exploreOptions holds the flags of conform explore.
type exploreOptions struct {
	run      runOptions
	seed     uint64
	budget   int
	time     time.Duration
	ops      string
	runID    string
	workers  int
	campaign campaignOptions
}

func newExploreCmd() *cobra.Command {
	opts := exploreOptions{}
	cmd := &cobra.Command{
		Use:   "explore",
		Short: "Generate request sequences from the contract and judge them against the reference as model",
		Long: `Explore generates requests and stateful sequences from the contract (schemas, operations,
limits, rules), sends each to the target and to a fresh bundled reference (the model), and judges
every answer by the kit's judging law: a FAIL for a spec sentence or a safety invariant, a WARN
under a profile key. A failing sequence is shrunk to the fewest, simplest requests failing the
same check on the same basis and printed as a Gherkin scenario of the suite's steps, a curl
replay script and the seed. Without --target it explores the bundled reference, strict.
Against a conform sandbox (--target is the sandbox of the --config file) it explores in a
fresh namespace of its own and drops it at the end, as conform run does. Against a --target
without --profile it first runs the suite and judges with the choices the target showed (the
profile conform run --write-profile would write), and prints them.

With --campaign postgres://... the exploration is a campaign shared through PostgreSQL: its
seed cut into --units units of --unit-size sequences, made by the first process and joined by
any other (same --campaign-name), each process taking units until all are done or its --time
ends; a unit's findings and coverage are written with its completion, so a unit counts once, and
one held by a process that died is taken again after --lease. It judges with --profile (or the
config's profile), else the reference's choices: it does not observe the target. The process
then prints the campaign's merged findings (by fingerprint) and coverage; --report prints them
without taking a unit, and --baseline NAME leaves out the fingerprints campaign NAME has.

Exit codes as conform run: 0 no FAIL, 1 any FAIL (WARN too with --strict; with --baseline, a
FAIL the baseline does not have), 2 usage or config error.`,
		Example: `  conform explore
  conform explore --target https://sandbox.example --config conform.json --time 2m --format json:explore.json
  conform explore --ops 'authorizations.*' --seed 42 --budget 2000
  conform explore --campaign "$DATABASE_URL" --campaign-name nightly --seed 7 --config conform.json --time 1h
  conform explore --campaign "$DATABASE_URL" --campaign-name pr-123 --report --baseline nightly`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.run.out, opts.run.errOut, opts.run.lookupEnv = cmd.OutOrStdout(), cmd.ErrOrStderr(), os.LookupEnv
			return runExplore(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.run.target, "target", "", "base URL of the API under test (default: the bundled reference, in-process)")
	f.StringVar(&opts.run.configPath, "config", "", "config file: credentials and fixtures (the shape conform serve --fixtures writes)")
	f.StringVar(&opts.run.profile, "profile", "", "profile file: the target's choices where the spec is silent")
	f.StringSliceVar(&opts.run.formats, "format", nil, "reports, comma-separated: json:FILE, junit:FILE, cucumber:FILE, html:FILE")
	f.BoolVar(&opts.run.strict, "strict", false, "count WARN as FAIL; always on against the bundled reference")
	f.Uint64Var(&opts.seed, "seed", 0, "seed of every request; 0 picks one (printed); the same seed sends the same requests")
	f.IntVar(&opts.budget, "budget", 0, "requests to send to the target (shrinking included)")
	f.DurationVar(&opts.time, "time", 0, "how long the whole run takes (default 20s when no --budget): the observation of a target without --profile included; new sequences until 85% of it, the rest for the last ones, shrinking (stopped at 95%) and clean-up; with --campaign, how long this process takes units (default: until the campaign is done)")
	f.StringVar(&opts.runID, "run-id", "", "the run's tag in idempotency ids (printed): by default from --seed when one is given, so the same seed sends byte-identical requests, else from the clock; another one sends fresh idempotency ids to a target that keeps an earlier run's")
	f.StringVar(&opts.ops, "ops", "", "operations to explore: comma-separated patterns of operation ids, e.g. 'authorizations.*'")
	f.IntVar(&opts.workers, "workers", 0, fmt.Sprintf("sequences run at once, each with its own model (default %d: 4 per processor, 16 to 64)", explore.DefaultWorkers()))
	addCampaignFlags(f, &opts.campaign)
	addAttestFlags(f, &opts.run)
	return cmd
}

// referenceModel is the bundled reference, fresh for every sequence.
func referenceModel() (http.Handler, explore.Target, func(), error) {
	return suite.Model(referenceServer)()
}

// referenceServer is a fresh bundled reference and its seeded users and
// fixtures in the suite's config form.
func referenceServer() (http.Handler, steps.Config, func(), error) {
	const base = "http://model.explore.invalid"
	srv, err := reference.New(reference.Config{BaseURL: base, ReviewDelay: time.Hour, RetryScale: 0.0001, Seed: 1})
	if err != nil {
		return nil, steps.Config{}, nil, err
	}
	return srv, suiteConfig(base, srv.Seeded()), func() { _ = srv.Close() }, nil
}

// runExplore resolves the target, explores it and writes the findings.
func runExplore(ctx context.Context, opts exploreOptions) error {
	att, err := prepareAttest("explore", &opts.run)
	if err != nil {
		return err
	}
	cfg, err := resolveRunConfig(opts.run)
	if err != nil {
		return usageError(fmt.Errorf("explore: %w", err))
	}
	reports, err := parseExploreFormats(opts.run.formats)
	if err != nil {
		return usageError(fmt.Errorf("explore: %w", err))
	}
	if err := makeReportFolders(opts.run.formats); err != nil {
		return usageError(fmt.Errorf("explore: %w", err))
	}
	strict := opts.run.strict
	if opts.campaign.dsn == "" && (opts.campaign.report || opts.campaign.baseline != "") {
		return usageError(errors.New("explore: --report and --baseline need --campaign"))
	}
	if opts.campaign.report {
		return runCampaign(ctx, opts, cfg, strict, reports)
	}
	// A target of its own without a profile: explore first observes its
	// choices with the suite (the profile --write-profile would write), in
	// the namespace taken below where the target is a sandbox.
	observing := cfg.Target != "" && len(cfg.Profile) == 0
	if cfg.Target == "" {
		stop, bundled, err := startBundledReference(cfg.Timeout)
		if err != nil {
			return fmt.Errorf("explore: %w", err)
		}
		defer stop()
		bundled.Profile = cfg.Profile
		cfg, strict = bundled, true
		fmt.Fprintf(opts.run.errOut, "conform explore: bundled reference at %s (strict)\n", cfg.Target)
	}
	cfg, release, err := takeNamespace(ctx, "explore", cfg, opts.run)
	if err != nil {
		return err
	}
	defer release()
	if opts.campaign.dsn != "" {
		return runCampaign(ctx, opts, cfg, strict, reports)
	}
	seed, runID := opts.seed, opts.runID
	if seed != 0 && runID == "" {
		runID = seedRunID(seed)
	}
	if seed == 0 {
		seed = clockSeed()
	}
	var observe explore.Observer
	if observing {
		observe = suite.Observer(cfg)
	}
	res, err := explore.Run(ctx, explore.Options{Target: suite.Target(cfg), Model: referenceModel, Seed: seed, Budget: opts.budget, Time: opts.time,
		Ops: opts.ops, Strict: strict, RunID: runID, Workers: opts.workers, Observe: observe, Log: opts.run.errOut})
	if errors.Is(err, explore.ErrOptions) {
		return usageError(fmt.Errorf("explore: %w", err))
	}
	if err != nil {
		return fmt.Errorf("explore: %w", err)
	}
	printExplore(opts.run.out, res)
	run, err := writeExploreReports(reports, cfg.Target, strict, res)
	if err != nil {
		return usageError(fmt.Errorf("explore: %w", err))
	}
	if err := att.sign(cfg, res.RunID, run); err != nil {
		return err
	}
	if res.Failed() {
		return &exitError{code: exitFailed}
	}
	return nil
}

// clockSeed is a seed from the clock, within 53 bits so it prints and
// reads back exactly wherever it goes through a JSON number.
func clockSeed() uint64 { return uint64(time.Now().UnixNano()) & (1<<53 - 1) }

// seedRunID is the run id of an explicit seed: the same seed names the same
// idempotency ids, so it sends byte-identical requests.
func seedRunID(seed uint64) string { return "s" + strconv.FormatUint(seed, 36) }

// printExplore writes each finding (one per cause) with its count, its
// first failing sequences, its scenario, replay script and seed, then the
// totals.
func printExplore(w io.Writer, res explore.Result) {
	for _, f := range res.Findings {
		says := ""
		if f.Says() != "" {
			says = "\n  the spec: \u201c" + f.Says() + "\u201d"
		}
		fmt.Fprintf(w, "\n%s %s [%s]: %s%s\n  %s; %s; seed %d, sequence %d\n", f.Outcome, f.Check, f.Clause(), f.Message,
			says, f.Counted(), f.Shrinking(), f.Seed, f.Sequence)
		if lines := f.ExampleLines(); len(lines) > 1 || f.Occurrences > 1 {
			fmt.Fprintf(w, "  cause: %s\n  first sequences failing so:\n", f.Cause())
			for _, l := range lines {
				fmt.Fprintf(w, "    %s\n", l)
			}
		}
		fmt.Fprintf(w, "\n%s\n%s", f.Gherkin, f.Curl)
	}
	for _, n := range res.Notes() {
		switch {
		case strings.HasPrefix(n, "explore:"):
			fmt.Fprintln(w, n)
		case strings.HasPrefix(n, "explore schema "):
			// Each request schema's coverage; what was not reached is in the reports.
			row, _, _ := strings.Cut(n, "; not reached: ")
			fmt.Fprintln(w, "  "+strings.TrimPrefix(row, "explore "))
		}
	}
	printUnreached(w, res.Schemas)
	fmt.Fprintf(w, "%d FAIL, %d WARN (replay: --seed %d --run-id %s)\n", res.Count(results.Fail), res.Count(results.Warn), res.Seed, res.RunID)
}

// unreachedShown is how many unreached boundaries the console names.
const unreachedShown = 10

// printUnreached names the keyword boundaries of the offered request
// schemas the run did not reach: the first ten, and where the rest are.
func printUnreached(w io.Writer, schemas []results.ExploredSchema) {
	var missed []string
	for _, s := range schemas {
		if s.NotOffered {
			continue
		}
		for _, m := range s.Missed {
			missed = append(missed, s.Schema+" "+m)
		}
	}
	if len(missed) == 0 {
		return
	}
	shown := missed[:min(len(missed), unreachedShown)]
	line := fmt.Sprintf("  not reached (%d): %s", len(missed), strings.Join(shown, "; "))
	if len(missed) > len(shown) {
		line += fmt.Sprintf("; and %d more in the reports (--format json:FILE or html:FILE)", len(missed)-len(shown))
	}
	fmt.Fprintln(w, line)
}

// exploreReport is one --format of conform explore: a writer and its file.
type exploreReport struct {
	write func(io.Writer, results.Run) error
	file  string
}

// parseExploreFormats checks the --format values before anything is
// explored: json:FILE, junit:FILE, cucumber:FILE or html:FILE.
func parseExploreFormats(formats []string) ([]exploreReport, error) {
	writers := map[string]func(io.Writer, results.Run) error{
		"json": results.WriteResults, "junit": results.WriteJUnit, "cucumber": results.WriteCucumber, "html": results.WriteHTML,
	}
	var reports []exploreReport
	for _, spec := range formats {
		kind, file, ok := strings.Cut(spec, ":")
		write, known := writers[kind]
		if !ok || !known || file == "" {
			return nil, fmt.Errorf("--format %q: want json:FILE, junit:FILE, cucumber:FILE or html:FILE", spec)
		}
		reports = append(reports, exploreReport{write: write, file: file})
	}
	return reports, nil
}

// writeExploreReports writes the findings as a conform results file, JUnit,
// cucumber or HTML, and returns the run they were written from.
func writeExploreReports(reports []exploreReport, target string, strict bool, res explore.Result) (results.Run, error) {
	run := results.Run{Tool: "conform", Target: target, Seed: int64(res.Seed & (1<<63 - 1)), Strict: strict, Started: time.Now().Add(-res.Duration), Duration: results.MillisOf(res.Duration)}
	res.AddTo(&run)
	for _, r := range reports {
		out, err := os.Create(r.file)
		if err != nil {
			return run, err
		}
		if err := r.write(out, run); err != nil {
			out.Close()
			return run, err
		}
		if err := out.Close(); err != nil {
			return run, err
		}
	}
	return run, nil
}
