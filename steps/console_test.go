package steps_test

import (
	"bytes"
	"context"
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
