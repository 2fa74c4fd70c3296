package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/conform-kit/conform/steps/attest"
)

// verifyOptions holds the flags of conform verify.
type verifyOptions struct {
	attestation, key, reports, require, target string
	minScenarios                               int
}

// newVerifyCmd checks a signed run offline: the signature, the report files, a release policy.
func newVerifyCmd() *cobra.Command {
	opts := verifyOptions{}
	cmd := &cobra.Command{
		Use:   "verify",
		Short: "Check a signed run (--attest) offline: signature, report files and a release policy",
		Long: `Verify checks an attestation conform run --attest wrote, offline, with the public key
only: the bundle's one DSSE signature over the in-toto statement; that every report file the
statement covers is in --reports (default: the attestation's folder) with the digest it was
signed with; and the policy a release gate needs: --require pass (the default: no FAIL or
ERROR) or strict (no WARN either; a WARN run signed under --strict is FAILED already),
--min-scenarios N (scenarios judged: passed, warned or failed; skipped ones do not count),
--target URL (the target the run tested). Nothing of the statement is believed before its
signature holds.

The statement names each report by its path relative to the attestation's folder: a run in
r/ with --format json:results.json --attest ../bundle.json names r/results.json. Verify
looks for it at --reports/r/results.json, then at each shorter tail of the name down to
--reports/results.json, so --reports may be the folder the reports were written to or
copied to; the first file found must have the signed digest, and a missing report names
every path looked at.

Exit codes: 0 accepted; 1 refused (one line says why); 2 usage error (a flag, an unreadable key).`,
		Example: `  conform verify --attestation out/conform.sigstore.json --key ci/conform.pub
  conform verify --attestation conform.sigstore.json --key conform.pub --reports reports/ --require strict --min-scenarios 150 --target https://sandbox.example`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runVerify(cmd, opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.attestation, "attestation", "", "the attestation (Sigstore bundle) conform run --attest wrote")
	f.StringVar(&opts.key, "key", "", "the public key (PEM) the attestation must be signed with")
	f.StringVar(&opts.reports, "reports", "", "folder holding the report files it covers (default: the attestation's folder)")
	f.StringVar(&opts.require, "require", attest.RequirePass, "pass: no FAIL or ERROR; strict: no WARN either")
	f.IntVar(&opts.minScenarios, "min-scenarios", 0, "the least number of scenarios the run judged (skipped ones not counted)")
	f.StringVar(&opts.target, "target", "", "the base URL the run must have tested")
	return cmd
}

// runVerify verifies, then checks the reports, then the policy: each step
// reads only what the one before it proved.
func runVerify(cmd *cobra.Command, opts verifyOptions) error {
	if opts.attestation == "" || opts.key == "" {
		return usageError(errors.New("verify: --attestation FILE and --key PUBKEY are required"))
	}
	if opts.require != attest.RequirePass && opts.require != attest.RequireStrict {
		return usageError(fmt.Errorf("verify: --require %q: want pass or strict", opts.require))
	}
	if opts.minScenarios < 0 {
		return usageError(fmt.Errorf("verify: --min-scenarios must be 0 or more, got %d", opts.minScenarios))
	}
	pub, err := attest.LoadPublicKey(opts.key)
	if err != nil {
		return usageError(fmt.Errorf("verify: --key: %w", err))
	}
	data, err := os.ReadFile(opts.attestation)
	if err != nil {
		return usageError(fmt.Errorf("verify: --attestation: %w", err))
	}
	refused := func(err error) error {
		return &exitError{code: exitFailed, err: fmt.Errorf("verify: %s: %w", opts.attestation, err)}
	}
	st, err := attest.Verify(data, pub)
	if err != nil {
		return refused(err)
	}
	dir := opts.reports
	if dir == "" {
		dir = filepath.Dir(opts.attestation)
	}
	if err := attest.CheckReports(st, dir); err != nil {
		return refused(err)
	}
	policy := attest.Policy{Require: opts.require, MinScenarios: opts.minScenarios, Target: opts.target}
	if err := policy.Check(st); err != nil {
		return refused(err)
	}
	p := st.Predicate
	fmt.Fprintf(cmd.OutOrStdout(), "conform verify: accepted: %s run of %s (run %s): %d passed, %d warned, %d failed, %d skipped; %s unchanged; signed by key %s\n",
		p.Result, p.Conform.Target, p.Conform.RunID, len(p.PassedTests), len(p.WarnedTests), len(p.FailedTests), len(p.Conform.SkippedTests), reportCount(len(st.Subject)), attest.Hint(pub))
	return nil
}
