package steps

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFeatureSources: the embedded features first, in lexical order, then
// those from disk in the order given (a folder's files in lexical order,
// a file given twice read once), each named and digested; the embedded
// bundle's digest is what sha256sum prints over the folder.
func TestFeatureSources(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "more", "deeper"), 0o755))
	files := map[string]string{
		"one.feature":           "Feature: one\n",
		"more/b.feature":        "Feature: b\n",
		"more/deeper/a.feature": "Feature: a\n",
		"more/notes.txt":        "not a feature",
	}
	for name, text := range files {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600))
	}
	embedded := fstest.MapFS{"z.feature": {Data: []byte("Feature: z\n")}, "y.feature": {Data: []byte("Feature: y\n")}}
	one := filepath.Join(dir, "one.feature")
	srcs, err := featureSources(Options{FS: embedded, Features: []string{one, filepath.Join(dir, "more"), one}})
	require.NoError(t, err)
	var names []string
	for _, s := range srcs {
		names = append(names, s.Name)
		sum := sha256.Sum256(s.data)
		assert.Equal(t, hex.EncodeToString(sum[:]), s.SHA256, s.Name)
		assert.Equal(t, s.Path == "", s.Embedded, s.Name)
	}
	assert.Equal(t, []string{"y.feature", "z.feature", one, filepath.Join(dir, "more", "b.feature"), filepath.Join(dir, "more", "deeper", "a.feature")}, names)

	assert.Equal(t, "./fees.feature", diskName("fees.feature"), "a bare name never reads as an embedded feature")
	assert.Equal(t, "regressions/fees.feature", diskName(filepath.Join("regressions", "fees.feature")))

	only, err := featureSources(Options{FS: embedded, Features: []string{one}, FeaturesOnly: true})
	require.NoError(t, err)
	require.Len(t, only, 1)
	assert.Equal(t, "", EmbeddedDigest(only))

	if _, err := exec.LookPath("sha256sum"); err != nil {
		t.Skip("no sha256sum")
	}
	for name, f := range embedded {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), f.Data, 0o600))
	}
	cmd := exec.Command("sh", "-c", "sha256sum *.feature | grep -v one.feature | sha256sum")
	cmd.Dir = dir
	out, err := cmd.Output()
	require.NoError(t, err)
	assert.Equal(t, strings.Fields(string(out))[0], EmbeddedDigest(srcs))
}
