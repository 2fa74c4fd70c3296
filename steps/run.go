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
	"github.com/conform-kit/conform/validate"
)

// Options shape one run of the suite.
type Options struct {
	// Tags is a godog tag expression ("@transfers && ~@assumed").
	Tags string
	// Formats are godog formatters: "pretty", "progress", "junit:FILE", "cucumber:FILE"...
	// A format without ":FILE" writes to Out. Default: "progress".
	Formats []string
	// Strict turns WARN (a failed assumed check) into FAIL.
	Strict bool
	// Concurrency is the number of scenarios run at once; default runtime.NumCPU().
	Concurrency int
	// Seed orders scenarios: negative picks a random seed (reported in the summary), 0 keeps file order, N > 0 replays that order.
	Seed int64
	// ListOnly prints the scenarios that would run and runs nothing.
	ListOnly bool
	// Out receives the formatters' output, the verdicts and the summary line; default io.Discard.
	Out io.Writer
	// FS holds the features; default features.FS.
	FS fs.FS
	// Colors enables ANSI colors in the formatters' output.
	Colors bool
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
	// Profile is the target's declared profile the run judged by.
	Profile validate.Profile
	// Differences groups the failed assumed checks by key, expected and observed.
	Differences []Difference
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

// Run executes the suite against cfg's target and reports each verdict. The
// error is non-nil only when the suite could not run (configuration, options);
// conformance failures are in the Summary.
func Run(ctx context.Context, cfg Config, opts Options) (Summary, error) {
	opts = opts.withDefaults()
	if err := opts.Check(); err != nil {
		return Summary{}, err
	}
	if opts.ListOnly {
		return Summary{}, list(opts)
	}
	st, err := newSuite(cfg, opts.Strict)
	if err != nil {
		return Summary{}, err
	}
	defer st.close()
	start := time.Now()
	status := godog.TestSuite{
		Name:                "conform",
		ScenarioInitializer: st.initializeScenario,
		Options:             godogOptions(ctx, opts),
	}.Run()
	sum := summarize(st.results.all(), opts.Seed, time.Since(start))
	sum.Coverage = st.results.coverageCopy()
	sum.Operations = st.v.Operations()
	sum.Profile, sum.Differences = st.profile, differences(sum.Results)
	if status == 2 {
		return sum, fmt.Errorf("%w: godog refused the options (format or tags)", ErrUsage)
	}
	report(opts.Out, sum)
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
	if o.FS == nil {
		o.FS = features.FS
	}
	return o
}

func godogOptions(ctx context.Context, o Options) *godog.Options {
	return &godog.Options{
		Format:         strings.Join(o.Formats, ","),
		Output:         o.Out,
		NoColors:       !o.Colors,
		Paths:          []string{"."},
		FS:             o.FS,
		Tags:           o.Tags,
		Strict:         true,
		Concurrency:    o.Concurrency,
		Randomize:      o.Seed,
		DefaultContext: ctx,
	}
}

// Check reports options godog would refuse: formats must be formatter names
// godog registers, each with an optional ":FILE".
func (o Options) Check() error {
	known := godog.AvailableFormatters()
	for _, f := range o.Formats {
		name, _, _ := strings.Cut(f, ":")
		if _, ok := known[name]; !ok {
			return fmt.Errorf("%w: unknown format %q (pretty, progress, junit:FILE, cucumber:FILE...)", ErrUsage, name)
		}
	}
	return nil
}

// list prints the scenarios that the options select, one per line, with their tags.
func list(opts Options) error {
	feats, err := godog.TestSuite{Options: &godog.Options{FS: opts.FS, Paths: []string{"."}, Tags: opts.Tags}}.RetrieveFeatures()
	if err != nil {
		return fmt.Errorf("%w: %w", ErrUsage, err)
	}
	n := 0
	for _, f := range feats {
		for _, p := range f.Pickles {
			tags := make([]string, 0, len(p.Tags))
			for _, t := range p.Tags {
				tags = append(tags, t.Name)
			}
			fmt.Fprintf(opts.Out, "%s: %s  %s\n", p.Uri, p.Name, strings.Join(tags, " "))
			n++
		}
	}
	fmt.Fprintf(opts.Out, "conform: %d scenarios\n", n)
	return nil
}

func summarize(results []ScenarioResult, seed int64, d time.Duration) Summary {
	sort.Slice(results, func(i, j int) bool {
		if results[i].Feature != results[j].Feature {
			return results[i].Feature < results[j].Feature
		}
		return results[i].Name < results[j].Name
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

// report prints every FAIL, SKIP and ERROR with its evidence, then one
// grouped table of the differences every WARN found (key, expected,
// observed, scenarios), then the summary line.
func report(w io.Writer, sum Summary) {
	for _, r := range sum.Results {
		if r.Outcome == Pass || r.Outcome == Warn {
			continue
		}
		fmt.Fprintf(w, "%-5s %s: %s%s\n", r.Outcome, r.Feature, r.Name, clauses(r.Tags))
		for _, m := range r.Messages {
			fmt.Fprintf(w, "      %s\n", strings.ReplaceAll(m, "\n", "\n      "))
		}
	}
	printDifferences(w, sum.Differences)
	if len(sum.Operations) > 0 {
		fmt.Fprintln(w, sum.CoverageLine())
	}
	fmt.Fprintln(w, sum.Line())
}
