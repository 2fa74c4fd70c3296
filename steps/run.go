package steps

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/cucumber/godog"

	"github.com/conform-kit/conform/features"
	"github.com/conform-kit/conform/steps/report"
	"github.com/conform-kit/conform/validate"
	"github.com/conform-kit/conform/validate/judging"
)

// Options shape one run of the suite.
type Options struct {
	// Tags selects scenarios: cucumber's ("@transfers and not @assumed") or
	// godog's ("@transfers && ~@assumed") tag expression syntax.
	Tags string
	// Only, when not nil, restricts the run to these scenarios (--rerun-failed).
	Only []report.Ref
	// Formats are the outputs: "progress" (a character per scenario) or
	// "pretty" (a line per scenario) on the console, and the reports
	// "json:FILE" (the conform results file), "junit:FILE", "cucumber:FILE",
	// "html:FILE". A report without ":FILE" writes to Out. Default: "progress".
	Formats []string
	// Strict turns WARN (a failed assumed check) into FAIL.
	Strict bool
	// Concurrency is the number of scenarios run at once; default runtime.NumCPU().
	Concurrency int
	// Seed orders scenarios: negative picks a random seed (reported in the summary), 0 keeps file order, N > 0 replays that order.
	Seed int64
	// ListOnly prints the scenarios that would run and runs nothing.
	ListOnly bool
	// Out receives the console output (progress, verdicts, summary) and the
	// reports written without a file; default io.Discard.
	Out io.Writer
	// ErrOut receives the console output instead of Out when a report is
	// written to Out; default Out.
	ErrOut io.Writer
	// FS holds the embedded features; default features.FS.
	FS fs.FS
	// Features are feature files, or folders of them (their *.feature files,
	// recursively), read from disk when the run starts and added after FS's
	// (conform run --features): the same steps, tags, reports and exit codes.
	// A feature from disk is named in the reports by its path as given. One
	// that does not parse or has a step no definition matches is ErrUsage,
	// naming the file and line, before anything runs. Summary.Sources lists
	// every feature file read with its SHA-256.
	Features []string
	// FeaturesOnly leaves FS's features out: only Features run (--features-only).
	FeaturesOnly bool
	// After, when set, runs once the scenarios have run and before the
	// reports are written, and may add to the run (conform run --explore
	// adds an exploration's findings, coverage and notes).
	After func(ctx context.Context, run *report.Run) error
}

// Summary is the outcome of a run.
type Summary struct {
	Results  []ScenarioResult
	Counts   map[Outcome]int
	Seed     int64
	Duration time.Duration
	// Coverage maps every operation of the table to the responses seen for it.
	Coverage map[string]Coverage
	// Operations is the operations table, in order; each names its source ("spec" or "extension").
	Operations []validate.Operation
	// Order is the scenario IDs in the order they started: the same seed replays it.
	Order []string
	// Notes are diagnostics of the run as a whole.
	Notes []string
	// Sources are the feature files the run read, embedded first, then those
	// of Options.Features, each with its SHA-256.
	Sources []FeatureSource

	Target      string
	Strict      bool
	Tags        string
	Concurrency int
	Started     time.Time

	// Profile is the target's declared profile the run judged by.
	Profile judging.Profile
	// Differences groups the failed assumed checks by key, expected and observed.
	Differences []Difference
	// Observed is every observation of a declared choice (WriteProfile reads it).
	Observed Observed
	// ClauseTitles are the titles of the spec sections, from judging.json.
	ClauseTitles map[string]string
}

// CoverageLine counts the operations exercised with both a success and a refusal, per source.
func (s Summary) CoverageLine() string {
	total, both := map[string]int{}, map[string]int{}
	for _, op := range s.Operations {
		total[op.Source]++
		if c := s.Coverage[op.ID]; c.Successes > 0 && c.Refusals > 0 {
			both[op.Source]++
		}
	}
	return fmt.Sprintf("conform: operations with a success and a refusal: %d/%d spec, %d/%d extension",
		both["spec"], total["spec"], both["extension"], total["extension"])
}

// Total is the number of scenarios judged.
func (s Summary) Total() int { return len(s.Results) }

// Failed reports whether any scenario FAILed or ERRORed.
func (s Summary) Failed() bool { return s.Counts[Fail] > 0 || s.Counts[Error] > 0 }

// Line is the closing summary: counts per outcome, wall time and seed.
func (s Summary) Line() string {
	parts := make([]string, 0, 5)
	for _, o := range []Outcome{Pass, Fail, Warn, Skip, Error} {
		parts = append(parts, fmt.Sprintf("%d %s", s.Counts[o], o))
	}
	return fmt.Sprintf("conform: %d scenarios: %s (%s, seed %d)", s.Total(), strings.Join(parts, ", "), s.Duration.Round(time.Millisecond), s.Seed)
}

// ErrUsage marks invalid run options (exit code 2 in the CLI).
var ErrUsage = errors.New("steps: invalid run options")

// Run executes the suite against cfg's target, prints the verdicts and
// writes the reports. The error is non-nil when the suite could not run
// (configuration, options: ErrConfig, ErrUsage), when the target cannot be
// tested (ErrTarget: checked by one preflight request before any scenario),
// or when nothing was tested (ErrNothingTested: an empty selection, or every
// scenario skipped; the Summary and reports are complete then). Conformance
// failures are in the Summary.
func Run(ctx context.Context, cfg Config, opts Options) (Summary, error) {
	opts = opts.withDefaults()
	outs, err := parseFormats(opts.Formats)
	if err != nil {
		return Summary{}, err
	}
	sel, filter, err := selection(opts)
	if err != nil {
		return Summary{}, err
	}
	srcs, err := featureSources(opts)
	if err != nil {
		return Summary{}, err
	}
	cat, err := readCatalog(srcs, sel, allSteps())
	if err != nil {
		return Summary{}, err
	}
	console := opts.Out
	if outs.toOut {
		console = opts.ErrOut
	}
	if opts.ListOnly {
		return Summary{}, list(opts.Out, cat)
	}
	if len(cat.selected()) == 0 {
		return Summary{}, fmt.Errorf("%w: %s", ErrNothingTested, emptySelection(opts))
	}
	st, err := newSuite(cfg, opts.Strict, cat, newConsole(console, outs.console, len(cat.selected())).scenarioDone)
	if err != nil {
		return Summary{}, err
	}
	defer st.close()
	if err := st.preflight(ctx); err != nil {
		return Summary{}, err
	}
	start := time.Now()
	godog.TestSuite{
		Name:                "conform",
		ScenarioInitializer: st.initializeScenario,
		Options:             godogOptions(ctx, opts, filter, srcs),
	}.Run()
	sum := summarize(st.results.all(), opts.Seed, time.Since(start))
	sum.Coverage = st.results.coverageCopy()
	sum.Operations = st.v.Operations()
	sum.Order = st.results.order()
	sum.Target, sum.Strict, sum.Tags, sum.Concurrency, sum.Started = st.cfg.Target, opts.Strict, opts.Tags, opts.Concurrency, start
	sum.Notes = st.recv.diagnose()
	sum.Sources, sum.ClauseTitles = srcs, st.table.Clauses
	sum.Profile, sum.Differences, sum.Observed = st.profile, differences(sum.Results), st.observed.snapshot()
	run := sum.Report()
	if opts.After != nil {
		if err := opts.After(ctx, &run); err != nil {
			return sum, err
		}
	}
	if err := outs.write(run, opts.Out); err != nil {
		return sum, err
	}
	printSummary(console, sum, run)
	if sum.Total() > 0 && sum.Counts[Skip] == sum.Total() {
		return sum, fmt.Errorf("%w: every one of the %d selected scenarios was skipped (%s)", ErrNothingTested, sum.Total(), topSkip(run))
	}
	return sum, nil
}

func (o Options) withDefaults() Options {
	if len(o.Formats) == 0 {
		o.Formats = []string{"progress"}
	}
	if o.Seed < 0 {
		o.Seed = time.Now().UnixNano()&0x7fffffff | 1
	}
	if o.Concurrency <= 0 {
		o.Concurrency = runtime.NumCPU()
	}
	if o.Out == nil {
		o.Out = io.Discard
	}
	if o.ErrOut == nil {
		o.ErrOut = o.Out
	}
	if o.FS == nil {
		o.FS = features.FS
	}
	return o
}

// godogOptions: godog's own formatter writes nowhere, the kit writes its
// output and reports. godog gets the tag filter in its own syntax (filter),
// so it leaves most unselected scenarios out; the kit's selection decides
// the rest (see scenario.before).
func godogOptions(ctx context.Context, o Options, filter string, srcs []FeatureSource) *godog.Options {
	return &godog.Options{
		Tags:            filter,
		Format:          "progress",
		Output:          io.Discard,
		NoColors:        true,
		FeatureContents: featureContents(srcs),
		Strict:          true,
		Concurrency:     o.Concurrency,
		Randomize:       o.Seed,
		DefaultContext:  ctx,
	}
}

// Check reports invalid options: unknown formats, more than one report on
// the console, a bad tag expression, a feature from disk that cannot be
// read, does not parse or has an undefined step.
func (o Options) Check() error {
	if _, err := parseFormats(o.withDefaults().Formats); err != nil {
		return err
	}
	if _, err := parseTags(o.Tags); err != nil {
		return err
	}
	if len(o.Features) == 0 && !o.FeaturesOnly {
		return nil
	}
	srcs, err := featureSources(o.withDefaults())
	if err != nil {
		return err
	}
	_, err = readCatalog(srcs, func(catalogScenario) bool { return false }, allSteps())
	return err
}

// selection combines the tag expression and the Only list; filter is the
// tag expression in godog's syntax ("" when it has no compact form).
func selection(o Options) (sel func(catalogScenario) bool, filter string, err error) {
	expr, err := parseTags(o.Tags)
	if err != nil {
		return nil, "", err
	}
	filter, _ = expr.godogFilter()
	var only map[string]bool
	if o.Only != nil {
		only = map[string]bool{}
		for _, r := range o.Only {
			only[fmt.Sprintf("%s:%d %s", r.Feature, r.Line, r.Name)] = true
		}
	}
	return func(s catalogScenario) bool {
		return expr.match(s.tags) && (only == nil || only[s.ref()])
	}, filter, nil
}

func emptySelection(o Options) string {
	switch {
	case o.Only != nil && len(o.Only) == 0:
		return "the results file lists no FAIL, WARN or ERROR scenario to run again"
	case o.Only != nil:
		return fmt.Sprintf("none of the %d scenarios to run again exists in these features (with tags %q)", len(o.Only), o.Tags)
	}
	return fmt.Sprintf("the tag expression %q selects no scenario (conform run --list shows every scenario and its tags)", o.Tags)
}

// list prints the selected scenarios, one per line with their tags, then
// the spec section × scenario table, then their count.
func list(w io.Writer, cat *catalog) error {
	sel := cat.selected()
	run := report.Run{}
	for _, s := range sel {
		fmt.Fprintf(w, "%s:%d: %s  %s\n", s.feature, s.line, s.name, s.tagLine())
		run.Scenarios = append(run.Scenarios, report.Scenario{Feature: s.feature, Name: s.name, Line: s.line, Tags: s.tags})
	}
	if len(sel) > 0 {
		fmt.Fprintln(w, "\nspec section  scenarios")
	}
	for _, row := range run.Sections() {
		section := row.Section
		if section != "—" {
			section = "§" + section
		}
		fmt.Fprintf(w, "%-12s  %3d  %s\n", section, len(row.Scenarios), strings.Join(row.Scenarios, " "))
	}
	fmt.Fprintf(w, "conform: %d scenarios\n", len(sel))
	if len(sel) == 0 {
		return fmt.Errorf("%w: the selection is empty", ErrNothingTested)
	}
	return nil
}

func summarize(results []ScenarioResult, seed int64, d time.Duration) Summary {
	sort.Slice(results, func(i, j int) bool {
		if results[i].Feature != results[j].Feature {
			return results[i].Feature < results[j].Feature
		}
		return results[i].Line < results[j].Line
	})
	sum := Summary{Results: results, Counts: map[Outcome]int{}, Seed: seed, Duration: d}
	for _, r := range results {
		sum.Counts[r.Outcome]++
	}
	return sum
}

// clauses renders the spec-section tags of a scenario, e.g. " [§4.1 §7]", so a
// verdict names the clauses it judged; "" when it has none.
func clauses(tags []string) string {
	var sections []string
	for _, t := range tags {
		if sec, ok := strings.CutPrefix(t, "@spec-"); ok {
			sections = append(sections, "§"+sec)
		}
	}
	if len(sections) == 0 {
		return ""
	}
	return " [" + strings.Join(sections, " ") + "]"
}
