package steps

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/conform-kit/conform/steps/report"
	"github.com/conform-kit/conform/validate/judging"
)

// judged makes the verdicts of judged checks, as judgeCheck records them.
func judged(checks ...Check) []Verdict {
	out := make([]Verdict, len(checks))
	for i := range checks {
		kind := report.KindAssumed
		if checks[i].Basis.Normative() {
			kind = report.KindNormative
		}
		out[i] = Verdict{Report: report.Check{Kind: kind, Message: checks[i].Message}, Judged: &checks[i]}
	}
	return out
}

func assumedCheck(key, expected, observed, patch string) Check {
	top, _, _ := strings.Cut(key, ".")
	c := Check{Basis: judging.Basis{Assumed: top}, Key: key, Expected: expected, Observed: observed, Message: "m"}
	if patch != "" {
		c.Patch = json.RawMessage(patch)
	}
	return c
}

// TestDifferencesGroupByKeyExpectedObserved: one row per key, expected and
// observed, naming every scenario once; normative checks are not differences.
func TestDifferencesGroupByKeyExpectedObserved(t *testing.T) {
	results := []ScenarioResult{
		{Feature: "a.feature", Name: "one", Verdicts: judged(
			assumedCheck("create_status", "201", "200", `{"success_status":{"transfers.create":200}}`),
			assumedCheck("create_status", "201", "200", `{"success_status":{"transfers.create":200}}`),
			Check{Basis: judging.Basis{Clauses: []string{"7"}}, Message: "normative"},
		)},
		{Feature: "b.feature", Name: "two", Verdicts: judged(
			assumedCheck("create_status", "201", "200", `{"success_status":{"payment_instruments.create":200}}`),
			assumedCheck("refusals.not_found", "404 NOT_FOUND", "400 MISSING", `{"refusals":{"not_found":{"status":400,"codes":["MISSING"]}}}`),
		)},
	}
	got := differences(results)
	want := []Difference{
		{Key: "create_status", Expected: "201", Observed: "200", Scenarios: []string{"a.feature: one", "b.feature: two"}},
		{Key: "refusals.not_found", Expected: "404 NOT_FOUND", Observed: "400 MISSING", Scenarios: []string{"b.feature: two"}},
	}
	if len(got) != len(want) {
		t.Fatalf("differences = %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i].Key != want[i].Key || got[i].Expected != want[i].Expected || got[i].Observed != want[i].Observed || strings.Join(got[i].Scenarios, "|") != strings.Join(want[i].Scenarios, "|") {
			t.Errorf("row %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	var b bytes.Buffer
	printDifferences(&b, got)
	for _, line := range []string{"2 differences", "create_status", "2: a.feature: one (+1 more)", "refusals.not_found", "400 MISSING"} {
		if !strings.Contains(b.String(), line) {
			t.Errorf("table lacks %q:\n%s", line, b.String())
		}
	}

	v, err := judging.Default()
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := WriteProfile(&out, Summary{Results: results, Profile: v.DefaultProfile()}); err != nil {
		t.Fatalf("WriteProfile: %v", err)
	}
	p, err := v.DecodeProfile(out.Bytes())
	if err != nil {
		t.Fatalf("the written profile does not decode: %v\n%s", err, out.String())
	}
	if p.CreateStatus != 200 || len(p.SuccessStatusByOp) != 0 {
		t.Errorf("written create_status %d, success_status %v; want the agreeing creates collapsed to create_status 200\n%s", p.CreateStatus, p.SuccessStatusByOp, out.String())
	}
	if r := p.Refusal(judging.RefusalNotFound); r.Status != 400 || !r.CodeMatches([]string{"MISSING"}) {
		t.Errorf("written not_found refusal %v, want 400 MISSING", r)
	}
}

// TestProfileInConfigIsChecked: a config's profile with a key the kit does
// not know is a configuration error, before any request.
func TestProfileInConfigIsChecked(t *testing.T) {
	_, err := newSuite(Config{Target: "http://127.0.0.1:9", Profile: json.RawMessage(`{"list_max_limit": 5}`)}, false, nil, nil)
	if !errors.Is(err, ErrConfig) || !errors.Is(err, judging.ErrProfile) {
		t.Fatalf("newSuite with list_max_limit 5: %v, want ErrConfig wrapping judging.ErrProfile", err)
	}
}

// TestWrittenExtensionsAreWhatNoScenarioFoundMissing: two scenarios each
// missing another extension write the extensions without both.
func TestWrittenExtensionsAreWhatNoScenarioFoundMissing(t *testing.T) {
	v, err := judging.Default()
	if err != nil {
		t.Fatal(err)
	}
	all := v.DefaultProfile().Extensions
	without := func(id string) string {
		var kept []string
		for _, e := range all {
			if e != id {
				kept = append(kept, e)
			}
		}
		b, _ := json.Marshal(map[string][]string{"extensions": kept})
		return string(b)
	}
	results := []ScenarioResult{
		{Feature: "a.feature", Name: "one", Verdicts: judged(assumedCheck("extensions", "transfers.get offered", "404", without("transfers.get")))},
		{Feature: "b.feature", Name: "two", Verdicts: judged(assumedCheck("extensions", "authorizations.get offered", "405", without("authorizations.get")))},
	}
	var out bytes.Buffer
	if err := WriteProfile(&out, Summary{Results: results, Profile: v.DefaultProfile()}); err != nil {
		t.Fatalf("WriteProfile: %v", err)
	}
	p, err := v.DecodeProfile(out.Bytes())
	if err != nil {
		t.Fatalf("the written profile does not decode: %v\n%s", err, out.String())
	}
	if len(p.Extensions) != len(all)-2 {
		t.Errorf("written extensions %v, want the %d of %v without transfers.get and authorizations.get", p.Extensions, len(all)-2, all)
	}
	for _, id := range []string{"transfers.get", "authorizations.get"} {
		for _, e := range p.Extensions {
			if e == id {
				t.Errorf("written extensions %v still offer %s", p.Extensions, id)
			}
		}
	}
}

// TestWrittenEventLayout: events whose places the writer read alike are
// written as layout fields with those places; an event it could not read,
// or two events read in different places, write the layout unchecked,
// whatever order the scenarios ran in.
func TestWrittenEventLayout(t *testing.T) {
	v, err := judging.Default()
	if err != nil {
		t.Fatal(err)
	}
	fields := func(resource string) string {
		return `{"event_layout": "fields", "event_fields": {"type": "/event", "type_form": "{entity}.{type}", "entity": "", "resource": "` + resource + `"}}`
	}
	unchecked := `{"event_layout": "unchecked"}`
	tests := []struct {
		name    string
		patches []string
		layout  string
		places  string // the resource pointer written, when the layout is fields
	}{
		{"one place", []string{fields("/data"), fields("/data")}, judging.EventLayoutFields, "/data"},
		{"unread first", []string{unchecked, fields("/data")}, judging.Unchecked, ""},
		{"unread last", []string{fields("/data"), unchecked}, judging.Unchecked, ""},
		{"two places", []string{fields("/data"), fields("/data/object")}, judging.Unchecked, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var results []ScenarioResult
			for i, p := range tt.patches {
				results = append(results, ScenarioResult{Feature: "webhooks.feature", Name: string(rune('a' + i)),
					Verdicts: judged(assumedCheck("event_layout", "type created", `type ""`, p))})
			}
			var out bytes.Buffer
			if err := WriteProfile(&out, Summary{Results: results, Profile: v.DefaultProfile()}); err != nil {
				t.Fatalf("WriteProfile: %v", err)
			}
			p, err := v.DecodeProfile(out.Bytes())
			if err != nil {
				t.Fatalf("the written profile does not decode: %v\n%s", err, out.String())
			}
			if p.EventLayout != tt.layout {
				t.Errorf("event_layout %q, want %q:\n%s", p.EventLayout, tt.layout, out.String())
			}
			if tt.places != "" && p.EventFields["resource"] != tt.places {
				t.Errorf("event_fields %v, want the resource at %s", p.EventFields, tt.places)
			}
			if tt.layout == judging.Unchecked && strings.Contains(out.String(), "event_fields") {
				t.Errorf("an unchecked layout is written with places:\n%s", out.String())
			}
		})
	}
}
