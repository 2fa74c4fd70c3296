package report

import (
	"fmt"
	"html/template"
	"io"
	"sort"
	"strings"
	"unicode/utf8"
)

// htmlBodyLimit bounds each request or response body shown in the HTML report
// (the results file holds them whole), so 500 failing scenarios stay well
// under 2 MB.
const htmlBodyLimit = 400

// htmlCauseLimit bounds the causes listed; the rest are counted.
const htmlCauseLimit = 40

// WriteHTML writes run as one self-contained HTML page (inline style, no
// script, no external asset): the summary, the spec section × outcome matrix,
// the causes grouped, every FAIL, WARN and ERROR with its evidence, the skip
// reasons, the coverage per operation and the list of every scenario.
func WriteHTML(w io.Writer, run Run) error {
	if err := htmlPage.Execute(w, newHTMLView(run)); err != nil {
		return fmt.Errorf("report: write html: %w", err)
	}
	return nil
}

type htmlView struct {
	Run        Run
	Outcomes   []Outcome
	Total      int
	Verdict    string
	Sections   []SectionRow
	Causes     []Cause
	MoreCauses int
	Details    []Scenario
	Skips      []skipGroup
	Features   []Feature
	Ops        []OperationRow
	OpsBoth    int
}

type skipGroup struct {
	Reason    string
	Scenarios []string
}

func newHTMLView(run Run) htmlView {
	v := htmlView{Run: run, Outcomes: Outcomes[:], Total: run.Total(), Sections: run.Sections(), Causes: run.Causes(), Features: run.Features(), Ops: run.OperationRows()}
	if v.Run.Counts == nil {
		v.Run.Recount()
	}
	v.Verdict = verdict(v.Run)
	if len(v.Causes) > htmlCauseLimit {
		v.Causes, v.MoreCauses = v.Causes[:htmlCauseLimit], len(v.Causes)-htmlCauseLimit
	}
	skips := map[string]int{}
	for _, f := range v.Features {
		for _, s := range f.Scenarios {
			switch s.Outcome {
			case Fail, Warn, Error:
				v.Details = append(v.Details, s)
			case Skip:
				reason := s.Summary()
				i, ok := skips[reason]
				if !ok {
					i = len(v.Skips)
					skips[reason] = i
					v.Skips = append(v.Skips, skipGroup{Reason: reason})
				}
				v.Skips[i].Scenarios = append(v.Skips[i].Scenarios, s.ID()+" "+s.Name)
			}
		}
	}
	sort.SliceStable(v.Details, func(i, j int) bool { return rank(v.Details[i].Outcome) > rank(v.Details[j].Outcome) })
	sort.SliceStable(v.Skips, func(i, j int) bool { return len(v.Skips[i].Scenarios) > len(v.Skips[j].Scenarios) })
	for _, op := range v.Ops {
		if op.Successes > 0 && op.Refusals > 0 {
			v.OpsBoth++
		}
	}
	return v
}

// verdict is the one-line headline of a run.
func verdict(run Run) string {
	switch {
	case run.Total() == 0:
		return "nothing was tested"
	case run.Counts[Fail] > 0 || run.Counts[Error] > 0:
		return "not conformant: normative checks failed or could not run"
	case run.Counts[Skip] == run.Total():
		return "nothing was tested: every scenario was skipped"
	case run.Counts[Warn] > 0:
		return "conformant, with assumptions that differ"
	}
	return "conformant"
}

// clip shortens a body for display, on a rune boundary.
func clip(s string) string { return clipTo(s, htmlBodyLimit) }

// clipTo shortens s to about limit bytes, on a rune boundary.
func clipTo(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… (%d bytes; whole in the results file)", s[:cut], len(s))
}

// listUpTo joins items with sep, whole items only, up to about limit
// bytes; the items left out are counted: "a, b and 12 more".
func listUpTo(limit int, sep string, items []string) string {
	var b strings.Builder
	for i, it := range items {
		if i > 0 && b.Len()+len(sep)+len(it) > limit {
			fmt.Fprintf(&b, " and %d more", len(items)-i)
			break
		}
		if i > 0 {
			b.WriteString(sep)
		}
		b.WriteString(it)
	}
	return b.String()
}

var htmlFuncs = template.FuncMap{
	"upTo":           listUpTo,
	"lower":          func(o Outcome) string { return strings.ToLower(string(o)) },
	"count":          func(c map[Outcome]int, o Outcome) int { return c[o] },
	"clip":           clip,
	"clipTo":         func(limit int, s string) string { return clipTo(s, limit) },
	"secs":           func(m Millis) string { return fmt.Sprintf("%.3f s", m.Seconds()) },
	"ms":             func(m Millis) string { return fmt.Sprintf("%.0f ms", max(float64(m), 0)) },
	"join":           strings.Join,
	"exploredTotals": ExploredTotals,
	"exploredOps":    CountExploredOps,
	"clauses": func(s Scenario) string {
		if c := s.Clauses(); len(c) > 0 {
			return "§" + strings.Join(c, " §")
		}
		return ""
	},
	"total": func(c map[Outcome]int) int {
		n := 0
		for _, v := range c {
			n += v
		}
		return n
	},
	"upper": strings.ToUpper,
}

var htmlPage = template.Must(template.New("report").Funcs(htmlFuncs).Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>conform report: {{.Run.Target}}</title>
<style>
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0 auto;max-width:1200px;padding:1.5em;color:#1d2330;background:#fff}
h1{font-size:1.6em;margin:0 0 .2em}h2{font-size:1.25em;margin:1.8em 0 .5em;border-bottom:1px solid #d8dde6;padding-bottom:.2em}
h3{font-size:1.05em;margin:1.2em 0 .3em}
table{border-collapse:collapse;width:100%;margin:.4em 0}th,td{text-align:left;padding:.25em .6em;border-bottom:1px solid #e6e9ef;vertical-align:top}
th{background:#f4f6f9;font-weight:600}td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}
.meta{color:#4a5568}.meta span{margin-right:1.4em}
.counts{display:flex;gap:.6em;flex-wrap:wrap;margin:.8em 0}
.count{border-radius:6px;padding:.4em .9em;font-weight:600;min-width:5.5em}
.count b{display:block;font-size:1.6em}
.verdict{font-size:1.15em;font-weight:600;margin:.5em 0}
.pass{background:#e3f6e8;color:#17612d}.fail{background:#fde4e4;color:#9b1c1c}.warn{background:#fff3d6;color:#7a5200}
.skip{background:#eceff3;color:#4a5568}.error{background:#f3e4fb;color:#6b21a8}
.tag{display:inline-block;border-radius:4px;padding:0 .45em;font-size:.85em;font-weight:600}
td.zero{color:#b7bec9}
.scenario{border:1px solid #d8dde6;border-left-width:6px;border-radius:6px;padding:.6em 1em;margin:.8em 0}
.scenario.o-fail{border-left-color:#d64545}.scenario.o-warn{border-left-color:#e0a100}.scenario.o-error{border-left-color:#8b3dba}
.check{margin:.6em 0 .2em}.kv{display:grid;grid-template-columns:8em 1fr;gap:.1em .8em;margin:.3em 0}
.kv dt{color:#4a5568}.kv dd{margin:0}
pre{background:#f6f8fa;border:1px solid #e1e5eb;border-radius:4px;padding:.5em .7em;white-space:pre-wrap;word-break:break-all;margin:.3em 0;font:12.5px/1.4 ui-monospace,Menlo,Consolas,monospace}
code{font:12.5px ui-monospace,Menlo,Consolas,monospace;overflow-wrap:anywhere}
td,dd,h3{overflow-wrap:anywhere}
.small{font-size:.9em;color:#4a5568}
</style>
</head>
<body>
<h1>conform report</h1>
<p class="meta"><span>target <code>{{.Run.Target}}</code></span><span>seed <code>{{.Run.Seed}}</code></span><span>duration {{secs .Run.Duration}}</span>
<span>started {{if not .Run.Started.IsZero}}{{.Run.Started.UTC.Format "2006-01-02 15:04:05 UTC"}}{{end}}</span><span>{{if .Run.Strict}}strict (WARN counts as FAIL){{else}}not strict{{end}}</span>{{if .Run.Tags}}<span>tags <code>{{.Run.Tags}}</code></span>{{end}}<span>concurrency {{.Run.Concurrency}}</span></p>
<p class="verdict" id="verdict">{{.Total}} scenarios: {{.Verdict}}</p>
<div class="counts" id="counts">{{range .Outcomes}}<div class="count {{lower .}}"><b>{{count $.Run.Counts .}}</b>{{.}}</div>{{end}}</div>
{{with .Run.Notes}}<h2>Diagnostics</h2><ul>{{range .}}<li>{{.}}</li>{{end}}</ul>{{end}}
{{with .Run.Exploration}}<h2 id="exploration">Exploration</h2>
<p class="meta"><span>seed <code>{{.Seed}}</code></span><span>run id <code>{{.RunID}}</code></span><span>{{.Sequences}} sequences</span><span>{{.Requests}} requests</span><span>{{secs .Duration}}</span></p>
{{with exploredOps .Operations}}<p class="small" id="offered">{{.Offered}} operations offered: {{.Accepted}} answered a 2xx, {{.Refused}} a 4xx{{with .NotOffered}}; not offered, in no total: {{range $i, $op := .}}{{if $i}}, {{end}}<code>{{$op}}</code>{{end}}{{end}}.</p>{{end}}
<table><thead><tr><th>operation</th><th class="n">accepted</th><th class="n">refused</th><th class="n">5xx</th></tr></thead><tbody>
{{range .Operations}}<tr><td><code>{{.ID}}</code></td>{{if .NotOffered}}<td colspan="3" class="small not-offered">not offered: {{.NotOffered}} (in no total)</td>{{else}}<td class="n{{if eq .Accepted 0}} zero{{end}}">{{.Accepted}}</td><td class="n{{if eq .Refused 0}} zero{{end}}">{{.Refused}}</td><td class="n{{if eq .Errored 0}} zero{{else}} fail{{end}}">{{.Errored}}</td>{{end}}</tr>
{{end}}</tbody></table>
<table id="schemas"><thead><tr><th>request schema</th><th class="n">leaves sent</th><th class="n">boundaries reached</th><th>not reached</th></tr></thead><tbody>
{{range .Schemas}}<tr><td><code>{{.Schema}}</code></td>{{if .NotOffered}}<td class="n zero">{{.LeavesSent}}/{{.Leaves}}</td><td class="n zero">{{.BoundariesReached}}/{{.Boundaries}}</td><td class="small not-offered">not offered: no operation the target offers takes it (in no total)</td>{{else}}<td class="n{{if lt .LeavesSent .Leaves}} warn{{end}}">{{.LeavesSent}}/{{.Leaves}}</td><td class="n{{if lt .BoundariesReached .Boundaries}} warn{{end}}">{{.BoundariesReached}}/{{.Boundaries}}</td><td class="small">{{upTo 600 "; " .Missed}}</td>{{end}}</tr>
{{end}}{{with exploredTotals .Schemas}}<tr><td><b>offered, total</b></td><td class="n">{{.LeavesSent}}/{{.Leaves}}</td><td class="n">{{.BoundariesReached}}/{{.Boundaries}}</td><td></td></tr>{{end}}</tbody></table>{{end}}

<h2 id="matrix">Spec sections × outcome</h2>
<table><thead><tr><th>section</th>{{range .Outcomes}}<th class="n">{{.}}</th>{{end}}<th class="n">scenarios</th></tr></thead><tbody>
{{range .Sections}}<tr><td>{{if ne .Section "—"}}§{{end}}{{.Section}}{{with index $.Run.ClauseTitles .Section}} <span class="small">{{.}}</span>{{end}}</td>{{$row := .}}{{range $.Outcomes}}{{$n := count $row.Counts .}}<td class="n{{if eq $n 0}} zero{{else}} {{lower .}}{{end}}">{{$n}}</td>{{end}}<td class="n">{{total .Counts}}</td></tr>
{{end}}</tbody></table>

{{if .Causes}}<h2 id="causes">Causes</h2>
<p class="small">The same check, with the same clauses and message, is one cause whatever the scenario, operation or user it failed with; an assumed choice (a profile key and the value observed) is one cause whatever the sections of the scenarios it showed in.</p>
<table><thead><tr><th>outcome</th><th class="n">scenarios</th><th>clauses</th><th>check</th></tr></thead><tbody>
{{range .Causes}}<tr><td><span class="tag {{lower .Outcome}}">{{.Outcome}}</span></td><td class="n">{{len .Scenarios}}</td><td>{{range .Clauses}}§{{.}}{{with index $.Run.ClauseTitles .}} <span class="small">{{.}}</span>{{end}}<br>{{end}}</td><td>{{with .Example.ProfileKey}}<code>{{.}}</code>: {{end}}{{.Text | printf "%.300s"}}{{with .Operations}}<div class="small">on {{range $i, $op := .}}{{if $i}}, {{end}}<code>{{$op.ID}}</code> ×{{$op.Count}}{{end}}</div>{{end}}<div class="small">{{upTo 400 ", " .Scenarios}}</div></td></tr>
{{end}}</tbody></table>{{with .MoreCauses}}<p class="small">and {{.}} more causes, with their scenarios under the failures below.</p>{{end}}{{end}}

{{if .Details}}<h2 id="failures">Failures, warnings and errors</h2>
{{range .Details}}<div class="scenario o-{{lower .Outcome}}">
<h3><span class="tag {{lower .Outcome}}">{{.Outcome}}</span> {{.Name}}</h3>
<div class="small">{{.ID}} · {{.FeatureName}}{{with clauses .}} · {{.}}{{end}} · {{ms .Duration}}</div>
{{range .Checks}}<div class="check"><b>{{upper .Kind}}</b>{{range .Clauses}} §{{.}}{{with index $.Run.ClauseTitles .}} <span class="small">{{.}}</span>{{end}}{{end}}{{with .ProfileKey}} <code>{{.}}</code>{{end}}{{with .Step}} in step <i>{{.}}</i>{{end}}
{{with .Says}}<div class="says small">the spec: “{{.}}”</div>{{end}}<pre>{{.Message}}</pre>
<dl class="kv">{{if or .Expected .Observed}}<dt>expected</dt><dd><code>{{.Expected}}</code></dd><dt>observed</dt><dd><code>{{.Observed}}</code></dd>{{end}}
{{with .Pointers}}<dt>schema pointers</dt><dd>{{range .}}<code>{{.}}</code> {{end}}</dd>{{end}}
{{with .Exchange}}<dt>request</dt><dd><code>{{.Method}} {{.URL}}</code>{{with .User}} as {{.}}{{end}}{{with .RequestBody}}<pre>{{clip .}}</pre>{{end}}</dd>
<dt>response</dt><dd><code>{{.Status}}</code>{{with .ResponseBody}}<pre>{{clip .}}</pre>{{end}}</dd>{{end}}
{{with .Curl}}<dt>curl</dt><dd><pre>{{clipTo 600 .}}</pre></dd>{{end}}</dl></div>
{{end}}{{with .Reproduction}}<details><summary>reproduce the scenario</summary><pre>{{.}}</pre></details>{{end}}
</div>
{{end}}{{end}}

{{if .Skips}}<h2 id="skips">Skipped</h2>
<table><thead><tr><th>reason</th><th class="n">scenarios</th></tr></thead><tbody>
{{range .Skips}}<tr><td>{{.Reason}}<div class="small">{{upTo 600 "; " .Scenarios}}</div></td><td class="n">{{len .Scenarios}}</td></tr>
{{end}}</tbody></table>{{end}}

{{if .Ops}}<h2 id="coverage">Coverage per operation</h2>
<p class="small">{{.OpsBoth}} of {{len .Ops}} operations answered both a success and a refusal.</p>
<table><thead><tr><th>operation</th><th>source</th><th class="n">2xx</th><th class="n">4xx</th>{{range .Outcomes}}<th class="n">{{.}}</th>{{end}}</tr></thead><tbody>
{{range .Ops}}<tr><td><code>{{.ID}}</code></td><td>{{.Source}}</td><td class="n{{if eq .Successes 0}} zero{{end}}">{{.Successes}}</td><td class="n{{if eq .Refusals 0}} zero{{end}}">{{.Refusals}}</td>{{$row := .}}{{range $.Outcomes}}{{$n := count $row.Counts .}}<td class="n{{if eq $n 0}} zero{{else}} {{lower .}}{{end}}">{{$n}}</td>{{end}}</tr>
{{end}}</tbody></table>
<p class="small">2xx and 4xx count responses; PASS and SKIP count the scenarios that called the operation, FAIL, WARN and ERROR those whose failing check was about it (not those that called it to set up).</p>{{end}}

<h2 id="scenarios">Every scenario</h2>
{{range .Features}}<h3>{{.Title}} <span class="small">{{.File}}</span></h3>
<table><tbody>{{range .Scenarios}}<tr><td style="width:5em"><span class="tag {{lower .Outcome}}">{{.Outcome}}</span></td><td>{{.Name}}</td><td class="small">{{clauses .}}</td><td class="n small">{{ms .Duration}}</td></tr>
{{end}}</tbody></table>
{{end}}
</body>
</html>
`))
