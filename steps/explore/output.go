package explore

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/conform-kit/conform/steps/report"
)

// render fills a finding's reproduction from its shrunk trace: the Gherkin
// scenario in the suite's step vocabulary and the curl replay script.
func (r *runner) render(f Finding, trace []Exchange) Finding {
	f.Trace = trace
	f.Shrunk = len(requestsOf(trace))
	f.Gherkin = gherkin(f)
	f.Curl = r.curl(f)
	return f
}

// Shrinking says how far the finding was shrunk: "shrunk from 29 to 4
// requests", or that no replay failed alike (kept as found).
func (f Finding) Shrinking() string {
	if !f.reproduced && f.Shrunk == f.Original {
		return fmt.Sprintf("%d requests, not shrunk: no replay of its sequences failed alike", f.Original)
	}
	return fmt.Sprintf("shrunk from %d to %d requests", f.Original, f.Shrunk)
}

// Counted says how many sequences failed with the finding's cause and on
// which operations: "17 sequences, on authorizations.get".
func (f Finding) Counted() string {
	n := "1 sequence"
	if f.Occurrences != 1 {
		n = fmt.Sprintf("%d sequences", f.Occurrences)
	}
	ops := f.Ops
	if len(ops) == 0 {
		ops = []string{f.Op}
	}
	return n + ", on " + strings.Join(ops, ", ")
}

// ExampleLines are the finding's first failing sequences, one a line,
// each as it failed before shrinking; the last line counts the others.
func (f Finding) ExampleLines() []string {
	var out []string
	for _, e := range f.Examples {
		out = append(out, fmt.Sprintf("sequence %d, %s: %s", e.Sequence, e.Op, strings.Join(strings.Fields(e.Message), " ")))
	}
	if more := f.Occurrences - len(f.Examples); more > 0 && len(f.Examples) > 0 {
		out = append(out, fmt.Sprintf("and %d more sequences", more))
	}
	return out
}

// scenarioTags are the tags of a finding's scenario: @explore, its clauses
// and, for an assumed basis, the suite's @assumed @profile-KEY pair.
func scenarioTags(f Finding) []string {
	tags := []string{"@explore"}
	for _, c := range f.Basis.Clauses {
		tags = append(tags, "@spec-"+c)
	}
	if f.Basis.Assumed != "" {
		tags = append(tags, "@assumed", "@profile-"+f.Basis.Assumed)
	}
	return tags
}

// querySuffix is the query of an expanded path ("?limit=2&offset=2").
func querySuffix(p string) string {
	if i := strings.IndexByte(p, '?'); i >= 0 {
		return p[i:]
	}
	return ""
}

// gherkin writes the shrunk sequence as a feature file: paste its scenario
// into a feature (its Background names the platform user too) and it runs.
func gherkin(f Finding) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\nFeature: Exploration findings\n\n", strings.Join(scenarioTags(f)[:1], " "))
	fmt.Fprintf(&b, "  %s\n", strings.Join(scenarioTags(f), " "))
	// The title says what failed, which a replay's failure ("status 200,
	// want a refusal: 4xx") does not: the field, the value and the rule.
	fmt.Fprintf(&b, "  Scenario: %s, %s: %s (explore seed %d, sequence %d)\n", f.Check, f.Op, titleOf(f.Message), f.Seed, f.Sequence)
	b.WriteString("    Given I am the platform user\n")
	user := userPlatform
	reqs := requestsOf(f.Trace)
	// The merchants are set as the target's were when the sequence began,
	// and where another sequence changed them meanwhile.
	merchants := usesMerchants(reqs)
	// set is each merchant's Level 2/3 processing as the scenario last
	// set it: a note that the target showed the same (another sequence
	// changed it and back meanwhile) sets nothing.
	set := map[string]bool{}
	i := -1
	for _, ex := range f.Trace {
		if ex.Page && ex.Step.Walk == nil && ex.Step.Op == "merchants.get" {
			doc, _ := ex.doc.(map[string]any)
			on, _ := doc["level_two_level_three_data_enabled"].(bool)
			if was, ok := set[ex.Step.Path]; !merchants || ok && was == on {
				continue
			}
			set[ex.Step.Path] = on
			if user != userPlatform {
				fmt.Fprintf(&b, "    Given I am the %s user\n", userPlatform)
				user = userPlatform
			}
			fmt.Fprintf(&b, "    When I PUT %q with the body:\n      \"\"\"\n      {\"level_two_level_three_data_enabled\":%t}\n      \"\"\"\n    Then the request succeeds\n", ex.Step.Path, on)
			continue
		}
		if !isRequest(ex) {
			continue
		}
		if ex.Step.Op == "merchants.update" && is2xx(ex.Status) {
			if on, ok := lookup(ex.doc, "level_two_level_three_data_enabled"); ok {
				if v, isBool := on.(bool); isBool {
					set[ex.Step.Path] = v
				}
			}
		}
		i++
		last := i == len(reqs)-1
		if ex.User != user {
			b.WriteString(gherkinUser(ex.User))
			user = ex.User
		}
		p := ex.Step.Path + querySuffix(ex.Path)
		switch {
		case ex.Step.Op == "transfers.get" && kindOf(ex.Step.Of) == "capture transfer":
			// Asked right after the capture or the authorization's read
			// (payments.go), whose answer names the transfer.
			b.WriteString("    When I fetch the transfer of the capture\n")
		case ex.Step.Body == "" || ex.Page:
			fmt.Fprintf(&b, "    When I %s %q\n", ex.Method, p)
		case ex.Step.ContentType != "":
			fmt.Fprintf(&b, "    When I %s %q with content type %q and the body:\n", ex.Method, p, ex.Step.ContentType)
			docString(&b, freshIDs(strings.ReplaceAll(ex.Step.Body, "\r\n", "\n"), runIDPlaceholder))
		default:
			fmt.Fprintf(&b, "    When I %s %q with the body:\n", ex.Method, p)
			docString(&b, freshIDs(ex.Step.Body, runIDPlaceholder))
		}
		if last {
			// The status first: replayed where the request is refused, the
			// scenario says so, not that a field of the refusal is missing.
			switch {
			case is2xx(ex.Status) && f.assert != "the request succeeds" && f.assert != "the request is refused":
				fmt.Fprintf(&b, "    Then the request succeeds\n    And %s\n", f.assert)
			default:
				fmt.Fprintf(&b, "    Then %s\n", f.assert)
			}
			break
		}
		switch {
		case is2xx(ex.Status):
			b.WriteString("    Then the request succeeds\n")
			if ex.Step.Save != "" && !ex.Page && ex.Step.Walk == nil {
				fmt.Fprintf(&b, "    And I remember the response as the %s\n", ex.Step.Save)
			}
		case is4xx(ex.Status):
			b.WriteString("    Then the request is refused\n")
		}
	}
	return b.String()
}

// maxTitle bounds the message a scenario's title carries, in characters.
const maxTitle = 160

// titleOf is a finding's message as a scenario title: on one line, without
// the request it opens with (the scenario's steps send it, with ids of
// their own), cut to maxTitle characters.
func titleOf(msg string) string {
	msg = strings.Join(strings.Fields(msg), " ")
	if loc := requestLine.FindStringIndex(msg); loc != nil && loc[0] == 0 {
		msg = strings.TrimLeft(msg[loc[1]:], ": ")
	}
	if rs := []rune(msg); len(rs) > maxTitle {
		msg = string(rs[:maxTitle]) + "…"
	}
	return msg
}

// idempotencyID matches an idempotency_id member of a JSON body and its value.
var idempotencyID = regexp.MustCompile(`("idempotency_id"\s*:\s*")((?:[^"\\]|\\.)*)"`)

// freshIDs rewrites every idempotency id of a body with fresh: a printed
// scenario or script sends ids of its own run, never the explore run's
// (which the target keeps: a second replay would be answered "already
// used"). Equal ids stay equal, different ones different.
func freshIDs(body string, fresh func(string) string) string {
	return idempotencyID.ReplaceAllStringFunc(body, func(m string) string {
		sub := idempotencyID.FindStringSubmatch(m)
		return sub[1] + fresh(sub[2]) + `"`
	})
}

// runIDPlaceholder prefixes an id with the suite's {run_id}, which every
// conform run draws anew.
func runIDPlaceholder(id string) string { return "{run_id}-" + id }

func usesMerchants(reqs []Exchange) bool {
	for _, ex := range reqs {
		if strings.Contains(ex.Step.Body, "additional_purchase_data") || strings.HasPrefix(ex.Step.Op, "merchants.") {
			return true
		}
	}
	return false
}

func docString(b *strings.Builder, body string) {
	b.WriteString("      \"\"\"\n")
	for line := range strings.SplitSeq(body, "\n") {
		b.WriteString("      " + line + "\n")
	}
	b.WriteString("      \"\"\"\n")
}

// curl writes a POSIX shell script that replays the shrunk sequence with
// curl, taking each created id from its answer. Credentials come from the
// environment, never from the script.
func (r *runner) curl(f Finding) string {
	var b strings.Builder
	fmt.Fprintf(&b, "#!/bin/sh\n# conform explore: %s %s on %s [%s]; seed %d, sequence %d\n", f.Outcome, f.Check, f.Op, f.Clause(), f.Seed, f.Sequence)
	b.WriteString("# CONFORM_USER/CONFORM_PASSWORD: the platform user; CONFORM_MERCHANT_USER/_PASSWORD and\n# CONFORM_OTHER_USER/_PASSWORD when a request acts as them.\nset -eu\n")
	fmt.Fprintf(&b, "T=\"${CONFORM_TARGET:-%s}\"\n", strings.TrimRight(r.opts.Target.URL, "/"))
	b.WriteString("id() { jq -r .id; } # needs jq, as the suite's replay scripts do\n")
	b.WriteString("RUN=\"${CONFORM_RUN_ID:-replay-$(date +%s)-$$}\" # each replay's idempotency ids are its own\n")
	target := &side{cfg: r.opts.Target, ids: map[string]string{}}
	vars := map[string]string{}
	reqs := requestsOf(f.Trace)
	// quote writes text between single quotes for the shell, whatever it
	// holds (O'Brien, CR LF): the created ids and $RUN it refers to are
	// marked while it is expanded, then spliced in as "${VAR}" once the
	// text is quoted.
	const mark = "\x00"
	quote := func(text string, fresh bool) string {
		for role, v := range vars {
			text = strings.ReplaceAll(text, "{"+role+"}", mark+"${"+v+"}"+mark)
		}
		text = target.expand(text)
		if fresh {
			text = freshIDs(text, func(id string) string { return mark + "$RUN" + mark + "-" + id })
		}
		text = strings.ReplaceAll(text, "'", `'\''`)
		text = strings.ReplaceAll(text, "\r\n", mark+"$CRLF"+mark)
		var q strings.Builder
		q.WriteString("'")
		for i, part := range strings.Split(text, mark) {
			if i%2 == 1 {
				q.WriteString(`'"` + part + `"'`)
				continue
			}
			q.WriteString(part)
		}
		q.WriteString("'")
		return q.String()
	}
	crlf := false
	for _, ex := range reqs {
		crlf = crlf || ex.Step.Body != "" && !ex.Page && strings.Contains(ex.Step.Body, "\r\n")
	}
	if crlf {
		b.WriteString("CRLF=$(printf '\\r\\n.'); CRLF=${CRLF%.} # a multipart body's line ends\n")
	}
	for i, ex := range reqs {
		line := fmt.Sprintf("curl -sS%s -X %s \"$T\"%s", curlUser(ex.User), ex.Method, quote(ex.Step.Path+querySuffix(ex.Path), false))
		if ex.Step.Body != "" && !ex.Page {
			line += fmt.Sprintf(" -H %s --data-binary %s", quote("Content-Type: "+ex.ContentType, false), quote(ex.Step.Body, true))
		}
		if tr := transferRole(ex.Step.Of); ex.Step.Op == "authorizations.capture" && is2xx(ex.Status) && i < len(reqs)-1 && names(reqs[i+1:], tr) {
			v := strings.ReplaceAll(tr, " ", "_")
			vars[tr] = v
			fmt.Fprintf(&b, "%s=$(%s | jq -r .transfer)\n", v, line)
			continue
		}
		if ex.Step.Save != "" && ex.Step.Walk == nil && !ex.Page && i < len(reqs)-1 {
			v := strings.ReplaceAll(ex.Step.Save, " ", "_")
			vars[ex.Step.Save] = v
			fmt.Fprintf(&b, "%s=$(%s | id)\n", v, line)
			continue
		}
		if i == len(reqs)-1 {
			fmt.Fprintf(&b, "# the failing request: %s\n", strings.Join(strings.Fields(f.Message), " "))
		}
		b.WriteString(line + " -w '\\n%{http_code}\\n'\n")
	}
	return b.String()
}

// Scenarios are the findings as scenarios of a conform results file,
// feature "explore", one per finding (a cause: its check, basis and
// normalised message), ordered by check: named by the check, the
// operations, the number of sequences that failed so and the cause; its
// check's message adds the shrunk finding's, how far it was shrunk and the
// first failing sequences, and its detail (what the HTML report's causes
// table groups by) is the cause.
func (res Result) Scenarios() []report.Scenario {
	fs := slices.Clone(res.Findings)
	slices.SortStableFunc(fs, func(a, b Finding) int { return strings.Compare(a.Check, b.Check) })
	var out []report.Scenario
	for _, f := range fs {
		kind := report.KindNormative
		if !f.Basis.Normative() {
			kind = report.KindAssumed
		}
		msg := fmt.Sprintf("%s: %s (%s; %s)", f.Check, f.Message, f.Counted(), f.Shrinking())
		if lines := f.ExampleLines(); len(lines) > 0 {
			msg += "\nfirst sequences failing so:\n  " + strings.Join(lines, "\n  ")
		}
		c := report.Check{Kind: kind, Step: f.assert, Clause: f.Clause(), Says: f.Says(), ProfileKey: f.Basis.Assumed, Expected: f.Expected, Observed: f.Observed,
			Operation: f.Op, Detail: fmt.Sprintf("%s: %s (%s)", f.Check, f.Cause(), f.Counted()), Message: msg, Curl: f.Curl}
		if reqs := requestsOf(f.Trace); len(reqs) > 0 {
			ex := reqs[len(reqs)-1]
			c.Exchange = &report.Exchange{Method: ex.Method, URL: ex.Path, User: ex.User, RequestBody: ex.Body, Status: ex.Status, ResponseBody: ex.Response}
		}
		tags := scenarioTags(f)
		ops := f.Ops
		if len(ops) == 0 {
			ops = []string{f.Op}
		}
		out = append(out, report.Scenario{Feature: "explore", FeatureName: "Exploration", Name: fmt.Sprintf("%s: %s (%d×): %s", f.Check, strings.Join(ops, ", "), f.Occurrences, f.Cause()), Tags: tags, Outcome: f.Outcome,
			Checks: []report.Check{c}, Operations: ops,
			Reproduction: fmt.Sprintf("# seed %d, sequence %d\n%s\n%s", f.Seed, f.Sequence, f.Gherkin, f.Curl)})
	}
	return out
}

// Notes summarize the exploration for a results file: requests, coverage
// totals, then each operation's answers and each request schema's leaves
// sent and boundaries reached, with what was not reached.
func (res Result) Notes() []string {
	ops := report.CountExploredOps(res.Coverage)
	t := report.ExploredTotals(res.Schemas)
	var absent []string
	for _, s := range res.Schemas {
		if s.NotOffered {
			absent = append(absent, s.Schema)
		}
	}
	summary := fmt.Sprintf("explore: seed %d, %d sequences, %d requests in %s; %d operations offered: %d with a 2xx, %d with a 4xx; request schemas: %d/%d leaves sent, %d/%d boundaries reached (%s)",
		res.Seed, res.Sequences, res.Requests, res.Duration.Round(1e6), ops.Offered, ops.Accepted, ops.Refused,
		t.LeavesSent, t.Leaves, t.BoundariesReached, t.Boundaries, percent(t.BoundariesReached, t.Boundaries))
	if len(ops.NotOffered) > 0 {
		summary += fmt.Sprintf("; not offered by the target, in no total: %d operations (%s)", len(ops.NotOffered), strings.Join(ops.NotOffered, ", "))
		if len(absent) > 0 {
			summary += fmt.Sprintf(" and %d request schemas (%s)", len(absent), strings.Join(absent, ", "))
		}
	}
	notes := []string{summary}
	if len(res.Observed) > 0 {
		notes = append(notes, "explore: judged with the target's observed choices (the profile the suite wrote for it): "+strings.Join(res.Observed, "; "))
	}
	if n := len(res.Unanswered); n > 0 {
		notes = append(notes, fmt.Sprintf("explore: %d requests got no answer, each ending its sequence; the first: %s", n, res.Unanswered[0]))
	}
	if held := res.heldNote(); held != "" {
		notes = append(notes, held)
	}
	for _, c := range res.Coverage {
		n := fmt.Sprintf("explore coverage %s: %d accepted, %d refused, %d 5xx", c.ID, c.Accepted, c.Refused, c.Errored)
		if c.NotOffered != "" {
			n = fmt.Sprintf("explore coverage %s: not offered (%s), in no total", c.ID, c.NotOffered)
		}
		notes = append(notes, n)
	}
	for _, s := range res.Schemas {
		n := fmt.Sprintf("explore schema %s: %d/%d leaves sent, %d/%d boundaries reached", s.Schema, s.LeavesSent, s.Leaves, s.BoundariesReached, s.Boundaries)
		if s.NotOffered {
			n += ": not offered (no operation the target offers takes it), in no total"
		} else if len(s.Missed) > 0 {
			n += "; not reached: " + strings.Join(s.Missed, "; ")
		}
		notes = append(notes, n)
	}
	return notes
}

// AddTo adds the findings, the operations' coverage, the summary note and
// the exploration's coverage tables to a run report.
func (res Result) AddTo(run *report.Run) {
	run.Scenarios = append(run.Scenarios, res.Scenarios()...)
	for _, c := range res.Coverage {
		if c.NotOffered != "" && c.Accepted+c.Refused+c.Errored == 0 {
			continue // never requested: nothing to count
		}
		i := slices.IndexFunc(run.Operations, func(o report.Operation) bool { return o.ID == c.ID })
		if i < 0 {
			run.Operations = append(run.Operations, report.Operation{ID: c.ID})
			i = len(run.Operations) - 1
		}
		run.Operations[i].Successes += c.Accepted
		run.Operations[i].Refusals += c.Refused
	}
	run.Notes = append(run.Notes, res.Notes()[0])
	if len(res.Observed) > 0 {
		run.Notes = append(run.Notes, res.Notes()[1])
	}
	if held := res.heldNote(); held != "" {
		run.Notes = append(run.Notes, held)
	}
	x := &report.Exploration{Seed: res.Seed, RunID: res.RunID, Sequences: res.Sequences, Requests: res.Requests, Duration: report.MillisOf(res.Duration)}
	x.Operations = slices.Clone(res.Coverage)
	x.Schemas = slices.Clone(res.Schemas)
	run.Exploration = x
	run.Recount()
}

// names reports whether a request of exs names the role in its path.
func names(exs []Exchange, role string) bool {
	return slices.ContainsFunc(exs, func(ex Exchange) bool { return strings.Contains(ex.Step.Path, "{"+role+"}") })
}
