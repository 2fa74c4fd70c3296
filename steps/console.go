package steps

import (
	"fmt"
	"io"
	"net/url"
	"sort"
	"strings"

	"github.com/conform-kit/conform/steps/report"
)

// console prints each verdict as it arrives: a character per scenario
// (progress) or a line (pretty). Calls are serialised by the recorder.
type console struct {
	w     io.Writer
	style string
	total int
	done  int
}

func newConsole(w io.Writer, style string, total int) *console {
	return &console{w: w, style: style, total: total}
}

// progressMark is the character of an outcome in the progress style.
func progressMark(o Outcome) string {
	switch o {
	case Pass:
		return "."
	case "":
		return "?"
	}
	return string(o)[:1]
}

func (c *console) scenarioDone(r ScenarioResult) {
	c.done++
	switch c.style {
	case "progress":
		fmt.Fprint(c.w, progressMark(r.Outcome))
		if c.done%60 == 0 || c.done == c.total {
			fmt.Fprintf(c.w, " %d/%d\n", c.done, c.total)
		}
	case "pretty":
		fmt.Fprintf(c.w, "%-5s %s %s%s (%dms)\n", r.Outcome, r.ID(), r.Name, clauses(r.Tags), r.Duration.Milliseconds())
	}
}

// printSummary prints the causes (the same check with the same clauses and
// message is one entry, whatever scenario, operation or user it failed
// with), the skip reasons grouped, the run's diagnostics, the coverage and
// the closing line: once, whatever the formats.
func printSummary(w io.Writer, sum Summary, run report.Run) {
	causes := run.Causes()
	if len(causes) > 0 {
		fmt.Fprintln(w)
	}
	for _, c := range causes {
		if c.Outcome == report.Warn && c.Example.ProfileKey != "" {
			continue // in the table of differences below
		}
		fmt.Fprintf(w, "%-5s ×%d %s%s\n", c.Outcome, len(c.Scenarios), citation(c.Example), c.Text())
		if c.Example.ProfileKey != "" {
			fmt.Fprintf(w, "      profile key %s: expected %s, observed %s\n", c.Example.ProfileKey, c.Example.Expected, c.Example.Observed)
		}
		if line := operationList(c.Operations); line != "" {
			fmt.Fprintf(w, "      on %s\n", line)
		}
		fmt.Fprintf(w, "      in %s\n", scenarioList(run, c.Scenarios))
		if rest := strings.TrimPrefix(c.Example.Message, firstLine(c.Example.Message)); rest != "" {
			fmt.Fprintf(w, "      %s\n", strings.ReplaceAll(strings.TrimSpace(rest), "\n", "\n      "))
		}
		if ex := c.Example.Exchange; ex != nil {
			who := ""
			if ex.User != "" {
				who = " as " + ex.User
			}
			fmt.Fprintf(w, "      e.g. %s %s%s: %d %s\n", ex.Method, urlPath(ex.URL), who, ex.Status, oneLine(ex.ResponseBody, 400))
		}
		printCurl(w, c.Example)
	}
	printDifferences(w, sum.Differences)
	skips := map[string]int{}
	for _, s := range run.Scenarios {
		if s.Outcome == report.Skip {
			skips[s.Summary()]++
		}
	}
	reasons := make([]string, 0, len(skips))
	for r := range skips {
		reasons = append(reasons, r)
	}
	sort.Slice(reasons, func(i, j int) bool {
		return skips[reasons[i]] > skips[reasons[j]] || skips[reasons[i]] == skips[reasons[j]] && reasons[i] < reasons[j]
	})
	for _, r := range reasons {
		fmt.Fprintf(w, "SKIP  ×%d %s\n", skips[r], r)
	}
	if line := unsettledSections(run); line != "" {
		fmt.Fprintf(w, "conform: spec sections not all PASS: %s\n", line)
	}
	if line := unsettledOperations(run); line != "" {
		fmt.Fprintf(w, "conform: operations with a failing check (PASS: scenarios that called them): %s\n", line)
	}
	for _, n := range sum.Notes {
		fmt.Fprintf(w, "conform: %s\n", n)
	}
	if len(sum.Operations) > 0 {
		fmt.Fprintln(w, sum.CoverageLine())
	}
	fmt.Fprintln(w, sum.Line())
}

// printCurl prints the curl reproducing a check, whole, after the
// environment variables it reads: the credentials named with whose they
// are (set them from your config), the kit's own test data as an export
// line to paste before the curl. A curl longer than the replay scripts'
// body limit (a body of a mebibyte) is left to the results file.
func printCurl(w io.Writer, c report.Check) {
	if c.Curl == "" {
		return
	}
	if len(c.Curl) > reproBodyLimit {
		// A body of a mebibyte is not for a terminal; a curl is never cut,
		// so it is only in the reports.
		fmt.Fprintf(w, "      reproduce: a curl of %d KiB (its request body): in the results file (json:FILE) as the check's curl\n", len(c.Curl)>>10)
		return
	}
	var named, exports []string
	for _, v := range c.CurlEnv {
		if v.Value == "" {
			named = append(named, v.Name+" ("+v.Holds+")")
			continue
		}
		exports = append(exports, v.Name+"="+shellQuote(v.Value))
	}
	if len(named) == 0 && len(exports) == 0 {
		fmt.Fprintf(w, "      reproduce: %s\n", c.Curl)
		return
	}
	fmt.Fprintln(w, "      reproduce, reading from the environment:")
	if len(named) > 0 {
		fmt.Fprintf(w, "        # set %s\n", strings.Join(named, ", "))
	}
	if len(exports) > 0 {
		fmt.Fprintf(w, "        export %s\n", strings.Join(exports, " "))
	}
	fmt.Fprintf(w, "        %s\n", c.Curl)
}

// citation is what a failed check judges by, before its message: its spec
// sections and, for a normative check, the spec's words ("§8 (the spec:
// “Card address.city: max 20 characters”) "), else "".
func citation(c report.Check) string {
	if len(c.Clauses) == 0 {
		return ""
	}
	if c.Says != "" {
		return "§" + strings.Join(c.Clauses, " §") + " (the spec: \u201c" + c.Says + "\u201d) "
	}
	return "§" + strings.Join(c.Clauses, " §") + " "
}

// operationList names the operations of a cause with their scenario
// counts: "transfers.create ×12, authorizations.create ×3", at most six.
func operationList(ops []report.OperationCount) string {
	var parts []string
	for i, op := range ops {
		if i == 6 {
			parts = append(parts, fmt.Sprintf("and %d more", len(ops)-6))
			break
		}
		parts = append(parts, fmt.Sprintf("%s ×%d", op.ID, op.Count))
	}
	return strings.Join(parts, ", ")
}

// urlPath is the path (and query) of an absolute URL, or the URL itself.
func urlPath(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Path == "" {
		return raw
	}
	return u.RequestURI()
}

// scenarioList names the scenarios of a cause: "name (file:line)", at most five.
func scenarioList(run report.Run, ids []string) string {
	names := map[string]string{}
	for _, s := range run.Scenarios {
		names[s.ID()] = s.Name
	}
	var parts []string
	for i, id := range ids {
		if i == 5 {
			parts = append(parts, fmt.Sprintf("and %d more", len(ids)-5))
			break
		}
		parts = append(parts, fmt.Sprintf("%q (%s)", names[id], id))
	}
	return strings.Join(parts, ", ")
}

// oneLine shortens s to one line of at most n bytes.
func oneLine(s string, n int) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// topSkip names the most frequent skip reason of a run.
func topSkip(run report.Run) string {
	counts := map[string]int{}
	best := ""
	for _, s := range run.Scenarios {
		if s.Outcome != report.Skip {
			continue
		}
		r := s.Summary()
		counts[r]++
		if counts[r] > counts[best] || best == "" {
			best = r
		}
	}
	return fmt.Sprintf("most often: %s", best)
}

// unsettledSections lists the spec sections with a FAIL, WARN, SKIP or ERROR
// scenario and their counts: "§5 (1 PASS, 41 WARN), §7 (…)".
func unsettledSections(run report.Run) string {
	var parts []string
	for _, row := range run.Sections() {
		if row.Counts[report.Pass] == len(row.Scenarios) {
			continue
		}
		name := row.Section
		if name != "—" {
			name = "§" + name
		}
		parts = append(parts, fmt.Sprintf("%s (%s)", name, countsText(row.Counts)))
	}
	return strings.Join(parts, ", ")
}

// unsettledOperations lists the operations a FAIL, WARN or ERROR scenario's
// failing check was about (not those it only called to set up).
func unsettledOperations(run report.Run) string {
	var parts []string
	for _, row := range run.OperationRows() {
		if row.Counts[report.Fail]+row.Counts[report.Warn]+row.Counts[report.Error] == 0 {
			continue
		}
		parts = append(parts, fmt.Sprintf("%s (%s)", row.ID, countsText(row.Counts)))
	}
	return strings.Join(parts, ", ")
}

// countsText renders outcome counts, zeros left out: "1 PASS, 41 WARN".
func countsText(c map[report.Outcome]int) string {
	var parts []string
	for _, o := range report.Outcomes {
		if c[o] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", c[o], o))
		}
	}
	return strings.Join(parts, ", ")
}
