package steps_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/conform-kit/conform/steps"
)

// TestNormativeCheckInAnAssumedScenarioFails: accepting a 19-digit card is
// an assumed choice (card_number_check), but once a card is accepted its
// last_four is §2.3's: a wrong one FAILs, with no profile and with the key
// declared unchecked, which drops only the scenario's assumed checks (the
// scenario runs; it is not skipped).
func TestNormativeCheckInAnAssumedScenarioFails(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the card scenarios twice")
	}
	cfg := startReference(t, "last-four-wrong")
	const name = "a card number of 19 digits is accepted"
	for _, profile := range []string{"", `{"card_number_check": "unchecked"}`} {
		c := cfg
		if profile != "" {
			c.Profile = json.RawMessage(profile)
		}
		sum, err := steps.Run(context.Background(), c, steps.Options{Concurrency: 4, Tags: "@payment_instruments"})
		require.NoError(t, err, "profile %q", profile)
		found := false
		for _, r := range sum.Results {
			if r.Name != name {
				continue
			}
			found = true
			assert.Equal(t, steps.Fail, r.Outcome, "profile %q: %s: %v", profile, name, r.Messages)
			cites := false
			for _, c := range r.Judged {
				cites = cites || c.Basis.Normative() && citesSection(c.Basis.Cites(), "2.3")
			}
			assert.True(t, cites, "profile %q: the FAIL cites §2.3: %+v", profile, r.Judged)
		}
		assert.True(t, found, "profile %q: no scenario %q", profile, name)
	}
}

// TestUncheckedRunsTheScenario: a key declared unchecked skips nothing: the
// reference with card_number_check unchecked runs every card scenario,
// PASS (its normative checks hold), none SKIP.
func TestUncheckedRunsTheScenario(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the card scenarios")
	}
	cfg := startReference(t)
	cfg.Profile = json.RawMessage(`{"card_number_check": "unchecked", "reference_rules": "unchecked", "idempotency_replay": "unchecked"}`)
	sum, err := steps.Run(context.Background(), cfg, steps.Options{Concurrency: 4, Tags: "@payment_instruments,@idempotency,@level3"})
	require.NoError(t, err)
	assert.Zero(t, sum.Counts[steps.Skip], "nothing skipped for a key declared unchecked: %s: %s", sum.Line(), faultReport(sum))
	assert.Zero(t, sum.Counts[steps.Fail]+sum.Counts[steps.Warn]+sum.Counts[steps.Error], "%s: %s", sum.Line(), faultReport(sum))
}
