package attest

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
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

// MissingReportError is a report file the statement covers that is not in
// the folder CheckReports was given: Name as the statement names it, Tried
// every path looked at. It is a refusal: errors.Is(err, ErrRefused) holds.
type MissingReportError struct {
	Name  string
	Tried []string
}

func (e *MissingReportError) Error() string {
	return fmt.Sprintf("%v: report %s is missing: no file at %s", ErrRefused, e.Name, strings.Join(e.Tried, " or "))
}

// Unwrap makes a missing report a refusal.
func (e *MissingReportError) Unwrap() error { return ErrRefused }

// candidates are the paths under dir where the report named name may be:
// dir/name first, then dir joined with each shorter tail of name, down to
// its base name. A statement names a report relative to the attestation's
// folder ("r/results.json" for an attestation written to ../bundle.json
// from r/), so --reports r finds r/results.json.
func candidates(dir, name string) []string {
	parts := strings.Split(name, "/")
	var paths []string
	for i := range parts {
		if parts[i] == ".." || parts[i] == "." {
			continue
		}
		paths = append(paths, filepath.Join(dir, filepath.FromSlash(strings.Join(parts[i:], "/"))))
	}
	if len(paths) == 0 || paths[0] != filepath.Join(dir, filepath.FromSlash(name)) {
		paths = append([]string{filepath.Join(dir, filepath.FromSlash(name))}, paths...)
	}
	return paths
}

// CheckReports checks that every report file the statement covers is in
// dir (the attestation's folder, or where the reports were copied) with
// the digest it was signed with. A report is looked for at its name under
// dir, then at each shorter tail of its name (see candidates); the first
// file found must have the signed digest. A report found nowhere is a
// *MissingReportError naming every path looked at.
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
		data, err := readFirst(candidates(dir, s.Name))
		var missing *MissingReportError
		if errors.As(err, &missing) {
			missing.Name = s.Name
			return missing
		}
		if err != nil {
			return refuse("report %s cannot be read: %v", s.Name, err)
		}
		sum := sha256.Sum256(data)
		if got := hex.EncodeToString(sum[:]); got != want {
			return refuse("report %s was changed after signing (sha256 %s…, signed %s…)", s.Name, got[:12], want[:12])
		}
	}
	return nil
}

// readFirst reads the first of paths that exists; when none does, it
// returns a *MissingReportError listing them.
func readFirst(paths []string) ([]byte, error) {
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		return data, err
	}
	return nil, &MissingReportError{Tried: paths}
}
