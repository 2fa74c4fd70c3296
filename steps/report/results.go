package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// ResultsVersion is the version of the results file layout; ReadResults
// refuses files of another version.
const ResultsVersion = 1

// resultsFile is the results file on disk: a version, then the run.
type resultsFile struct {
	Version int `json:"conform_results"`
	Run
}

// WriteResults writes run as the conform results file (indented JSON).
func WriteResults(w io.Writer, run Run) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(resultsFile{Version: ResultsVersion, Run: run}); err != nil {
		return fmt.Errorf("report: write results: %w", err)
	}
	return nil
}

// ErrNotResults marks a file that is not a conform results file.
var ErrNotResults = errors.New("report: not a conform results file")

// ReadResults reads a results file written by WriteResults.
func ReadResults(r io.Reader) (Run, error) {
	var f resultsFile
	dec := json.NewDecoder(r)
	if err := dec.Decode(&f); err != nil {
		return Run{}, fmt.Errorf("%w: %w", ErrNotResults, err)
	}
	if f.Version != ResultsVersion {
		return Run{}, fmt.Errorf("%w: layout version %d, want %d", ErrNotResults, f.Version, ResultsVersion)
	}
	return f.Run, nil
}

// ReadResultsFile reads the results file at path.
func ReadResultsFile(path string) (Run, error) {
	f, err := os.Open(path)
	if err != nil {
		return Run{}, fmt.Errorf("report: %w", err)
	}
	defer f.Close()
	run, err := ReadResults(f)
	if err != nil {
		return Run{}, fmt.Errorf("%s: %w", path, err)
	}
	return run, nil
}

// Ref names a scenario across runs: its feature file and name (and example
// line, which tells the rows of a Scenario Outline apart).
type Ref struct {
	Feature string
	Name    string
	Line    int
}

// Unsettled returns the scenarios of run that did not PASS or SKIP (FAIL,
// WARN, ERROR): what --rerun-failed runs again.
func (r Run) Unsettled() []Ref {
	var out []Ref
	for _, s := range r.Scenarios {
		if s.Outcome == Fail || s.Outcome == Warn || s.Outcome == Error {
			out = append(out, Ref{Feature: s.Feature, Name: s.Name, Line: s.Line})
		}
	}
	return out
}

// Cause is one distinct check failure: the same check (kind), the same
// clauses and the same message, in every scenario and on every operation
// it hit; an assumed check with a profile key is one cause per key and
// observed value, whatever the clauses of the scenarios it failed in.
type Cause struct {
	Kind    string
	Key     string // what groups it: kind, clauses and the message without its request; or kind, profile key and observed value
	Outcome Outcome
	// Clauses are the spec sections the check judges: Example.Clauses, and
	// for a profile key's cause those of every scenario it failed in too.
	Clauses []string
	// Scenarios are the IDs of the scenarios it failed in, each once, in run order.
	Scenarios []string
	// Operations are the operations it was about, the most hit first: in how
	// many of its scenarios it failed on each.
	Operations []OperationCount
	Example    Check // the first occurrence
}

// OperationCount is an operation and a number of scenarios.
type OperationCount struct {
	ID    string `json:"id"`
	Count int    `json:"count"`
}

// Text is what failed, without the request it failed on: the check's
// detail, else the first line of its message.
func (c Cause) Text() string {
	t := c.Example.Detail
	if t == "" {
		t, _, _ = strings.Cut(c.Example.Message, "\n")
	}
	return t
}

// Causes groups the checks of FAIL, WARN and ERROR scenarios: the same check
// (kind, clauses, profile key) with the same message, whatever the step,
// operation or user it failed with, is one cause, naming the scenarios and
// the operations it hit. Worst outcome first, then most scenarios.
func (r Run) Causes() []Cause {
	idx := map[string]int{}
	var out []Cause
	ops := []map[string]int{}
	for _, s := range r.Scenarios {
		if s.Outcome == Pass || s.Outcome == Skip {
			continue
		}
		seen := map[string]bool{}
		for _, c := range s.Checks {
			if c.Kind == KindSkip {
				continue
			}
			key := causeKey(c)
			i, ok := idx[key]
			if !ok {
				i = len(out)
				idx[key] = i
				o := kindOutcome(c.Kind)
				if o == Warn && r.Strict {
					o = Fail // --strict: an assumed check that fails is a FAIL
				}
				out = append(out, Cause{Kind: c.Kind, Key: key, Outcome: o, Clauses: slices.Clone(c.Clauses), Example: c})
				ops = append(ops, map[string]int{})
			}
			if c.Operation != "" && !seen[key+" "+c.Operation] {
				seen[key+" "+c.Operation] = true
				ops[i][c.Operation]++
			}
			if !seen[key] {
				seen[key] = true
				out[i].Scenarios = append(out[i].Scenarios, s.ID())
			}
			for _, cl := range c.Clauses {
				if !slices.Contains(out[i].Clauses, cl) {
					out[i].Clauses = append(out[i].Clauses, cl)
				}
			}
		}
	}
	for i := range out {
		if out[i].Example.ProfileKey != "" {
			sort.SliceStable(out[i].Clauses, func(a, b int) bool { return sectionLess(out[i].Clauses[a], out[i].Clauses[b]) })
		}
		for id, n := range ops[i] {
			out[i].Operations = append(out[i].Operations, OperationCount{ID: id, Count: n})
		}
		sort.Slice(out[i].Operations, func(a, b int) bool {
			oa, ob := out[i].Operations[a], out[i].Operations[b]
			return oa.Count > ob.Count || oa.Count == ob.Count && oa.ID < ob.ID
		})
	}
	sort.SliceStable(out, func(i, j int) bool {
		if a, b := rank(out[i].Outcome), rank(out[j].Outcome); a != b {
			return a > b
		}
		return len(out[i].Scenarios) > len(out[j].Scenarios)
	})
	return out
}

func kindOutcome(kind string) Outcome {
	switch kind {
	case KindAssumed:
		return Warn
	case KindKit:
		return Error
	}
	return Fail
}

// rank orders outcomes from best (0) to worst.
func rank(o Outcome) int {
	switch o {
	case Skip:
		return 1
	case Warn:
		return 2
	case Fail:
		return 3
	case Error:
		return 4
	}
	return 0
}

// causeKey is what makes two checks the same cause: the kind, the clauses
// and invariants, then the profile key and observed value when the check
// names one, else the check's detail (the message without the request it
// failed on: no step, operation or user) with ids left out.
func causeKey(c Check) string {
	if c.ProfileKey != "" {
		// An assumed choice is one cause wherever it showed: the scenario's
		// spec sections it failed in do not split it (a sale answered 200
		// instead of 201 is one cause in the §2.13, §4.2 and §7 scenarios).
		return c.Kind + " " + strings.Join(c.Invariants, ",") + " " + c.ProfileKey + " " + c.Observed
	}
	basis := c.Kind + " " + strings.Join(c.Clauses, ",") + " " + strings.Join(c.Invariants, ",")
	first := c.Detail
	if first == "" {
		first = c.Message
	}
	first, _, _ = strings.Cut(first, "\n")
	return basis + " " + maskIDs(first)
}

// maskIDs replaces id-like words (two or more capitals and digits mixed, or
// PREFIX_ ids) by "…" so one check on different resources groups together.
func maskIDs(s string) string {
	words := strings.FieldsFunc(s, func(r rune) bool {
		return !(r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' || r == '-')
	})
	for _, w := range words {
		if looksLikeID(w) {
			s = strings.ReplaceAll(s, w, "…")
		}
	}
	return s
}

func looksLikeID(w string) bool {
	if len(w) < 12 {
		return false
	}
	var upper, digit, lower bool
	for _, r := range w {
		switch {
		case r >= 'A' && r <= 'Z':
			upper = true
		case r >= '0' && r <= '9':
			digit = true
		case r >= 'a' && r <= 'z':
			lower = true
		case r == '_' || r == '-':
		default:
			return false
		}
	}
	return upper && (digit || lower)
}

// SectionRow is one spec section of the clause × outcome matrix.
type SectionRow struct {
	Section   string
	Counts    map[Outcome]int
	Scenarios []string // scenario IDs
}

// Sections builds the spec section × outcome matrix, sections in numeric order.
// Scenarios that name no section count under "—".
func (r Run) Sections() []SectionRow {
	idx := map[string]int{}
	var out []SectionRow
	add := func(sec string, s Scenario) {
		i, ok := idx[sec]
		if !ok {
			i = len(out)
			idx[sec] = i
			out = append(out, SectionRow{Section: sec, Counts: map[Outcome]int{}})
		}
		out[i].Counts[s.Outcome]++
		out[i].Scenarios = append(out[i].Scenarios, s.ID())
	}
	for _, s := range r.Scenarios {
		secs := s.Clauses()
		if len(secs) == 0 {
			add("—", s)
		}
		for _, sec := range secs {
			add(sec, s)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return sectionLess(out[i].Section, out[j].Section) })
	return out
}

// sectionLess orders "2.1" < "2.13" < "4" < "4.1" < "10", "—" last.
func sectionLess(a, b string) bool {
	pa, pb := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(pa) && i < len(pb); i++ {
		na, ea := strconv.Atoi(pa[i])
		nb, eb := strconv.Atoi(pb[i])
		if ea != nil || eb != nil {
			if pa[i] != pb[i] {
				return ea == nil || (eb != nil && pa[i] < pb[i])
			}
			continue
		}
		if na != nb {
			return na < nb
		}
	}
	return len(pa) < len(pb)
}
