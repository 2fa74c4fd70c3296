package validate_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// readmeSection returns the text of the repository README's section under
// heading, up to the next "## " heading.
func readmeSection(t *testing.T, heading string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "README.md"))
	require.NoError(t, err)
	_, rest, ok := strings.Cut(string(b), "\n"+heading+"\n")
	require.True(t, ok, "README.md has no heading %q", heading)
	section, _, _ := strings.Cut(rest, "\n## ")
	return section
}

// TestReadmeServiceSnippetCompiles: the service snippet on the README's
// first screen is a whole program that compiles and vets as written
// (imports included), and listens on loopback.
func TestReadmeServiceSnippetCompiles(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles a program")
	}
	section := readmeSection(t, "## Validate requests in a Go service")
	m := regexp.MustCompile("(?s)```go\n(.*?)```").FindStringSubmatch(section)
	require.NotNil(t, m, "no go block in the README's service section")
	src := m[1]
	assert.Contains(t, src, `"127.0.0.1:`, "the snippet listens on loopback")
	// The program is built inside the module (a testdata folder, which
	// ./... leaves out), so it compiles against this checkout of validate.
	dir, err := os.MkdirTemp("testdata", "readme-")
	require.NoError(t, err)
	t.Cleanup(func() { os.RemoveAll(dir) })
	require.NoError(t, os.WriteFile(filepath.Join(dir, "main.go"), []byte(src), 0o600))
	out, err := exec.Command("go", "vet", "./"+filepath.ToSlash(dir)).CombinedOutput()
	require.NoError(t, err, "the README's service snippet does not compile as written:\n%s\n%s", out, src)
}

// TestReadmeGoVersion: the README asks for the Go version go.mod's go line
// needs.
func TestReadmeGoVersion(t *testing.T) {
	mod, err := os.ReadFile(filepath.Join("..", "go.mod"))
	require.NoError(t, err)
	m := regexp.MustCompile(`(?m)^go (\S+)$`).FindSubmatch(mod)
	require.NotNil(t, m, "go.mod has no go line")
	readme, err := os.ReadFile(filepath.Join("..", "README.md"))
	require.NoError(t, err)
	asked := regexp.MustCompile(`Go (\d+\.\d+(?:\.\d+)?) or later`).FindAllSubmatch(readme, -1)
	require.NotEmpty(t, asked, "the README names no Go version")
	for _, v := range asked {
		assert.Equal(t, string(m[1]), string(v[1]), "README asks for Go %s, go.mod for %s", v[1], m[1])
	}
	assert.Contains(t, string(readme), " install ./cmd/conform", "the README shows the install from a clone")
}
