package steps

import (
	"encoding/base64"
	"fmt"
	"sort"
	"strings"

	"github.com/conform-kit/conform/steps/report"
)

// reportBodyLimit bounds each body the results file keeps of an exchange.
const reportBodyLimit = 4096

// reproBodyLimit bounds a request body written into a reproduction script.
const reproBodyLimit = 64 << 10

func firstLine(s string) string {
	first, _, _ := strings.Cut(s, "\n")
	return first
}

// noteOperation records that the scenario called an operation.
func (s *scenario) noteOperation(ex *exchange) {
	if !ex.hasOp {
		return
	}
	for _, id := range s.rec.operations {
		if id == ex.op.ID {
			return
		}
	}
	s.rec.operations = append(s.rec.operations, ex.op.ID)
}

// exchangeReport is an exchange for the reports, secrets masked, bodies bounded.
func (s *scenario) exchangeReport(ex *exchange) *report.Exchange {
	r := &report.Exchange{Method: ex.method, URL: ex.url, User: s.who(ex), Status: ex.status}
	if len(ex.reqBody) > 0 {
		r.RequestBody = clipBody(s.mask(ex.reqBody))
	} else if ex.part != nil {
		r.RequestBody = fmt.Sprintf("multipart/form-data: file %q, %d bytes", ex.part.name, len(ex.part.data))
	}
	if len(ex.body) > 0 {
		r.ResponseBody = clipBody(s.mask(ex.body))
	}
	return r
}

func clipBody(b string) string {
	if len(b) <= reportBodyLimit {
		return b
	}
	return b[:reportBodyLimit] + fmt.Sprintf("… (%d bytes)", len(b))
}

// credentialEnv is the shell reference to a credential key's user and password.
func credentialEnv(key string) (user, password string) {
	switch key {
	case "merchant":
		return "$CONFORM_MERCHANT_USER", "$CONFORM_MERCHANT_PASSWORD"
	case "other_application":
		return "$CONFORM_OTHER_USER", "$CONFORM_OTHER_PASSWORD"
	}
	return "$CONFORM_USER", "$CONFORM_PASSWORD"
}

// reproduction is a shell script replaying the scenario's requests up to its
// first failing check, so a stateful check is reproduced with its set-up.
// Credentials come from the CONFORM_* variables the kit reads; ids the
// replayed requests create are captured (with jq) and used in later requests
// instead of the ids of the original run; uploads write the file they send.
func (s *scenario) reproduction() string {
	exs := s.rec.exchanges
	if n := s.rec.reproUpTo; n > 0 && n <= len(exs) {
		exs = exs[:n]
	}
	if len(exs) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "#!/bin/sh\n# %s:%d %s\n", s.feature, s.rec.line, s.name)
	b.WriteString("# Replays the scenario's requests up to its first failing check. Needs curl and jq;\n")
	b.WriteString("# credentials come from CONFORM_USER and CONFORM_PASSWORD (and CONFORM_MERCHANT_*,\n# CONFORM_OTHER_* for the other users), as conform run reads them.\nset -u\n")
	ids := map[string]string{} // id of the original run → shell variable
	var order []string
	for i, ex := range exs {
		fmt.Fprintf(&b, "\n# %d. %s %s as %s: answered %d\n", i+1, ex.method, ex.path, s.who(ex), ex.status)
		if ex.part != nil {
			fmt.Fprintf(&b, "printf '%%s' %s | base64 -d > %s\n", shellQuote(base64.StdEncoding.EncodeToString(clipBytes(ex.part.data))), shellQuote(ex.part.name))
		}
		cmd := s.replayCurl(ex)
		for _, id := range order {
			cmd = strings.ReplaceAll(cmd, id, `'"${`+ids[id]+`}"'`)
		}
		id, ok := lookupString(ex.doc, "id")
		if ok && ex.status >= 200 && ex.status <= 299 && len(id) >= 4 && ids[id] == "" {
			v := fmt.Sprintf("id_%d", i+1)
			fmt.Fprintf(&b, "%s=$(%s | tee /dev/stderr | jq -r .id)\n", v, cmd)
			ids[id] = v
			order = append(order, id)
			sort.Slice(order, func(a, c int) bool { return len(order[a]) > len(order[c]) })
			continue
		}
		fmt.Fprintf(&b, "%s\n", cmd)
	}
	return b.String()
}

// replayCurl is the curl command of an exchange with credentials from the
// environment and the request body as sent (the kit's own test card numbers
// included: they are public test numbers).
func (s *scenario) replayCurl(ex *exchange) string {
	var b strings.Builder
	s.curlRequest(&b, `curl -sS -w '\n'`, ex)
	if ex.reqType != "" {
		body := string(clipBytes(ex.reqBody))
		for _, key := range []string{"platform", "merchant", "other_application"} {
			if c := s.suite.cfg.credential(key); c != nil && len(c.Password) >= 3 {
				body = strings.ReplaceAll(body, c.Password, "****")
			}
		}
		fmt.Fprintf(&b, " -H %s --data-raw %s", shellQuote("Content-Type: "+ex.reqType), shellQuote(body))
	}
	return b.String()
}

func clipBytes(b []byte) []byte {
	if len(b) > reproBodyLimit {
		return b[:reproBodyLimit]
	}
	return b
}

// Report converts the summary into the report package's run, the one source
// of every report file.
func (s Summary) Report() report.Run {
	run := report.Run{
		Tool: "conform", Target: s.Target, Seed: s.Seed, Strict: s.Strict, Tags: s.Tags,
		Concurrency: s.Concurrency, Started: s.Started, Duration: report.MillisOf(s.Duration), Notes: s.Notes,
		ClauseTitles: s.ClauseTitles,
	}
	for _, r := range s.Results {
		run.Scenarios = append(run.Scenarios, report.Scenario{
			Feature: r.Feature, FeatureName: r.FeatureName, Name: r.Name, Line: r.Line, Tags: r.Tags,
			Outcome: r.Outcome, Duration: report.MillisOf(r.Duration),
			Checks: r.Checks(), Steps: r.Steps, Reproduction: r.Reproduction, Operations: r.Operations,
		})
	}
	for _, op := range s.Operations {
		c := s.Coverage[op.ID]
		run.Operations = append(run.Operations, report.Operation{ID: op.ID, Source: op.Source, Successes: c.Successes, Refusals: c.Refusals})
	}
	run.Recount()
	return run
}
