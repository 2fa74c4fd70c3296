package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/conform-kit/conform/reference/faults"
)

// TestExploreExitCodes: conform explore exits 0 on the bundled reference,
// 1 with a finding (printed with its scenario, replay script and seed) on
// a faulted target, and 2 on a usage error; its results file holds the
// finding as a scenario of feature explore.
func TestExploreExitCodes(t *testing.T) {
	code, out, errOut := run(t, "", "explore", "--seed", "3", "--budget", "600")
	assert.Equal(t, exitOK, code, "bundled reference: %s %s", out, errOut)
	assert.Contains(t, out, "0 FAIL, 0 WARN")
	assert.Contains(t, out, "--seed 3 --run-id "+seedRunID(3), "an explicit seed names the run id, so it alone replays the requests")
	assert.Regexp(t, `request schemas: \d+/\d+ leaves sent, \d+/\d+ boundaries reached`, out, "the coverage totals")
	assert.Regexp(t, `(?m)^  schema payment_instrument_create: \d+/\d+ leaves sent, \d+/\d+ boundaries reached$`, out, "each request schema's coverage")
	// 600 requests reach far from every boundary: the first ten are named, the rest pointed to.
	assert.Regexp(t, `(?m)^  not reached \((\d+)\): [^;]+(; [^;]+){9}; and \d+ more in the reports \(--format json:FILE or html:FILE\)$`, out, "the unreached boundaries")

	_, cfgPath := serveReference(t, []string{"crash-on-null-line2"}, nil, true)
	results := filepath.Join(t.TempDir(), "explore.json")
	code, out, errOut = run(t, "", "explore", "--config", cfgPath, "--seed", "3", "--budget", "3000", "--format", "json:"+results)
	require.Equal(t, exitFailed, code, "faulted target: %s %s", out, errOut)
	for _, want := range []string{"FAIL no 5xx for a request", "Scenario:", "$CONFORM_PASSWORD", "--seed 3"} {
		assert.Contains(t, out, want)
	}
	data, err := os.ReadFile(results)
	require.NoError(t, err)
	assert.True(t, strings.Contains(string(data), `"feature": "explore"`), "results file: %s", data)

	code, _, _ = run(t, "", "explore", "--ops", "[", "--budget", "10")
	assert.Equal(t, exitUsage, code, "a bad --ops pattern")

	code, out, errOut = run(t, "", "explore", "--format", "xml:out.xml", "--budget", "10")
	assert.Equal(t, exitUsage, code, "an unknown --format")
	assert.Contains(t, errOut, `--format "xml:out.xml"`)
	assert.NotContains(t, out, "FAIL,", "an unknown --format is refused before anything is explored")
}

// TestSeedRunID: the run id of an explicit seed is the seed's, and another
// seed's differs.
func TestSeedRunID(t *testing.T) {
	assert.Equal(t, seedRunID(42), seedRunID(42), "the same seed")
	assert.NotEqual(t, seedRunID(42), seedRunID(43), "another seed")
}

// TestFaultsListsTheExploreFaults: conform faults --explore lists the
// explore catalog, one line per fault and a count.
func TestFaultsListsTheExploreFaults(t *testing.T) {
	code, out, errOut := run(t, "", "faults", "--explore")
	require.Equal(t, exitOK, code, "conform faults --explore: %s", errOut)
	catalog := faults.ExploreCatalog()
	assert.Contains(t, out, fmt.Sprintf("%d faults", len(catalog)))
	for _, f := range catalog {
		assert.Contains(t, out, f.Name)
	}
}
