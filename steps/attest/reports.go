package attest

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// subjectName is a report file's name in the statement: its path relative
// to the attestation's folder, with forward slashes.
func subjectName(dir, file string) (string, error) {
	absDir, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("attest: %w", err)
	}
	absFile, err := filepath.Abs(file)
	if err != nil {
		return "", fmt.Errorf("attest: %w", err)
	}
	rel, err := filepath.Rel(absDir, absFile)
	if err != nil {
		return filepath.Base(file), nil
	}
	return filepath.ToSlash(rel), nil
}

// CheckReports checks that every report file the statement covers is in
// dir (the attestation's folder, or where the reports were copied) with
// the digest it was signed with.
func CheckReports(st Statement, dir string) error {
	if len(st.Subject) == 0 {
		return refuse("the statement covers no report file")
	}
	for _, s := range st.Subject {
		want := s.Digest["sha256"]
		if len(want) != sha256.Size*2 {
			return refuse("report %q has no sha256 digest", clipped(s.Name))
		}
		if s.Name == "" || path.IsAbs(s.Name) || strings.Contains(s.Name, `\`) || filepath.IsAbs(s.Name) {
			return refuse("report name %q is not a relative path", clipped(s.Name))
		}
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(s.Name)))
		if err != nil {
			return refuse("report %s is missing: %v", s.Name, err)
		}
		sum := sha256.Sum256(data)
		if got := hex.EncodeToString(sum[:]); got != want {
			return refuse("report %s was changed after signing (sha256 %s…, signed %s…)", s.Name, got[:12], want[:12])
		}
	}
	return nil
}
