package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCommandsCreateTheirFolders: run in an empty folder, every command that
// writes a file into a folder that does not exist yet creates it: the key
// pair, a report, an attestation, an observed profile.
func TestCommandsCreateTheirFolders(t *testing.T) {
	dir := t.TempDir()
	key, _ := keygen(t, dir, "first")
	tests := []struct {
		name  string
		args  func(dir string) []string
		files []string
	}{
		{"keygen", func(dir string) []string { return []string{"keygen", "--out", filepath.Join(dir, "ci", "conform")} },
			[]string{"ci/conform.key", "ci/conform.pub"}},
		{"run report", func(dir string) []string {
			return []string{"run", "--tags", "@spec-2.1", "--seed", "0", "--format", "json:" + filepath.Join(dir, "out", "x.json")}
		}, []string{"out/x.json"}},
		{"run attest", func(dir string) []string {
			return []string{"run", "--tags", "@spec-2.1", "--seed", "0", "--attest", filepath.Join(dir, "out", "conform.sigstore.json"), "--signing-key", key}
		}, []string{"out/conform.sigstore.json", "out/conform.results.json"}},
		{"run profile", func(dir string) []string {
			return []string{"run", "--tags", "@spec-2.1", "--seed", "0", "--write-profile", filepath.Join(dir, "a", "b", "observed.json")}
		}, []string{"a/b/observed.json"}},
		{"explore report", func(dir string) []string {
			return []string{"explore", "--seed", "7", "--budget", "10", "--ops", "disputes.*", "--format", "json:" + filepath.Join(dir, "out", "explore.json")}
		}, []string{"out/explore.json"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			empty := t.TempDir()
			code, out, errOut := run(t, "", tt.args(empty)...)
			require.Equal(t, exitOK, code, "%s\n%s", out, errOut)
			for _, f := range tt.files {
				_, err := os.Stat(filepath.Join(empty, filepath.FromSlash(f)))
				assert.NoError(t, err, f)
			}
		})
	}
}

// TestRunRefusesAnUncreatableFolderFirst: a report whose folder cannot be
// created (a file stands in its way) is refused with exit 2 and one line
// before the first request to the target.
func TestRunRefusesAnUncreatableFolderFirst(t *testing.T) {
	var requests atomic.Int32
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		requests.Add(1)
		w.WriteHeader(http.StatusUnauthorized)
	}))
	t.Cleanup(target.Close)
	dir := t.TempDir()
	blocker := filepath.Join(dir, "out")
	require.NoError(t, os.WriteFile(blocker, []byte("a file"), 0o644))
	tests := []struct {
		name string
		args []string
	}{
		{"run", []string{"run", "--target", target.URL, "--user", "u", "--password", "p", "--format", "json:" + filepath.Join(blocker, "x.json")}},
		{"explore", []string{"explore", "--target", target.URL, "--format", "json:" + filepath.Join(blocker, "x.json")}},
		{"keygen", []string{"keygen", "--out", filepath.Join(blocker, "conform")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, errOut := run(t, "", tt.args...)
			assert.Equal(t, exitUsage, code, errOut)
			assert.Equal(t, 1, strings.Count(errOut, "\n"), "one line: %q", errOut)
			assert.Contains(t, errOut, "create the folder of "+filepath.Join(blocker, ""))
			assert.NotContains(t, errOut, ".conform-")
			assert.Zero(t, requests.Load(), "no request before the refusal")
		})
	}
}
