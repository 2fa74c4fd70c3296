// Package attest signs the results of a conformance run so that a third party
// can check them offline: an in-toto Statement v1 whose subjects are the
// report files a run wrote and whose predicate is the test-result v0.1 of the
// run, in a DSSE envelope signed with an ECDSA P-256 key, written as a
// Sigstore bundle (v0.3, JSON) that standard verifiers read.
//
// Build makes the statement from a run, Sign writes the bundle, Verify checks a
// bundle against a public key and returns the statement only once its
// signature holds; Policy and CheckReports are what a release gate asks of it.
// The package imports only the standard library, steps/report and features.
package attest

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"strings"

	"github.com/conform-kit/conform/features"
	"github.com/conform-kit/conform/steps/report"
)

// The names the statement is read by.
const (
	// StatementType is the in-toto Statement v1 type (the member "_type").
	StatementType = "https://in-toto.io/Statement/v1"
	// PredicateType is the in-toto test-result predicate v0.1.
	PredicateType = "https://in-toto.io/attestation/test-result/v0.1"
	// PayloadType is the DSSE payload type of an in-toto statement.
	PayloadType = "application/vnd.in-toto+json"
)

// The results of the test-result predicate.
const (
	Passed = "PASSED" // no FAIL, ERROR or WARN
	Warned = "WARNED" // WARNs, no FAIL or ERROR, not strict
	Failed = "FAILED" // a FAIL or ERROR, or a WARN under strict
)

// Statement is an in-toto Statement v1 with a test-result predicate.
type Statement struct {
	Type          string     `json:"_type"`
	Subject       []Subject  `json:"subject"`
	PredicateType string     `json:"predicateType"`
	Predicate     TestResult `json:"predicate"`
}

// Subject is one report file: its name relative to the attestation's folder
// and its sha256.
type Subject struct {
	Name   string            `json:"name"`
	Digest map[string]string `json:"digest"`
}

// TestResult is the test-result v0.1 predicate, with conform's own member.
type TestResult struct {
	Result        string               `json:"result"`
	Configuration []ResourceDescriptor `json:"configuration"`
	PassedTests   []string             `json:"passedTests"`
	WarnedTests   []string             `json:"warnedTests"`
	FailedTests   []string             `json:"failedTests"`
	Conform       RunInfo              `json:"conform"`
}

// RunInfo is what the predicate has no member for: the target, the run id,
// whether WARN counted as FAIL, and the scenarios skipped.
type RunInfo struct {
	Target       string   `json:"target"`
	RunID        string   `json:"runId"`
	Strict       bool     `json:"strict"`
	Seed         int64    `json:"seed"`
	Started      string   `json:"started"`
	SkippedTests []string `json:"skippedTests"`
	ErrorTests   []string `json:"errorTests"`
}

// ResourceDescriptor is an in-toto resource descriptor: what the run was
// configured with, by digest.
type ResourceDescriptor struct {
	Name        string            `json:"name"`
	URI         string            `json:"uri,omitempty"`
	Digest      map[string]string `json:"digest,omitempty"`
	Content     []byte            `json:"content,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
}

// Input is everything a statement is made of.
type Input struct {
	// Run is the run as its reports tell it.
	Run report.Run
	// RunID is the id the run tagged its resources with.
	RunID string
	// Reports are the report files the run wrote, as the command line named them.
	Reports []string
	// Dir is the attestation's folder: subject names are relative to it.
	Dir string
	// Profile is the declared profile the run judged by (nil: the reference's defaults).
	Profile []byte
	// Config is the run's effective config with every credential removed (JSON).
	Config []byte
	// FeatureFiles are the feature files a user added from disk, with the
	// digests of the bytes the run read (not read again here: a file edited
	// since the run would be attested as it is now).
	FeatureFiles []FeatureFile
	// WithoutEmbedded leaves the embedded features out of the configuration:
	// the run did not read them (--features-only).
	WithoutEmbedded bool
	// Version is the conform version; Executable, when set, the binary digested.
	Version    string
	Executable string
}

// FeatureFile is a feature file a run read from disk.
type FeatureFile struct {
	// Name is the file as the reports name it (the path as given).
	Name string
	// Path is its absolute path.
	Path string
	// SHA256 is the hex SHA-256 of the bytes the run read.
	SHA256 string
}

// Result maps a run to the predicate's result: FAIL or ERROR → FAILED, WARN →
// WARNED (FAILED when strict), else PASSED.
func Result(run report.Run) string {
	counts := map[report.Outcome]int{}
	for _, s := range run.Scenarios {
		counts[s.Outcome]++
	}
	switch {
	case counts[report.Fail] > 0 || counts[report.Error] > 0:
		return Failed
	case counts[report.Warn] > 0 && run.Strict:
		return Failed
	case counts[report.Warn] > 0:
		return Warned
	}
	return Passed
}

// testName names a scenario in the test lists: its id and name,
// "transfers.feature:42 A transfer moves money".
func testName(s report.Scenario) string {
	id := s.ID()
	if s.Line == 0 {
		return id
	}
	return id + " " + s.Name
}

// Build makes the statement of a run: one subject per report file (read
// from disk now), the test-result predicate and the configuration by digest.
func Build(in Input) (Statement, error) {
	st := Statement{Type: StatementType, PredicateType: PredicateType}
	seen := map[string]bool{}
	for _, file := range in.Reports {
		name, err := subjectName(in.Dir, file)
		if err != nil {
			return st, err
		}
		if seen[name] {
			continue
		}
		seen[name] = true
		data, err := os.ReadFile(file)
		if err != nil {
			return st, fmt.Errorf("attest: read report: %w", err)
		}
		st.Subject = append(st.Subject, Subject{Name: name, Digest: digest(data)})
	}
	if len(st.Subject) == 0 {
		return st, errors.New("attest: no report file to sign")
	}
	p := TestResult{Result: Result(in.Run), PassedTests: []string{}, WarnedTests: []string{}, FailedTests: []string{}}
	p.Conform = RunInfo{Target: in.Run.Target, RunID: in.RunID, Strict: in.Run.Strict, Seed: in.Run.Seed,
		SkippedTests: []string{}, ErrorTests: []string{}}
	if !in.Run.Started.IsZero() {
		p.Conform.Started = in.Run.Started.UTC().Format("2006-01-02T15:04:05.000Z")
	}
	for _, s := range in.Run.Scenarios {
		name := testName(s)
		switch s.Outcome {
		case report.Pass:
			p.PassedTests = append(p.PassedTests, name)
		case report.Warn:
			p.WarnedTests = append(p.WarnedTests, name)
		case report.Skip:
			p.Conform.SkippedTests = append(p.Conform.SkippedTests, name)
		case report.Error:
			p.FailedTests = append(p.FailedTests, name)
			p.Conform.ErrorTests = append(p.Conform.ErrorTests, name)
		default:
			p.FailedTests = append(p.FailedTests, name)
		}
	}
	for _, l := range [][]string{p.PassedTests, p.WarnedTests, p.FailedTests, p.Conform.SkippedTests, p.Conform.ErrorTests} {
		sort.Strings(l)
	}
	cfg, err := configuration(in)
	if err != nil {
		return st, err
	}
	p.Configuration = cfg
	st.Predicate = p
	return st, nil
}

// configuration lists what the run was configured with, by digest: conform
// itself, the features (embedded, then each file from disk), the profile and
// the config without credentials.
func configuration(in Input) ([]ResourceDescriptor, error) {
	self := ResourceDescriptor{Name: "conform", URI: "pkg:golang/github.com/conform-kit/conform", Annotations: map[string]string{"version": in.Version}}
	if in.Executable != "" {
		if data, err := os.ReadFile(in.Executable); err == nil {
			self.Digest = digest(data)
		}
	}
	out := []ResourceDescriptor{self}
	if !in.WithoutEmbedded {
		embedded, n, err := FeaturesDigest(features.FS)
		if err != nil {
			return nil, err
		}
		out = append(out, ResourceDescriptor{Name: "features", Digest: map[string]string{"sha256": embedded},
			Annotations: map[string]string{"source": "embedded", "files": fmt.Sprint(n)}})
	}
	for _, f := range in.FeatureFiles {
		out = append(out, ResourceDescriptor{Name: "features/" + f.Name, URI: f.Path,
			Digest: map[string]string{"sha256": f.SHA256}, Annotations: map[string]string{"source": "file"}})
	}
	if len(in.Profile) > 0 {
		out = append(out, ResourceDescriptor{Name: "profile", Digest: digest(in.Profile)})
	}
	if len(in.Config) > 0 {
		out = append(out, ResourceDescriptor{Name: "config", Digest: digest(in.Config), Content: in.Config,
			Annotations: map[string]string{"credentials": "removed"}})
	}
	return out, nil
}

// FeaturesDigest is the digest of a features bundle: the sha256 of its
// listing, one "SHA256  NAME\n" line per .feature file in name order (the
// output of "sha256sum *.feature" in the features folder), and the number of
// files.
func FeaturesDigest(fsys fs.FS) (string, int, error) {
	names, err := fs.Glob(fsys, "*.feature")
	if err != nil {
		return "", 0, fmt.Errorf("attest: list features: %w", err)
	}
	sort.Strings(names)
	var listing strings.Builder
	for _, name := range names {
		data, err := fs.ReadFile(fsys, name)
		if err != nil {
			return "", 0, fmt.Errorf("attest: read features: %w", err)
		}
		sum := sha256.Sum256(data)
		fmt.Fprintf(&listing, "%s  %s\n", hex.EncodeToString(sum[:]), name)
	}
	sum := sha256.Sum256([]byte(listing.String()))
	return hex.EncodeToString(sum[:]), len(names), nil
}

func digest(data []byte) map[string]string {
	sum := sha256.Sum256(data)
	return map[string]string{"sha256": hex.EncodeToString(sum[:])}
}

// Marshal is the statement's JSON: the exact bytes that are signed.
func (st Statement) Marshal() ([]byte, error) {
	data, err := json.Marshal(st)
	if err != nil {
		return nil, fmt.Errorf("attest: statement: %w", err)
	}
	return data, nil
}
