package attest

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/conform-kit/conform/features"
	"github.com/conform-kit/conform/steps/report"
)

// newKey makes a key pair and writes the public key to dir/NAME.pub.
func newKey(t *testing.T, dir, name string) (*ecdsa.PrivateKey, string) {
	t.Helper()
	private, public, err := GenerateKey()
	require.NoError(t, err)
	key, err := ParsePrivateKey(private)
	require.NoError(t, err)
	pubFile := filepath.Join(dir, name+".pub")
	require.NoError(t, os.WriteFile(pubFile, public, 0o644))
	return key, pubFile
}

// sampleRun is a small run with one scenario of each outcome given.
func sampleRun(strict bool, outcomes ...report.Outcome) report.Run {
	run := report.Run{Tool: "conform", Target: "https://sandbox.example/", Seed: 7, Strict: strict,
		Started: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	for i, o := range outcomes {
		run.Scenarios = append(run.Scenarios, report.Scenario{Feature: "transfers.feature", Name: "scenario " + string(o), Line: 10 + i, Outcome: o})
	}
	run.Recount()
	return run
}

// signedRun writes a results file and a JUnit file of run into dir, signs
// them and writes the bundle to dir/conform.sigstore.json.
func signedRun(t *testing.T, dir string, key *ecdsa.PrivateKey, run report.Run) (bundle string, reports []string) {
	t.Helper()
	reports = []string{filepath.Join(dir, "results.json"), filepath.Join(dir, "junit", "conform.xml")}
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "junit"), 0o755))
	for i, write := range []func(*bytes.Buffer) error{
		func(b *bytes.Buffer) error { return report.WriteResults(b, run) },
		func(b *bytes.Buffer) error { return report.WriteJUnit(b, run) },
	} {
		var b bytes.Buffer
		require.NoError(t, write(&b))
		require.NoError(t, os.WriteFile(reports[i], b.Bytes(), 0o644))
	}
	st, err := Build(Input{Run: run, RunID: "run-1", Reports: reports, Dir: dir, Profile: []byte(`{"create_status":200}`),
		Config: []byte(`{"target":"https://sandbox.example/"}`), Version: "v1.2.3"})
	require.NoError(t, err)
	data, err := Sign(st, key)
	require.NoError(t, err)
	bundle = filepath.Join(dir, "conform.sigstore.json")
	require.NoError(t, os.WriteFile(bundle, data, 0o644))
	return bundle, reports
}

func TestResultOfARun(t *testing.T) {
	tests := []struct {
		outcomes []report.Outcome
		strict   bool
		want     string
	}{
		{[]report.Outcome{report.Pass, report.Skip}, false, Passed},
		{[]report.Outcome{report.Pass, report.Warn}, false, Warned},
		{[]report.Outcome{report.Pass, report.Warn}, true, Failed},
		{[]report.Outcome{report.Pass, report.Fail}, false, Failed},
		{[]report.Outcome{report.Pass, report.Error}, false, Failed},
		{[]report.Outcome{report.Warn, report.Error}, false, Failed},
		{nil, false, Passed},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, Result(sampleRun(tt.strict, tt.outcomes...)), "%v strict=%v", tt.outcomes, tt.strict)
	}
}

func TestBuildNamesEverything(t *testing.T) {
	dir := t.TempDir()
	results := filepath.Join(dir, "out", "results.json")
	require.NoError(t, os.MkdirAll(filepath.Dir(results), 0o755))
	require.NoError(t, os.WriteFile(results, []byte("{}\n"), 0o644))
	extra := filepath.Join(dir, "extra.feature")
	extraFile := FeatureFile{Name: "mine/extra.feature", Path: extra, SHA256: digest([]byte("Feature: extra\n"))["sha256"]}
	run := sampleRun(false, report.Pass, report.Warn, report.Fail, report.Skip, report.Error)
	st, err := Build(Input{Run: run, RunID: "run-9", Reports: []string{results, results}, Dir: dir, Profile: []byte("{}"),
		Config: []byte(`{"x":1}`), FeatureFiles: []FeatureFile{extraFile}, Version: "v9"})
	require.NoError(t, err)

	assert.Equal(t, StatementType, st.Type)
	assert.Equal(t, PredicateType, st.PredicateType)
	require.Len(t, st.Subject, 1, "a report named twice is one subject")
	assert.Equal(t, "out/results.json", st.Subject[0].Name)
	assert.Equal(t, "ca3d163bab055381827226140568f3bef7eaac187cebd76878e0b63e9e442356", st.Subject[0].Digest["sha256"])
	p := st.Predicate
	assert.Equal(t, Failed, p.Result)
	assert.Equal(t, []string{"transfers.feature:10 scenario PASS"}, p.PassedTests)
	assert.Equal(t, []string{"transfers.feature:11 scenario WARN"}, p.WarnedTests)
	assert.Equal(t, []string{"transfers.feature:12 scenario FAIL", "transfers.feature:14 scenario ERROR"}, p.FailedTests)
	assert.Equal(t, []string{"transfers.feature:13 scenario SKIP"}, p.Conform.SkippedTests)
	assert.Equal(t, []string{"transfers.feature:14 scenario ERROR"}, p.Conform.ErrorTests)
	assert.Equal(t, RunInfo{Target: "https://sandbox.example/", RunID: "run-9", Seed: 7, Started: "2026-01-02T03:04:05.000Z",
		SkippedTests: p.Conform.SkippedTests, ErrorTests: p.Conform.ErrorTests}, p.Conform)

	byName := map[string]ResourceDescriptor{}
	for _, c := range p.Configuration {
		byName[c.Name] = c
	}
	embedded, n, err := FeaturesDigest(features.FS)
	require.NoError(t, err)
	assert.Greater(t, n, 10)
	assert.Equal(t, embedded, byName["features"].Digest["sha256"])
	assert.Equal(t, "v9", byName["conform"].Annotations["version"])
	assert.Equal(t, extra, byName["features/mine/extra.feature"].URI)
	assert.Equal(t, digest([]byte("Feature: extra\n")), byName["features/mine/extra.feature"].Digest)
	assert.Equal(t, digest([]byte("{}")), byName["profile"].Digest)
	assert.Equal(t, []byte(`{"x":1}`), byName["config"].Content)

	_, err = Build(Input{Run: run, Dir: dir})
	assert.ErrorContains(t, err, "no report file")
}

// TestFeaturesDigestIsTheListingDigest: the features digest is the sha256
// of "sha256sum *.feature", so anyone can recompute it from the folder.
func TestFeaturesDigestIsTheListingDigest(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "b.feature"), []byte("B"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.feature"), []byte("A"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "README.md"), []byte("not a feature"), 0o644))
	got, n, err := FeaturesDigest(os.DirFS(dir))
	require.NoError(t, err)
	listing := "559aead08264d5795d3909718cdd05abd49572e84fe55590eef31a88a08fdffd  a.feature\n" +
		"df7e70e5021544f4834bbee64a9e3789febc4be81470df629cad6ddb03320a5c  b.feature\n"
	assert.Equal(t, 2, n)
	assert.Equal(t, digest([]byte(listing))["sha256"], got)
}

func TestVerifyAcceptsWhatSignWrote(t *testing.T) {
	dir := t.TempDir()
	key, pubFile := newKey(t, dir, "k")
	bundle, _ := signedRun(t, dir, key, sampleRun(false, report.Pass, report.Warn))
	data, err := os.ReadFile(bundle)
	require.NoError(t, err)
	pub, err := LoadPublicKey(pubFile)
	require.NoError(t, err)

	st, err := Verify(data, pub)
	require.NoError(t, err)
	assert.Equal(t, Warned, st.Predicate.Result)
	assert.Equal(t, []string{"results.json", "junit/conform.xml"}, []string{st.Subject[0].Name, st.Subject[1].Name})
	require.NoError(t, CheckReports(st, dir))

	var raw map[string]any
	require.NoError(t, json.Unmarshal(data, &raw))
	assert.Equal(t, BundleMediaType, raw["mediaType"])
	env := raw["dsseEnvelope"].(map[string]any)
	assert.Equal(t, "", env["signatures"].([]any)[0].(map[string]any)["keyid"], "a keyid verifiers do not know makes them skip the signature")
	assert.Equal(t, Hint(pub), raw["verificationMaterial"].(map[string]any)["publicKey"].(map[string]any)["hint"])

	// Re-serialised (indented, members reordered, the empty keyid dropped
	// as protojson does), the bundle still verifies: the signature covers
	// the payload's bytes, not the bundle's.
	sig := env["signatures"].([]any)[0].(map[string]any)
	delete(sig, "keyid")
	again, err := json.MarshalIndent(raw, "", "\t")
	require.NoError(t, err)
	_, err = Verify(again, pub)
	require.NoError(t, err)
}

func TestVerifyRefuses(t *testing.T) {
	dir := t.TempDir()
	key, pubFile := newKey(t, dir, "k")
	other, otherPub := newKey(t, dir, "other")
	bundle, _ := signedRun(t, dir, key, sampleRun(false, report.Pass))
	data, err := os.ReadFile(bundle)
	require.NoError(t, err)
	pub, err := LoadPublicKey(pubFile)
	require.NoError(t, err)
	otherKey, err := LoadPublicKey(otherPub)
	require.NoError(t, err)

	var b Bundle
	require.NoError(t, json.Unmarshal(data, &b))
	payload, err := base64.StdEncoding.DecodeString(b.DSSEEnvelope.Payload)
	require.NoError(t, err)
	edit := func(f func(*Bundle)) []byte {
		c := b
		c.DSSEEnvelope.Signatures = append([]Signature(nil), b.DSSEEnvelope.Signatures...)
		f(&c)
		out, err := json.Marshal(c)
		require.NoError(t, err)
		return out
	}
	otherSigned, err := Sign(Statement{Type: StatementType, PredicateType: PredicateType, Subject: []Subject{{Name: "r", Digest: digest(nil)}}}, other)
	require.NoError(t, err)

	tests := []struct {
		name string
		data []byte
		pub  *ecdsa.PublicKey
		want string
	}{
		{"truncated", data[:len(data)/2], pub, "not a Sigstore bundle: unexpected EOF"},
		{"empty", nil, pub, "not a Sigstore bundle"},
		{"signed by another key", otherSigned, pub, "signed by another key"},
		{"checked with another key", data, otherKey, "signed by another key"},
		{"another key's signature under this key's hint", edit(func(c *Bundle) {
			var ob Bundle
			require.NoError(t, json.Unmarshal(otherSigned, &ob))
			c.DSSEEnvelope = ob.DSSEEnvelope
		}), pub, "the signature does not verify"},
		{"payload edited", edit(func(c *Bundle) {
			c.DSSEEnvelope.Payload = base64.StdEncoding.EncodeToString(bytes.Replace(payload, []byte(`"PASSED"`), []byte(`"PASSED" `), 1))
		}), pub, "the signature does not verify"},
		{"payload type", edit(func(c *Bundle) { c.DSSEEnvelope.PayloadType = "application/json" }), pub, "payload type"},
		{"media type", edit(func(c *Bundle) { c.MediaType = "application/vnd.dev.sigstore.bundle.v0.2+json" }), pub, "media type"},
		{"keyid", edit(func(c *Bundle) { c.DSSEEnvelope.Signatures[0].KeyID = "SHA256:abc" }), pub, "keyid"},
		{"two signatures", edit(func(c *Bundle) {
			c.DSSEEnvelope.Signatures = append(c.DSSEEnvelope.Signatures, c.DSSEEnvelope.Signatures[0])
		}), pub, "2 signatures"},
		{"member spelt in another case", bytes.Replace(data, []byte(`"hint"`), []byte(`"Hint"`), 1), pub, `unknown member "verificationMaterial.publicKey.Hint"`},
		{"unknown member", bytes.Replace(data, []byte(`{"mediaType"`), []byte(`{"x":1,"mediaType"`), 1), pub, "unknown field"},
		{"second value", append(append([]byte{}, data...), data...), pub, "data after the JSON value"},
		{"unsigned statement", edit(func(c *Bundle) {
			st := Statement{Type: StatementType, PredicateType: PredicateType}
			p, _ := st.Marshal()
			c.DSSEEnvelope.Payload = base64.StdEncoding.EncodeToString(p)
		}), pub, "the signature does not verify"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Verify(tt.data, tt.pub)
			require.Error(t, err)
			assert.True(t, errors.Is(err, ErrRefused))
			assert.Contains(t, err.Error(), tt.want)
			assert.NotContains(t, err.Error(), "\n", "one line")
		})
	}
}

func TestCheckReportsRefusesAnEditedOrMissingReport(t *testing.T) {
	dir := t.TempDir()
	key, pubFile := newKey(t, dir, "k")
	bundle, reports := signedRun(t, dir, key, sampleRun(false, report.Pass))
	data, err := os.ReadFile(bundle)
	require.NoError(t, err)
	pub, err := LoadPublicKey(pubFile)
	require.NoError(t, err)
	st, err := Verify(data, pub)
	require.NoError(t, err)

	moved := t.TempDir()
	require.ErrorContains(t, CheckReports(st, moved), "report results.json is missing")
	for _, r := range reports {
		rel, _ := filepath.Rel(dir, r)
		require.NoError(t, os.MkdirAll(filepath.Join(moved, filepath.Dir(rel)), 0o755))
		b, err := os.ReadFile(r)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(moved, rel), b, 0o644))
	}
	require.NoError(t, CheckReports(st, moved), "--reports DIR: the reports copied elsewhere")

	junit, err := os.ReadFile(reports[1])
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(reports[1], bytes.Replace(junit, []byte("failures=\"0\""), []byte("failures=\"1\""), 1), 0o644))
	err = CheckReports(st, dir)
	require.ErrorIs(t, err, ErrRefused)
	assert.Contains(t, err.Error(), "report junit/conform.xml was changed after signing")

	for _, name := range []string{"/etc/passwd", `..\x`, ""} {
		bad := Statement{Subject: []Subject{{Name: name, Digest: st.Subject[0].Digest}}}
		assert.ErrorContains(t, CheckReports(bad, dir), "not a relative path", name)
	}
	assert.ErrorContains(t, CheckReports(Statement{}, dir), "covers no report")
	assert.ErrorContains(t, CheckReports(Statement{Subject: []Subject{{Name: "results.json", Digest: map[string]string{"sha1": "x"}}}}, dir), "no sha256")
}

func TestPolicy(t *testing.T) {
	statement := func(strict bool, outcomes ...report.Outcome) Statement {
		dir := t.TempDir()
		f := filepath.Join(dir, "r.json")
		require.NoError(t, os.WriteFile(f, []byte("{}"), 0o644))
		st, err := Build(Input{Run: sampleRun(strict, outcomes...), Reports: []string{f}, Dir: dir})
		require.NoError(t, err)
		return st
	}
	passed := statement(false, report.Pass, report.Pass, report.Skip)
	warned := statement(false, report.Pass, report.Warn)
	strictWarned := statement(true, report.Pass, report.Warn)
	failed := statement(false, report.Pass, report.Error)
	lying := statement(false, report.Pass, report.Fail)
	lying.Predicate.Result = Passed
	tests := []struct {
		name   string
		st     Statement
		policy Policy
		want   string // "" accepted
	}{
		{"passed, pass", passed, Policy{Require: RequirePass}, ""},
		{"passed, strict", passed, Policy{Require: RequireStrict}, ""},
		{"warned, pass", warned, Policy{Require: RequirePass}, ""},
		{"warned, strict", warned, Policy{Require: RequireStrict}, "the run WARNED (0 failed, 1 warned tests); --require strict"},
		{"strict run warned, pass", strictWarned, Policy{Require: RequirePass}, "the run FAILED (0 failed tests, 1 WARN under --strict)"},
		{"failed, pass", failed, Policy{Require: RequirePass}, "the run FAILED (1 failed tests)"},
		{"result and lists disagree", lying, Policy{Require: RequirePass}, "result PASSED, yet 1 failed tests"},
		{"enough scenarios", passed, Policy{Require: RequirePass, MinScenarios: 2}, ""},
		{"skips do not count", passed, Policy{Require: RequirePass, MinScenarios: 3}, "2 scenarios judged (1 skipped), --min-scenarios wants 3"},
		{"target, trailing slash", passed, Policy{Require: RequirePass, Target: "https://sandbox.example"}, ""},
		{"another target", passed, Policy{Require: RequirePass, Target: "https://prod.example"}, "the run tested https://sandbox.example/, --target wants https://prod.example"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.policy.Check(tt.st)
			if tt.want == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, ErrRefused)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

func TestLoadSigningKey(t *testing.T) {
	dir := t.TempDir()
	private, _, err := GenerateKey()
	require.NoError(t, err)
	file := filepath.Join(dir, "k.key")
	require.NoError(t, os.WriteFile(file, private, 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "empty.key"), nil, 0o600))
	env := map[string]string{"KEY": string(private), "NOTKEY": "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }

	fromFile, err := LoadSigningKey(file, lookup)
	require.NoError(t, err)
	fromEnv, err := LoadSigningKey("env:KEY", lookup)
	require.NoError(t, err)
	assert.True(t, fromFile.Equal(fromEnv))

	for spec, want := range map[string]string{
		"env:MISSING":                   "environment variable MISSING is not set",
		"env:NOTKEY":                    `a PEM "PUBLIC KEY" block`,
		filepath.Join(dir, "none.key"):  "no such file",
		filepath.Join(dir, "empty.key"): "no PEM block",
	} {
		_, err := LoadSigningKey(spec, lookup)
		require.ErrorIs(t, err, ErrKey, spec)
		assert.Contains(t, err.Error(), want)
		assert.NotContains(t, err.Error(), "PRIVATE KEY-----")
	}
	_, err = ParsePublicKey(private)
	assert.ErrorIs(t, err, ErrKey)
	assert.False(t, strings.Contains(string(private), "ENCRYPTED"))
}

// TestCheckReportsLooksUnderTheReportsFolder: a statement names a report
// relative to the attestation's folder ("r/results.json" when the run in r/
// wrote ../bundle.json); --reports r finds it at r/results.json, still by
// its digest, and a missing one names every path looked at.
func TestCheckReportsLooksUnderTheReportsFolder(t *testing.T) {
	content := []byte(`{"tool":"conform"}`)
	sum := sha256.Sum256(content)
	st := Statement{Subject: []Subject{{Name: "r/results.json", Digest: map[string]string{"sha256": hex.EncodeToString(sum[:])}}}}
	tests := []struct {
		name    string
		files   map[string][]byte // written under the temporary root
		dir     string            // --reports, under the root
		missing []string          // the paths looked at, when missing
		changed bool
	}{
		{name: "the attestation's folder", files: map[string][]byte{"r/results.json": content}, dir: "."},
		{name: "the reports' own folder", files: map[string][]byte{"r/results.json": content}, dir: "r"},
		{name: "copied flat", files: map[string][]byte{"copy/results.json": content}, dir: "copy"},
		{name: "changed in the reports' folder", files: map[string][]byte{"r/results.json": []byte(`{}`)}, dir: "r", changed: true},
		{name: "the first found is the one judged", files: map[string][]byte{"r/r/results.json": []byte(`{}`), "r/results.json": content}, dir: "r", changed: true},
		{name: "missing", files: map[string][]byte{}, dir: "r", missing: []string{"r/r/results.json", "r/results.json"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			for name, data := range tt.files {
				p := filepath.Join(root, filepath.FromSlash(name))
				require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
				require.NoError(t, os.WriteFile(p, data, 0o644))
			}
			err := CheckReports(st, filepath.Join(root, tt.dir))
			switch {
			case tt.missing != nil:
				var missing *MissingReportError
				require.ErrorAs(t, err, &missing)
				assert.ErrorIs(t, err, ErrRefused)
				assert.Equal(t, "r/results.json", missing.Name)
				want := make([]string, len(tt.missing))
				for i, m := range tt.missing {
					want[i] = filepath.Join(root, filepath.FromSlash(m))
				}
				assert.Equal(t, want, missing.Tried)
				assert.Contains(t, err.Error(), "no file at "+want[0]+" or "+want[1])
			case tt.changed:
				require.ErrorIs(t, err, ErrRefused)
				assert.Contains(t, err.Error(), "report r/results.json was changed after signing")
			default:
				require.NoError(t, err)
			}
		})
	}
}
