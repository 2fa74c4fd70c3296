package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/conform-kit/conform/steps/attest"
)

// keygen writes a key pair under dir and returns the private and public key files.
func keygen(t *testing.T, dir, name string) (string, string) {
	t.Helper()
	prefix := filepath.Join(dir, name)
	code, out, errOut := run(t, "", "keygen", "--out", prefix)
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "key hint ")
	return prefix + ".key", prefix + ".pub"
}

// statementOf reads the statement of a bundle without checking it (tests only).
func statementOf(t *testing.T, bundle string) attest.Statement {
	t.Helper()
	data, err := os.ReadFile(bundle)
	require.NoError(t, err)
	var b attest.Bundle
	require.NoError(t, json.Unmarshal(data, &b))
	payload, err := base64.StdEncoding.DecodeString(b.DSSEEnvelope.Payload)
	require.NoError(t, err)
	var st attest.Statement
	require.NoError(t, json.Unmarshal(payload, &st))
	return st
}

// refusedLine asserts a refusal: exit 1 and one line on stderr holding want.
func refusedLine(t *testing.T, code int, out, errOut, want string) {
	t.Helper()
	assert.Equal(t, exitFailed, code, "stdout: %s stderr: %s", out, errOut)
	assert.Empty(t, out)
	assert.Equal(t, 1, strings.Count(errOut, "\n"), "one line: %q", errOut)
	assert.Contains(t, errOut, want)
}

func TestKeygen(t *testing.T) {
	dir := t.TempDir()
	key, pub := keygen(t, dir, "ci")
	for file, mode := range map[string]os.FileMode{key: 0o600, pub: 0o644} {
		info, err := os.Stat(file)
		require.NoError(t, err)
		assert.Equal(t, mode, info.Mode().Perm(), file)
	}
	private, err := os.ReadFile(key)
	require.NoError(t, err)
	k, err := attest.ParsePrivateKey(private)
	require.NoError(t, err)
	p, err := attest.LoadPublicKey(pub)
	require.NoError(t, err)
	assert.True(t, k.PublicKey.Equal(p))

	code, _, errOut := run(t, "", "keygen", "--out", filepath.Join(dir, "ci"))
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errOut, "ci.key exists; --force overwrites it")
	again, err := os.ReadFile(key)
	require.NoError(t, err)
	assert.Equal(t, private, again, "the key is kept")

	code, _, errOut = run(t, "", "keygen", "--out", filepath.Join(dir, "ci"), "--force")
	require.Equal(t, exitOK, code, errOut)
	again, err = os.ReadFile(key)
	require.NoError(t, err)
	assert.NotEqual(t, private, again)
}

// TestRunAttestAndVerify: a run against the bundled reference signs its
// reports; conform verify accepts them as written and refuses an edited
// report, another key, a truncated bundle, a policy the run misses.
func TestRunAttestAndVerify(t *testing.T) {
	dir := t.TempDir()
	key, pub := keygen(t, dir, "ci")
	_, otherPub := keygen(t, dir, "other")
	out := filepath.Join(dir, "out")
	require.NoError(t, os.MkdirAll(filepath.Join(out, "html"), 0o755))
	bundle := filepath.Join(out, "conform.sigstore.json")
	private, err := os.ReadFile(key)
	require.NoError(t, err)
	t.Setenv("CONFORM_TEST_SIGNING_KEY", string(private))
	code, stdout, errOut := run(t, "", "run", "--tags", "@authentication", "--seed", "0",
		"--format", "json:"+filepath.Join(out, "results.json")+",html:"+filepath.Join(out, "html", "conform.html"),
		"--attest", bundle, "--signing-key", "env:CONFORM_TEST_SIGNING_KEY")
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, errOut, "conform run: PASSED results signed (2 reports) in "+bundle)
	assert.NotContains(t, stdout+errOut, "-----BEGIN", "the key is never printed")

	st := statementOf(t, bundle)
	assert.Equal(t, []string{"results.json", "html/conform.html"}, []string{st.Subject[0].Name, st.Subject[1].Name})
	assert.Equal(t, attest.Passed, st.Predicate.Result)
	assert.True(t, st.Predicate.Conform.Strict, "the bundled reference is run strict")
	assert.NotEmpty(t, st.Predicate.PassedTests)
	assert.True(t, strings.HasPrefix(st.Predicate.Conform.RunID, "run-"))
	assert.True(t, strings.HasPrefix(st.Predicate.Conform.Target, "http://127.0.0.1:"))
	var config []byte
	for _, c := range st.Predicate.Configuration {
		if c.Name == "config" {
			config = c.Content
		}
	}
	require.NotEmpty(t, config)
	assert.Contains(t, string(config), `"password":""`)
	assert.NotContains(t, string(config), `"password":"p`)

	code, stdout, errOut = run(t, "", "verify", "--attestation", bundle, "--key", pub, "--require", "strict", "--min-scenarios", "3", "--target", st.Predicate.Conform.Target)
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, stdout, "conform verify: accepted: PASSED run of "+st.Predicate.Conform.Target)

	t.Run("another key", func(t *testing.T) {
		code, stdout, errOut := run(t, "", "verify", "--attestation", bundle, "--key", otherPub)
		refusedLine(t, code, stdout, errOut, "refused: signed by another key")
	})
	t.Run("truncated", func(t *testing.T) {
		data, err := os.ReadFile(bundle)
		require.NoError(t, err)
		cut := filepath.Join(out, "cut.sigstore.json")
		require.NoError(t, os.WriteFile(cut, data[:len(data)/3], 0o644))
		code, stdout, errOut := run(t, "", "verify", "--attestation", cut, "--key", pub)
		refusedLine(t, code, stdout, errOut, "refused: not a Sigstore bundle: unexpected EOF")
	})
	t.Run("policy", func(t *testing.T) {
		code, stdout, errOut := run(t, "", "verify", "--attestation", bundle, "--key", pub, "--min-scenarios", "100000")
		refusedLine(t, code, stdout, errOut, "--min-scenarios wants 100000")
		code, stdout, errOut = run(t, "", "verify", "--attestation", bundle, "--key", pub, "--target", "https://prod.example")
		refusedLine(t, code, stdout, errOut, "--target wants https://prod.example")
	})
	t.Run("reports elsewhere", func(t *testing.T) {
		code, stdout, errOut := run(t, "", "verify", "--attestation", bundle, "--key", pub, "--reports", dir)
		refusedLine(t, code, stdout, errOut, "refused: report results.json is missing")
	})
	t.Run("report edited after signing", func(t *testing.T) {
		html := filepath.Join(out, "html", "conform.html")
		data, err := os.ReadFile(html)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(html, []byte(strings.Replace(string(data), "PASS", "PASS ", 1)), 0o644))
		code, stdout, errOut := run(t, "", "verify", "--attestation", bundle, "--key", pub)
		refusedLine(t, code, stdout, errOut, "refused: report html/conform.html was changed after signing")
	})
}

// TestVerifyStrictRefusesAWarnRun: a live target with an assumed choice of
// its own WARNs; the run (not --strict) signs WARNED, which --require pass
// accepts and --require strict refuses.
func TestVerifyStrictRefusesAWarnRun(t *testing.T) {
	_, cfg := serveReference(t, []string{"unauthenticated-answered-403"}, nil, true)
	dir := t.TempDir()
	key, pub := keygen(t, dir, "ci")
	bundle := filepath.Join(dir, "conform.sigstore.json")
	code, _, errOut := run(t, "", "run", "--config", cfg, "--tags", "@authentication", "--attest", bundle, "--signing-key", key)
	require.Equal(t, exitOK, code, errOut)
	st := statementOf(t, bundle)
	assert.Equal(t, attest.Warned, st.Predicate.Result)
	assert.NotEmpty(t, st.Predicate.WarnedTests)
	require.Len(t, st.Subject, 1, "no report asked for: the results file beside the attestation")
	assert.Equal(t, "conform.results.json", st.Subject[0].Name)
	_, err := os.Stat(filepath.Join(dir, "conform.results.json"))
	require.NoError(t, err)

	code, stdout, errOut := run(t, "", "verify", "--attestation", bundle, "--key", pub, "--require", "pass")
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, stdout, "accepted: WARNED")
	code, stdout, errOut = run(t, "", "verify", "--attestation", bundle, "--key", pub, "--require", "strict")
	refusedLine(t, code, stdout, errOut, "refused: the run WARNED")
}

func TestExploreAttests(t *testing.T) {
	dir := t.TempDir()
	key, pub := keygen(t, dir, "ci")
	bundle := filepath.Join(dir, "explore.sigstore.json")
	code, _, errOut := run(t, "", "explore", "--seed", "7", "--budget", "60", "--ops", "disputes.*", "--attest", bundle, "--signing-key", key)
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, errOut, "conform explore: PASSED results signed (1 report) in "+bundle)
	st := statementOf(t, bundle)
	assert.Equal(t, "s7", st.Predicate.Conform.RunID)
	code, _, errOut = run(t, "", "verify", "--attestation", bundle, "--key", pub)
	require.Equal(t, exitOK, code, errOut)
}

func TestAttestAndVerifyUsage(t *testing.T) {
	dir := t.TempDir()
	key, pub := keygen(t, dir, "ci")
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"run", "--attest", filepath.Join(dir, "a.json")}, "--attest needs --signing-key"},
		{[]string{"run", "--signing-key", key}, "--signing-key needs --attest FILE"},
		{[]string{"explore", "--attest", filepath.Join(dir, "a.json"), "--signing-key", "env:CONFORM_TEST_NO_SUCH_VAR"}, "environment variable CONFORM_TEST_NO_SUCH_VAR is not set"},
		{[]string{"run", "--attest", filepath.Join(dir, "a.json"), "--signing-key", pub}, `a PEM "PUBLIC KEY" block`},
		{[]string{"run", "--attest", filepath.Join(pub, "a.json"), "--signing-key", key}, "--attest: create the folder of"},
		{[]string{"verify", "--key", pub}, "--attestation FILE and --key PUBKEY are required"},
		{[]string{"verify", "--attestation", filepath.Join(dir, "a.json"), "--key", pub, "--require", "most"}, `--require "most": want pass or strict`},
		{[]string{"verify", "--attestation", filepath.Join(dir, "a.json"), "--key", key}, "no PEM PUBLIC KEY block"},
		{[]string{"verify", "--attestation", filepath.Join(dir, "none.json"), "--key", pub}, "no such file"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args[:2], " "), func(t *testing.T) {
			code, _, errOut := run(t, "", tt.args...)
			assert.Equal(t, exitUsage, code, errOut)
			assert.Contains(t, errOut, tt.want)
			assert.NotContains(t, errOut, "-----BEGIN")
		})
	}
}

func TestResultsBeside(t *testing.T) {
	for in, want := range map[string]string{
		"out/conform.sigstore.json": "out/conform.results.json",
		"conform.intoto.jsonl":      "conform.results.json",
		"x/conform.results.json":    "x/conform-results.json",
		".hidden":                   "conform.results.json",
	} {
		assert.Equal(t, filepath.FromSlash(want), resultsBeside(filepath.FromSlash(in)), in)
	}
}

// TestVerifyRefusesEveryMutant: conform verify, the command itself, refuses
// a signed run's bundle with any one byte flipped, and the run with any one
// byte of a report flipped; exit 1 and one line each.
func TestVerifyRefusesEveryMutant(t *testing.T) {
	dir := t.TempDir()
	key, pub := keygen(t, dir, "ci")
	bundle, junit := filepath.Join(dir, "conform.sigstore.json"), filepath.Join(dir, "conform.xml")
	code, _, errOut := run(t, "", "run", "--tags", "@spec-2.1", "--seed", "0",
		"--format", "junit:"+junit, "--attest", bundle, "--signing-key", key)
	require.Equal(t, exitOK, code, errOut)
	verify := func() (int, string, string) { return run(t, "", "verify", "--attestation", bundle, "--key", pub) }
	code, _, errOut = verify()
	require.Equal(t, exitOK, code, "the original: %s", errOut)

	mutants := 0
	for _, file := range []string{bundle, junit} {
		original, err := os.ReadFile(file)
		require.NoError(t, err)
		for i := range original {
			m := bytes.Clone(original)
			m[i] ^= 0xff
			require.NoError(t, os.WriteFile(file, m, 0o644))
			code, out, errOut := verify()
			if code != exitFailed || out != "" || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, "refused: ") {
				t.Fatalf("%s byte %d flipped: exit %d, stdout %q, stderr %q; want exit 1 and one line", filepath.Base(file), i, code, out, errOut)
			}
			mutants++
		}
		require.NoError(t, os.WriteFile(file, original, 0o644))
	}
	require.GreaterOrEqual(t, mutants, 1000)
	code, _, errOut = verify()
	require.Equal(t, exitOK, code, "the original again: %s", errOut)
	t.Logf("conform verify refused all %d mutants", mutants)
}

// TestAttestNamesFeaturesFromDisk: a run with --features-only signs a
// statement naming the user's feature file with the digest of its bytes,
// and not the embedded features it did not run.
func TestAttestNamesFeaturesFromDisk(t *testing.T) {
	dir := t.TempDir()
	key, pub := keygen(t, dir, "ci")
	feature := filepath.Join(dir, "mine.feature")
	text := "@mine\nFeature: mine\n  Scenario: the card list answers\n    Given I am the platform user\n    When I list the disputes\n    Then the request succeeds\n"
	require.NoError(t, os.WriteFile(feature, []byte(text), 0o644))
	bundle := filepath.Join(dir, "out", "conform.sigstore.json")
	require.NoError(t, os.MkdirAll(filepath.Dir(bundle), 0o755))
	code, _, errOut := run(t, "", "run", "--features", feature, "--features-only", "--attest", bundle, "--signing-key", key)
	require.Equal(t, exitOK, code, errOut)

	st := statementOf(t, bundle)
	byName := map[string]attest.ResourceDescriptor{}
	for _, c := range st.Predicate.Configuration {
		byName[c.Name] = c
	}
	assert.NotContains(t, byName, "features", "the embedded features did not run")
	mine, ok := byName["features/"+feature]
	require.True(t, ok, "configuration: %v", st.Predicate.Configuration)
	assert.Equal(t, feature, mine.URI)
	sum := sha256.Sum256([]byte(text))
	assert.Equal(t, hex.EncodeToString(sum[:]), mine.Digest["sha256"])
	assert.Len(t, st.Predicate.PassedTests, 1)

	code, _, errOut = run(t, "", "verify", "--attestation", bundle, "--key", pub)
	assert.Equal(t, exitOK, code, errOut)
}

// TestVerifyReportsInTheirOwnFolder: a run in r/ writing results.json and
// the attestation to ../bundle.json is verified with --reports r (the folder
// holding the report files), as well as from the attestation's folder; a
// changed or missing report is still refused, the missing one naming where
// it was looked for.
func TestVerifyReportsInTheirOwnFolder(t *testing.T) {
	root := t.TempDir()
	key, pub := keygen(t, root, "ci")
	r := filepath.Join(root, "r")
	require.NoError(t, os.Mkdir(r, 0o755))
	t.Chdir(r)
	code, _, errOut := run(t, "", "run", "--tags", "@spec-2.1", "--seed", "0", "--format", "json:results.json", "--attest", "../bundle.json", "--signing-key", key)
	require.Equal(t, exitOK, code, errOut)
	t.Chdir(root)

	verify := func(args ...string) (int, string, string) {
		return run(t, "", append([]string{"verify", "--attestation", "bundle.json", "--key", pub}, args...)...)
	}
	for _, args := range [][]string{{"--reports", "r"}, {"--reports", "r/"}, {}, {"--reports", "."}} {
		code, out, errOut := verify(args...)
		assert.Equal(t, exitOK, code, "%v: %s", args, errOut)
		assert.Contains(t, out, "accepted: PASSED", args)
	}

	results := filepath.Join(r, "results.json")
	original, err := os.ReadFile(results)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(results, append(original, ' '), 0o644))
	code, out, errOut := verify("--reports", "r")
	refusedLine(t, code, out, errOut, "refused: report r/results.json was changed after signing")

	require.NoError(t, os.Remove(results))
	code, out, errOut = verify("--reports", "r")
	refusedLine(t, code, out, errOut, "refused: report r/results.json is missing: no file at "+filepath.Join("r", "r", "results.json")+" or "+filepath.Join("r", "results.json"))
}
