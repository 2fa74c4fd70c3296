package explore_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestExploreImportsNoSuiteLibraries: the explorer reads the contract
// through validate and sends its requests with net/http; the suite (its
// Gherkin runner and HTTP client) and the reference stay out of its
// dependencies, the CLI injecting the observation and the model.
func TestExploreImportsNoSuiteLibraries(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", ".").Output()
	require.NoError(t, err, "go list -deps")
	deps := strings.Fields(string(out))
	require.Contains(t, deps, "github.com/conform-kit/conform/validate", "the list names explore's dependencies")
	for _, tc := range []struct {
		name, path string
		prefix     bool
	}{
		{name: "godog and gherkin", path: "github.com/cucumber/", prefix: true},
		{name: "resty", path: "github.com/go-resty/", prefix: true},
		{name: "the suite", path: "github.com/conform-kit/conform/steps"},
		{name: "the reference", path: "github.com/conform-kit/conform/reference", prefix: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, d := range deps {
				if tc.prefix {
					assert.False(t, strings.HasPrefix(d, tc.path), "explore depends on %s", d)
				} else {
					assert.NotEqual(t, tc.path, d, "explore depends on %s", d)
				}
			}
		})
	}
}

// TestExploreFilesStaySmall: no production file of the explorer is over
// 500 lines; a file that grows past it is split by job.
func TestExploreFilesStaySmall(t *testing.T) {
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		assert.LessOrEqual(t, bytes.Count(b, []byte("\n")), 500, "%s is over 500 lines", f)
	}
}
