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

// startVariant serves the named conformant variant of the reference and
// returns the suite config for it (the ids its client sees).
func startVariant(t *testing.T, name string) steps.Config {
	t.Helper()
	ref, h, seeded, err := faults.ServeVariant(reference.Config{ReviewDelay: 20 * time.Millisecond, RetryScale: 0.0001}, name)
	if err != nil {
		t.Fatalf("faults.ServeVariant(%s): %v", name, err)
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
			cfg := startVariant(t, v.Name)
			opts := steps.Options{Concurrency: 4}
			if raceDetector {
				opts.Tags = v.Tags // the race detector slows every run: the features where the choice shows
			}
			plain, err := steps.Run(context.Background(), cfg, opts)
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if plain.Counts[steps.Fail]+plain.Counts[steps.Error] > 0 {
				t.Errorf("%s (%s), no profile: %s; not passing: %s", v.Name, v.Choice, plain.Line(), faultReport(plain))
			}
			if plain.Counts[steps.Warn] == 0 {
				t.Errorf("%s (%s), no profile: no WARN; the variant changes no assumed choice the suite checks", v.Name, v.Choice)
			}
			var declares map[string]json.RawMessage
			if err := json.Unmarshal([]byte(v.Profile), &declares); err != nil {
				t.Fatalf("%s: profile %s: %v", v.Name, v.Profile, err)
			}
			underDeclared := false
			for _, d := range plain.Differences {
				if d.Key == "" || d.Observed == "" {
					t.Errorf("%s: a difference names no key or observed value: %+v", v.Name, d)
				}
				top, _, _ := strings.Cut(d.Key, ".")
				underDeclared = underDeclared || declares[top] != nil
			}
			if !underDeclared {
				t.Errorf("%s: no difference under a key the variant declares (%s): %+v", v.Name, v.Profile, plain.Differences)
			}
			for _, r := range plain.Results {
				for _, c := range r.Judged {
					if r.Outcome == steps.Warn && (c.Basis.Normative() || c.Key == "") {
						t.Errorf("%s: WARN %q has a check that names no profile key: %+v", v.Name, r.Name, c)
					}
				}
			}
			// The profile changes the verdicts of the features that warned:
			// the runs with a profile judge those.
			opts.FS = warnedFeatures(t, plain)
			declared := cfg
			declared.Profile = json.RawMessage(v.Profile)
			withProfile, err := steps.Run(context.Background(), declared, opts)
			if err != nil {
				t.Fatalf("Run with profile %s: %v", v.Profile, err)
			}
			if withProfile.Counts[steps.Fail]+withProfile.Counts[steps.Warn]+withProfile.Counts[steps.Error] > 0 {
				t.Errorf("%s with profile %s: %s; not passing: %s", v.Name, v.Profile, withProfile.Line(), faultReport(withProfile))
			}
			if raceDetector {
				return
			}
			var written bytes.Buffer
			if err := steps.WriteProfile(&written, plain); err != nil {
				t.Fatalf("WriteProfile: %v", err)
			}
			observed := cfg
			observed.Profile = written.Bytes()
			again, err := steps.Run(context.Background(), observed, opts)
			if err != nil {
				t.Fatalf("Run with the written profile %s: %v", written.String(), err)
			}
			if again.Counts[steps.Fail]+again.Counts[steps.Warn]+again.Counts[steps.Error] > 0 {
				t.Errorf("%s with the written profile %s: %s; not passing: %s", v.Name, strings.TrimSpace(written.String()), again.Line(), faultReport(again))
			}
			t.Logf("%s: no profile %s; declared %s; written %s", v.Name, plain.Line(), withProfile.Line(), again.Line())
		})
	}
}
