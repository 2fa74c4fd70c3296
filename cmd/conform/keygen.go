package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/spf13/cobra"

	"github.com/conform-kit/conform/steps/attest"
)

// newKeygenCmd writes an ECDSA P-256 key pair for --signing-key and conform verify --key.
func newKeygenCmd() *cobra.Command {
	var prefix string
	var force bool
	cmd := &cobra.Command{
		Use:   "keygen",
		Short: "Write an ECDSA P-256 key pair to sign results (--attest) and verify them",
		Long: `Keygen writes a new ECDSA P-256 key pair: PREFIX.key, the private key (PKCS#8 PEM, file
mode 0600), for conform run --attest FILE --signing-key PREFIX.key (or the PEM in an
environment variable, --signing-key env:NAME), and PREFIX.pub, the public key (PKIX PEM),
for conform verify --key PREFIX.pub, cosign and the Sigstore verifiers. Existing files are
kept unless --force; missing folders of PREFIX are created. The private key is never printed.`,
		Example: `  conform keygen --out ci/conform
  CONFORM_SIGNING_KEY="$(cat ci/conform.key)" conform run --format junit:out/conform.xml --attest out/conform.sigstore.json --signing-key env:CONFORM_SIGNING_KEY`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			private, public, err := attest.GenerateKey()
			if err != nil {
				return fmt.Errorf("keygen: %w", err)
			}
			keyFile, pubFile := prefix+".key", prefix+".pub"
			if err := makeFolderOf(keyFile); err != nil {
				return usageError(fmt.Errorf("keygen: %w", err))
			}
			if !force {
				for _, f := range []string{keyFile, pubFile} {
					if _, err := os.Stat(f); err == nil {
						return usageError(fmt.Errorf("keygen: %s exists; --force overwrites it", f))
					} else if !errors.Is(err, fs.ErrNotExist) {
						return usageError(fmt.Errorf("keygen: %w", err))
					}
				}
			}
			if err := writeKeyFile(keyFile, private, 0o600); err != nil {
				return fmt.Errorf("keygen: %w", err)
			}
			if err := writeKeyFile(pubFile, public, 0o644); err != nil {
				return fmt.Errorf("keygen: %w", err)
			}
			pub, err := attest.ParsePublicKey(public)
			if err != nil {
				return fmt.Errorf("keygen: %w", err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "private key %s (keep it secret), public key %s (key hint %s)\n", keyFile, pubFile, attest.Hint(pub))
			return nil
		},
	}
	cmd.Flags().StringVar(&prefix, "out", "conform", "file name prefix: writes PREFIX.key and PREFIX.pub")
	cmd.Flags().BoolVar(&force, "force", false, "overwrite existing key files")
	return cmd
}

// writeKeyFile writes data to path with mode perm, also when path already exists.
func writeKeyFile(path string, data []byte, perm os.FileMode) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, perm)
	if err != nil {
		return err
	}
	if err := f.Chmod(perm); err != nil {
		f.Close()
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
