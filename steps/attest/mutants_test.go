package attest

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/conform-kit/conform/steps/report"
)

// flip is the mutant of data with byte i XORed with mask: 0xff flips every
// bit of it, 1 its lowest bit.
func flip(data []byte, i int, mask byte) []byte {
	m := bytes.Clone(data)
	m[i] ^= mask
	return m
}

// mutantCase is one check both verifiers make: a bundle, the report file
// it must cover ("-" for none), and whether it must be accepted.
type mutantCase struct {
	bundle, report string
	accept         bool
	what           string
	// lenient marks a mutant sigstore-go may accept if it is the original
	// in another spelling: same payload, signature and key hint.
	lenient bool
}

// sameSigned reports whether a bundle, read leniently (as encoding/json and
// non-strict base64 read it), carries the original's payload, signature and
// key hint: a mutant only its spelling tells apart.
func sameSigned(original, mutant []byte) bool {
	read := func(data []byte) (payload, sig []byte, hint string, ok bool) {
		var b Bundle
		if json.Unmarshal(data, &b) != nil || len(b.DSSEEnvelope.Signatures) != 1 {
			return nil, nil, "", false
		}
		p, err1 := base64.StdEncoding.DecodeString(b.DSSEEnvelope.Payload)
		s, err2 := base64.StdEncoding.DecodeString(b.DSSEEnvelope.Signatures[0].Sig)
		return p, s, b.VerificationMaterial.PublicKey.Hint, err1 == nil && err2 == nil
	}
	p1, s1, h1, ok1 := read(original)
	p2, s2, h2, ok2 := read(mutant)
	return ok1 && ok2 && bytes.Equal(p1, p2) && bytes.Equal(s1, s2) && h1 == h2
}

// TestMutantsAreRefused flips each byte of a signed bundle and each byte of
// a report file it covers: this package's Verify and CheckReports (what
// conform verify runs) and sigstore-go's verifier (testdata/independent, a
// module of its own, run once over every case) must refuse every mutant and
// accept the original.
func TestMutantsAreRefused(t *testing.T) {
	dir := t.TempDir()
	key, pubFile := newKey(t, dir, "k")
	other, _ := newKey(t, dir, "other")
	bundle, reports := signedRun(t, dir, key, sampleRun(false, report.Pass, report.Warn, report.Skip))
	pub, err := LoadPublicKey(pubFile)
	require.NoError(t, err)
	original, err := os.ReadFile(bundle)
	require.NoError(t, err)
	results, err := os.ReadFile(reports[0])
	require.NoError(t, err)

	ours := func(bundleData []byte, reportsDir string) error {
		st, err := Verify(bundleData, pub)
		if err != nil {
			return err
		}
		return CheckReports(st, reportsDir)
	}
	require.NoError(t, ours(original, dir), "the original")

	mutants := t.TempDir()
	var cases []mutantCase
	for _, r := range reports {
		cases = append(cases, mutantCase{bundle: bundle, report: r, accept: true, what: "the original, covering " + filepath.Base(r)})
	}
	cases = append(cases, mutantCase{bundle: bundle, report: "-", accept: true, what: "the original"})
	addBundle := func(name string, m []byte, lenient bool) {
		file := filepath.Join(mutants, name+".json")
		require.NoError(t, os.WriteFile(file, m, 0o644))
		cases = append(cases, mutantCase{bundle: file, report: reports[0], what: name, lenient: lenient})
	}
	// Every byte of the bundle, every bit of it flipped; then its lowest
	// bit only, which keeps most bytes printable (a letter for a letter,
	// a base64 digit for another).
	bundleMutants := 0
	for _, mask := range []byte{0xff, 1} {
		for i := range original {
			m := flip(original, i, mask)
			assert.Error(t, ours(m, dir), "bundle byte %d ^ %#x", i, mask)
			addBundle(fmt.Sprintf("bundle-%05d-x%02x", i, mask), m, mask == 1 && sameSigned(original, m))
			bundleMutants++
		}
	}
	// Every byte of what is signed, flipped and encoded again: the bundle
	// stays well-formed, only the signature can tell.
	var b Bundle
	require.NoError(t, json.Unmarshal(original, &b))
	payload, err := base64.StdEncoding.DecodeString(b.DSSEEnvelope.Payload)
	require.NoError(t, err)
	sig, err := base64.StdEncoding.DecodeString(b.DSSEEnvelope.Signatures[0].Sig)
	require.NoError(t, err)
	for _, part := range []struct {
		name string
		data []byte
		set  func(*Bundle, []byte)
	}{
		{"payload", payload, func(c *Bundle, p []byte) { c.DSSEEnvelope.Payload = base64.StdEncoding.EncodeToString(p) }},
		{"sig", sig, func(c *Bundle, s []byte) {
			c.DSSEEnvelope.Signatures = []Signature{{Sig: base64.StdEncoding.EncodeToString(s)}}
		}},
	} {
		for i := range part.data {
			c := b
			part.set(&c, flip(part.data, i, 0xff))
			m, err := json.Marshal(c)
			require.NoError(t, err)
			assert.Error(t, ours(m, dir), "%s byte %d flipped", part.name, i)
			addBundle(fmt.Sprintf("%s-%05d", part.name, i), m, false)
			bundleMutants++
		}
	}
	// A report mutant is checked where conform verify reads it: in a
	// folder holding the other reports unchanged.
	reportDir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(reportDir, "junit"), 0o755))
	junit, err := os.ReadFile(reports[1])
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(reportDir, "junit", "conform.xml"), junit, 0o644))
	for i := range results {
		m := flip(results, i, 0xff)
		require.NoError(t, os.WriteFile(filepath.Join(reportDir, "results.json"), m, 0o644))
		assert.Error(t, ours(original, reportDir), "results.json byte %d flipped", i)
		file := filepath.Join(mutants, fmt.Sprintf("results-%05d.json", i))
		require.NoError(t, os.WriteFile(file, m, 0o644))
		cases = append(cases, mutantCase{bundle: bundle, report: file, what: fmt.Sprintf("results.json byte %d flipped", i)})
	}
	mutantCount := bundleMutants + len(results)
	require.GreaterOrEqual(t, mutantCount, 1000)
	t.Logf("%d mutants (%d of the %d-byte bundle, %d of results.json), all refused by Verify and CheckReports", mutantCount, bundleMutants, len(original), len(results))

	// Tampered, still well-formed: the payload edited and encoded again,
	// and a bundle another key signed under this key's hint.
	b.DSSEEnvelope.Payload = base64.StdEncoding.EncodeToString(bytes.Replace(payload, []byte(`"WARNED"`), []byte(`"PASSED"`), 1))
	tampered, err := json.Marshal(b)
	require.NoError(t, err)
	st, err := Build(Input{Run: sampleRun(false, report.Pass), Reports: reports, Dir: dir})
	require.NoError(t, err)
	otherSigned, err := Sign(st, other)
	require.NoError(t, err)
	var ob Bundle
	require.NoError(t, json.Unmarshal(otherSigned, &ob))
	ob.VerificationMaterial = b.VerificationMaterial
	underHint, err := json.Marshal(ob)
	require.NoError(t, err)
	for name, data := range map[string][]byte{"tampered": tampered, "another key": otherSigned, "another key under this hint": underHint, "truncated": original[:len(original)-20]} {
		assert.Error(t, ours(data, dir), name)
		file := filepath.Join(mutants, strings.ReplaceAll(name, " ", "-")+".json")
		require.NoError(t, os.WriteFile(file, data, 0o644))
		cases = append(cases, mutantCase{bundle: file, report: reports[0], what: name})
	}

	verdicts := independent(t, pubFile, cases)
	accepted, respelt, refused := 0, 0, 0
	for i, c := range cases {
		switch {
		case c.accept:
			assert.Equal(t, "ACCEPT", verdicts[i], c.what)
			accepted++
		case strings.HasPrefix(verdicts[i], "REFUSE"):
			refused++
		case c.lenient && verdicts[i] == "ACCEPT":
			respelt++
		default:
			t.Errorf("%s: sigstore-go says %s", c.what, verdicts[i])
		}
	}
	t.Logf("sigstore-go: %d cases: the original accepted %d times; %d mutants and tampered bundles refused; %d bit-flip mutants accepted that carry the original's payload, signature and hint (the media type v0.2, or base64 padding bits)",
		len(cases), accepted, refused, respelt)
}

// independent runs sigstore-go's verifier (testdata/independent) once over
// every case and returns its verdicts, in order.
func independent(t *testing.T, pubFile string, cases []mutantCase) []string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "independent")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Dir = filepath.Join("testdata", "independent")
	build.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=readonly -buildvcs=false")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "build the independent verifier: %s", out)

	var list strings.Builder
	for _, c := range cases {
		fmt.Fprintf(&list, "%s\t%s\n", c.bundle, c.report)
	}
	casesFile := filepath.Join(t.TempDir(), "cases.txt")
	require.NoError(t, os.WriteFile(casesFile, []byte(list.String()), 0o644))
	cmd := exec.Command(bin, "-key", pubFile, "-cases", casesFile)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	require.NoError(t, err, "independent verifier: %s", stderr.String())
	var verdicts []string
	sc := bufio.NewScanner(bytes.NewReader(stdout))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		verdicts = append(verdicts, sc.Text())
	}
	require.Len(t, verdicts, len(cases))
	return verdicts
}
