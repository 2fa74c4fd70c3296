package steps_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/conform-kit/conform/steps"
)

// TestConsoleOneCausePerCheck: against a server whose error envelope lacks
// total, every refusal of every operation fails the same §7 check: the
// console says it once, with its clause and the operations it hit, and
// the operations line does not blame the set-up requests (the card every
// sale creates first is not a failing payment_instruments.create).
func TestConsoleOneCausePerCheck(t *testing.T) {
	cfg := startReference(t, "error-envelope-missing-total")
	cfg.WaitTimeout = 3 * time.Second
	var out bytes.Buffer
	sum, err := steps.Run(context.Background(), cfg, steps.Options{Tags: "@transfers or @level3", Concurrency: 4, Out: &out})
	require.NoError(t, err)
	require.Positive(t, sum.Counts[steps.Fail], "the fault is caught")
	console := out.String()
	causes := regexp.MustCompile(`(?m)^(FAIL|WARN|ERROR) +×\d+ .*$`).FindAllString(console, -1)
	require.Len(t, causes, 1, "one cause:\n%s", console)
	assert.Regexp(t, `^FAIL +×\d+ §7 \(the spec: “error body: total \(integer\), [^”]+”\) error body is not the §7 envelope: /total \(required\): total is required$`, causes[0])
	assert.Contains(t, console, "      on transfers.create ×")
	ops := regexp.MustCompile(`(?m)^conform: operations with a failing check.*$`).FindString(console)
	require.NotEmpty(t, ops, console)
	assert.NotRegexp(t, `payment_instruments\.create \([^)]*FAIL`, ops, "the card is set-up in these scenarios")
	assert.Less(t, strings.Count(console, "\n"), 25, "a handful of lines:\n%s", console)
}

// TestConsoleCurlRuns: the console's reproducing curl of a card the server
// answers wrongly is whole (never cut, no masked "****" value) and reads
// the card number, security code and credentials from the environment
// variables it names; pasted into bash with them set, it sends the card
// again and gets the same wrong answer.
func TestConsoleCurlRuns(t *testing.T) {
	cfg := startReference(t, "bin-wrong")
	var out bytes.Buffer
	_, err := steps.Run(context.Background(), cfg, steps.Options{Tags: "@payment_instruments", Concurrency: 2, Seed: 1, Out: &out})
	require.NoError(t, err)
	console := out.String()
	block := regexp.MustCompile(`(?m)^      reproduce, reading from the environment:\n        # set (.*)\n        (export .*)\n        (curl .*)$`).FindStringSubmatch(console)
	require.NotNil(t, block, "the reproduce block:\n%s", console)
	set, export, curl := block[1], block[2], block[3]
	assert.Contains(t, set, "CONFORM_USER (the platform user of your config)")
	assert.Contains(t, set, "CONFORM_PASSWORD (its password)")
	assert.Contains(t, export, "CONFORM_CARD_NUMBER=")
	assert.Contains(t, export, "CONFORM_CARD_SECURITY_CODE=")
	for _, cut := range []string{"…", "****"} {
		assert.NotContains(t, curl, cut)
	}
	assert.Contains(t, curl, `"number":"'"$CONFORM_CARD_NUMBER"'"`)
	assert.NotContains(t, console, cfg.Credentials.Platform.Password, "the password is never printed")

	bash, errBash := exec.LookPath("bash")
	_, errCurl := exec.LookPath("curl")
	if errBash != nil || errCurl != nil {
		t.Skip("bash or curl not installed: the curl is checked, not run")
	}
	cmd := exec.Command(bash, "-c", export+"\n"+curl+` -w '\n%{http_code}'`)
	cmd.Env = append(os.Environ(), "CONFORM_USER="+cfg.Credentials.Platform.Username, "CONFORM_PASSWORD="+cfg.Credentials.Platform.Password)
	got, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", got)
	assert.True(t, strings.HasSuffix(string(got), "\n201"), "the card is created again: %s", got)
	assert.Contains(t, string(got), `"bin":"000000"`, "the same wrong answer")
}
