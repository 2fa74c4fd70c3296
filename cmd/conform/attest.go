package main

import (
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/conform-kit/conform/steps"
	"github.com/conform-kit/conform/steps/attest"
	results "github.com/conform-kit/conform/steps/report"
)

// addAttestFlags adds --attest and --signing-key to conform run and explore.
func addAttestFlags(f *pflag.FlagSet, opts *runOptions) {
	f.StringVar(&opts.attest, "attest", "", "after the reports, sign them: write an in-toto test-result attestation (a Sigstore bundle) to this file; needs --signing-key")
	f.StringVar(&opts.signingKey, "signing-key", "", "ECDSA P-256 private key (PEM) signing --attest: a file, or env:NAME for the PEM in an environment variable (conform keygen makes one)")
}

// attester signs a run's reports: the key, the report files, and the run
// the reports were written from.
type attester struct {
	verb, path string
	key        *ecdsa.PrivateKey
	reports    []string
	// features are the feature files the run read from disk (--features),
	// with the digests of the bytes it read; withoutEmbedded is set when it
	// read none of the embedded ones (--features-only).
	features        []attest.FeatureFile
	withoutEmbedded bool
	run             *results.Run
	errOut          io.Writer
}

// prepareAttest checks --attest and --signing-key before anything runs and
// reads the key. When no report goes to a file, the results file is added
// beside the attestation, so the statement always covers one. It returns
// nil when --attest is not given.
func prepareAttest(verb string, opts *runOptions) (*attester, error) {
	if opts.attest == "" {
		if opts.signingKey != "" {
			return nil, usageError(fmt.Errorf("%s: --signing-key needs --attest FILE", verb))
		}
		return nil, nil
	}
	if opts.signingKey == "" {
		return nil, usageError(fmt.Errorf("%s: --attest needs --signing-key KEY (a PEM file, or env:NAME)", verb))
	}
	if err := makeFolderOf(opts.attest); err != nil {
		return nil, usageError(fmt.Errorf("%s: --attest: %w", verb, err))
	}
	key, err := attest.LoadSigningKey(opts.signingKey, opts.lookupEnv)
	if err != nil {
		return nil, usageError(fmt.Errorf("%s: --signing-key: %w", verb, err))
	}
	a := &attester{verb: verb, path: opts.attest, key: key, errOut: opts.errOut}
	for _, f := range opts.formats {
		kind, file, ok := strings.Cut(f, ":")
		if ok && file != "" && (kind == "json" || kind == "junit" || kind == "cucumber" || kind == "html") {
			a.reports = append(a.reports, file)
		}
	}
	if len(a.reports) == 0 {
		beside := resultsBeside(opts.attest)
		a.reports = []string{beside}
		opts.formats = append(opts.formats, "json:"+beside)
	}
	return a, nil
}

// resultsBeside names the results file written beside an attestation
// "DIR/NAME.EXT…": "DIR/NAME.results.json".
func resultsBeside(attestation string) string {
	dir, base := filepath.Split(attestation)
	name, _, _ := strings.Cut(base, ".")
	if name == "" {
		name = "conform"
	}
	if p := filepath.Join(dir, name+".results.json"); p != filepath.Clean(attestation) {
		return p
	}
	return filepath.Join(dir, name+"-results.json")
}

// hook gives the run an id when it has none (the statement names it) and
// keeps the run its reports are written from.
func (a *attester) hook(cfg steps.Config, after func(context.Context, *results.Run) error) (steps.Config, func(context.Context, *results.Run) error) {
	if a == nil {
		return cfg, after
	}
	if cfg.RunID == "" {
		cfg.RunID = "run-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	}
	return cfg, func(ctx context.Context, run *results.Run) error {
		if after != nil {
			if err := after(ctx, run); err != nil {
				return err
			}
		}
		a.run = run
		return nil
	}
}

// signRun signs the reports of a conform run, once they are written; the
// feature files it read are named from sources.
func (a *attester) signRun(cfg steps.Config, sources []steps.FeatureSource) error {
	if a == nil || a.run == nil {
		return nil
	}
	a.withoutEmbedded = true
	for _, src := range sources {
		if src.Embedded {
			a.withoutEmbedded = false
			continue
		}
		a.features = append(a.features, attest.FeatureFile{Name: src.Name, Path: src.Path, SHA256: src.SHA256})
	}
	return a.sign(cfg, cfg.RunID, *a.run)
}

// sign writes the attestation of run, whose reports are on disk.
func (a *attester) sign(cfg steps.Config, runID string, run results.Run) error {
	if a == nil {
		return nil
	}
	redacted, err := json.Marshal(withoutCredentials(cfg))
	if err != nil {
		return fmt.Errorf("%s: --attest: %w", a.verb, err)
	}
	exe, _ := os.Executable()
	st, err := attest.Build(attest.Input{Run: run, RunID: runID, Reports: a.reports, Dir: filepath.Dir(a.path),
		Profile: cfg.Profile, Config: redacted, FeatureFiles: a.features, WithoutEmbedded: a.withoutEmbedded, Version: version(), Executable: exe})
	if err != nil {
		return fmt.Errorf("%s: --attest: %w", a.verb, err)
	}
	bundle, err := attest.Sign(st, a.key)
	if err != nil {
		return fmt.Errorf("%s: --attest: %w", a.verb, err)
	}
	if err := os.WriteFile(a.path, bundle, 0o644); err != nil {
		return fmt.Errorf("%s: --attest: %w", a.verb, err)
	}
	fmt.Fprintf(a.errOut, "conform %s: %s results signed (%s) in %s\n", a.verb, st.Predicate.Result, reportCount(len(st.Subject)), a.path)
	return nil
}

// withoutCredentials is the config as the statement shows it: every
// password and the sandbox admin token removed.
func withoutCredentials(cfg steps.Config) steps.Config {
	for _, c := range []**steps.Credential{&cfg.Credentials.Platform, &cfg.Credentials.Merchant, &cfg.Credentials.OtherApplication} {
		if *c != nil {
			*c = &steps.Credential{Username: (*c).Username}
		}
	}
	if cfg.Sandbox != nil {
		sb := *cfg.Sandbox
		sb.AdminToken = ""
		cfg.Sandbox = &sb
	}
	return cfg
}

// reportCount is "1 report" or "N reports".
func reportCount(n int) string {
	if n == 1 {
		return "1 report"
	}
	return strconv.Itoa(n) + " reports"
}
