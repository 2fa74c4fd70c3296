package steps_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/conform-kit/conform/features"
	"github.com/conform-kit/conform/reference"
	"github.com/conform-kit/conform/reference/faults"
	"github.com/conform-kit/conform/steps"
)

// startVariant serves the named conformant variants of the reference, all
// at once, and returns the suite config for them (the ids its client sees).
func startVariant(t *testing.T, names ...string) steps.Config {
	t.Helper()
	ref, h, seeded, err := faults.ServeVariants(reference.Config{ReviewDelay: 20 * time.Millisecond, RetryScale: 0.0001}, names...)
	if err != nil {
		t.Fatalf("faults.ServeVariants(%v): %v", names, err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(func() {
		srv.Close()
		_ = ref.Close()
	})
	cfg := referenceConfig(srv.URL, seeded)
	// A wait ends as soon as its event arrives: a long deadline costs a
	// passing run nothing and keeps a busy machine from turning into WARN.
	cfg.WaitTimeout = 10 * time.Second
	return cfg
}

// warnedFeatures is the embedded features with a WARN in sum.
func warnedFeatures(t *testing.T, sum steps.Summary) fs.FS {
	t.Helper()
	out := fstest.MapFS{}
	for _, r := range sum.Results {
		if r.Outcome != steps.Warn {
			continue
		}
		data, err := fs.ReadFile(features.FS, r.Feature)
		if err != nil {
			t.Fatalf("read feature %s: %v", r.Feature, err)
		}
		out[r.Feature] = &fstest.MapFile{Data: data}
	}
	return out
}

// TestVariantsNeverFail is the kit proving it never fails a server for a
// choice the spec leaves open: every conformant variant of the catalog runs
// the whole suite not strict with 0 FAIL and 0 ERROR, and with its profile
// declared, on the features that warned, with 0 WARN too. The observed
// profile the first run writes, declared in turn, also leaves 0 WARN.
func TestVariantsNeverFail(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the suite three times per variant")
	}
	for _, v := range faults.Variants() {
		t.Run(v.Name, func(t *testing.T) {
			t.Parallel()
			tags := ""
			if raceDetector {
				tags = v.Tags // the race detector slows every run: the features where the choice shows
			}
			neverFails(t, v.Name, v.Choice, v.Profile, tags, startVariant(t, v.Name))
		})
	}
}

// neverFails runs the whole suite (the features of tags, when given)
// against a conformant server not strict: 0 FAIL and 0 ERROR, at least one
// WARN, every WARN naming its profile key and one of them a key of profile;
// then, on the features that warned, with profile declared: 0 WARN; and
// the profile the run wrote, passed back strict: 0 FAIL, 0 WARN, 0 ERROR.
func neverFails(t *testing.T, name, choice, profile, tags string, cfg steps.Config) {
	t.Helper()
	opts := steps.Options{Concurrency: 4, Tags: tags}
	plain, err := steps.Run(context.Background(), cfg, opts)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if plain.Counts[steps.Fail]+plain.Counts[steps.Error] > 0 {
		t.Errorf("%s (%s), no profile: %s; not passing: %s", name, choice, plain.Line(), faultReport(plain))
	}
	if plain.Counts[steps.Warn] == 0 {
		t.Errorf("%s (%s), no profile: no WARN; the variant changes no assumed choice the suite checks", name, choice)
	}
	var declares map[string]json.RawMessage
	if err := json.Unmarshal([]byte(profile), &declares); err != nil {
		t.Fatalf("%s: profile %s: %v", name, profile, err)
	}
	underDeclared := false
	for _, d := range plain.Differences {
		if d.Key == "" || d.Observed == "" {
			t.Errorf("%s: a difference names no key or observed value: %+v", name, d)
		}
		top, _, _ := strings.Cut(d.Key, ".")
		underDeclared = underDeclared || declares[top] != nil
	}
	if !underDeclared {
		t.Errorf("%s: no difference under a key the variant declares (%s): %+v", name, profile, plain.Differences)
	}
	for _, r := range plain.Results {
		for _, c := range r.Judged() {
			if r.Outcome == steps.Warn && (c.Basis.Normative() || c.Key == "") {
				t.Errorf("%s: WARN %q has a check that names no profile key: %+v", name, r.Name, c)
			}
		}
	}
	// The profile changes the verdicts of the features that warned: the
	// runs with a profile judge those.
	opts.FS = warnedFeatures(t, plain)
	declared := cfg
	declared.Profile = json.RawMessage(profile)
	withProfile, err := steps.Run(context.Background(), declared, opts)
	if err != nil {
		t.Fatalf("Run with profile %s: %v", profile, err)
	}
	if withProfile.Counts[steps.Fail]+withProfile.Counts[steps.Warn]+withProfile.Counts[steps.Error] > 0 {
		t.Errorf("%s with profile %s: %s; not passing: %s", name, profile, withProfile.Line(), faultReport(withProfile))
	}
	// Under the race detector (make test) the round trip runs on the
	// features of tags, where the choice shows; without it, on all.
	var written bytes.Buffer
	if err := steps.WriteProfile(&written, plain); err != nil {
		t.Fatalf("WriteProfile: %v", err)
	}
	// Round trip: the written profile, passed back to the same server on
	// the whole suite and strict (an assumed check that fails FAILs, as
	// --strict does), leaves nothing but PASS and the SKIPs of what the
	// server declares it does not have.
	observed := cfg
	observed.Profile = written.Bytes()
	again, err := steps.Run(context.Background(), observed, steps.Options{Concurrency: 4, Tags: tags, Strict: true})
	if err != nil {
		t.Fatalf("Run strict with the written profile %s: %v", written.String(), err)
	}
	if again.Counts[steps.Fail]+again.Counts[steps.Warn]+again.Counts[steps.Error] > 0 {
		t.Errorf("%s strict with the written profile %s: %s; not passing: %s", name, strings.TrimSpace(written.String()), again.Line(), faultReport(again))
	}
	t.Logf("%s: no profile %s; declared %s; written, strict, whole suite %s; written %s", name, plain.Line(), withProfile.Line(), again.Line(), strings.Join(strings.Fields(written.String()), " "))
}

// combined is a server that differs from the reference in many assumed
// choices at once, as a real implementation does. The first variant is
// nearest the reference: those that change what the server decides come
// first, then those that change how it answers (statuses, codes), then the
// request forms it takes, then how its answers look (ids last, nearest the
// client), so that each variant's wrapper sees the answers it rewrites.
var combined = faults.Combined()

// TestCombinedVariantsNeverFail: choices interact (a field checked before
// the media type, ties at a coarser time, a refusal on a route the target
// does not take), so the variants also run together: the whole suite not
// strict gives 0 FAIL and 0 ERROR, and their profiles declared together,
// 0 WARN.
func TestCombinedVariantsNeverFail(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the suite three times")
	}
	if raceDetector {
		// Under the race detector the three runs take a minute and a half;
		// make test runs this test again without it, beside the hostile
		// clients of the reference.
		t.Skip("make test runs it without the race detector")
	}
	t.Parallel() // most of its time is waits for events, which overlap the other variants' runs
	profile := map[string]json.RawMessage{}
	var choices []string
	for _, name := range combined {
		v, ok := faults.VariantByName(name)
		if !ok {
			t.Fatalf("no variant %s", name)
		}
		var declares map[string]json.RawMessage
		if err := json.Unmarshal([]byte(v.Profile), &declares); err != nil {
			t.Fatalf("%s: profile %s: %v", name, v.Profile, err)
		}
		for k, val := range declares {
			if k == "refusals" {
				val = mergeKinds(t, name, profile[k], val)
			} else if _, twice := profile[k]; twice {
				t.Fatalf("%s declares %s, which another variant of the combination declares too", name, k)
			}
			profile[k] = val
		}
		choices = append(choices, v.Choice)
	}
	data, err := json.Marshal(profile)
	if err != nil {
		t.Fatal(err)
	}
	neverFails(t, strings.Join(combined, "+"), strings.Join(choices, "; "), string(data), "", startVariant(t, combined...))
}

// mergeKinds merges the refusals of a variant's profile into those of the
// combination; a kind two variants declare is refused.
func mergeKinds(t *testing.T, name string, into, kinds json.RawMessage) json.RawMessage {
	t.Helper()
	all := map[string]json.RawMessage{}
	if into != nil {
		if err := json.Unmarshal(into, &all); err != nil {
			t.Fatalf("refusals %s: %v", into, err)
		}
	}
	var add map[string]json.RawMessage
	if err := json.Unmarshal(kinds, &add); err != nil {
		t.Fatalf("%s: refusals %s: %v", name, kinds, err)
	}
	for kind, form := range add {
		if _, twice := all[kind]; twice {
			t.Fatalf("%s declares refusals.%s, which another variant of the combination declares too", name, kind)
		}
		all[kind] = form
	}
	out, err := json.Marshal(all)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
