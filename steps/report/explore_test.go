package report_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/conform-kit/conform/steps/report"
)

// exploredRun is a run with an exploration covering two request schemas.
func exploredRun() report.Run {
	return report.Run{Target: "http://sandbox.test", Exploration: &report.Exploration{Seed: 7, RunID: "s7", Sequences: 3, Requests: 40,
		Operations: []report.ExploredOp{{ID: "payment_instruments.create", Accepted: 12, Refused: 5}},
		Schemas: []report.ExploredSchema{
			{Schema: "payment_instrument_create", Leaves: 16, LeavesSent: 15, Boundaries: 42, BoundariesReached: 40,
				Missed: []string{"address.city: maxLength 20: one past", "third_party_token: never sent"}},
			{Schema: "list query", Leaves: 2, LeavesSent: 2, Boundaries: 6, BoundariesReached: 6},
		}}}
}

// TestExplorationCoverageRendered: the HTML report shows each request
// schema's leaves and boundaries over those defined and what was missed;
// the results file keeps the same rows.
func TestExplorationCoverageRendered(t *testing.T) {
	run := exploredRun()
	out := string(writeHTML(t, run))
	assert.Contains(t, out, `<table id="schemas">`)
	assert.Contains(t, out, "payment_instrument_create")
	assert.Contains(t, out, "15/16")
	assert.Contains(t, out, "40/42")
	assert.Contains(t, out, "address.city: maxLength 20: one past")
	assert.Contains(t, out, "6/6")

	var buf bytes.Buffer
	require.NoError(t, report.WriteResults(&buf, run))
	var back struct {
		Exploration report.Exploration `json:"exploration"`
	}
	require.NoError(t, json.Unmarshal(buf.Bytes(), &back))
	assert.Equal(t, run.Exploration.Schemas, back.Exploration.Schemas)
	assert.True(t, strings.Contains(buf.String(), `"boundaries_reached": 40`) || strings.Contains(buf.String(), `"boundaries_reached":40`))
}

// TestExploredTotals sums the schemas' rows.
func TestExploredTotals(t *testing.T) {
	got := report.ExploredTotals(exploredRun().Exploration.Schemas)
	assert.Equal(t, report.ExploredSchema{Schema: "total", Leaves: 18, LeavesSent: 17, Boundaries: 48, BoundariesReached: 46}, got)
}

// TestExploredNotOffered: an operation and a schema the target does not
// offer are listed as such in the HTML report and the results file, and
// count in no total.
func TestExploredNotOffered(t *testing.T) {
	run := exploredRun()
	x := run.Exploration
	x.Operations = append(x.Operations, report.ExploredOp{ID: "balance_transfers.create", Refused: 3, NotOffered: "every request was answered 404 or 405, as an unknown route"},
		report.ExploredOp{ID: "webhooks.get"})
	x.Schemas = append(x.Schemas, report.ExploredSchema{Schema: "balance_transfer_create", Leaves: 5, LeavesSent: 2, Boundaries: 20, BoundariesReached: 3, NotOffered: true})

	assert.Equal(t, report.ExploredSchema{Schema: "total", Leaves: 18, LeavesSent: 17, Boundaries: 48, BoundariesReached: 46}, report.ExploredTotals(x.Schemas))
	assert.Equal(t, report.ExploredOpTotals{Offered: 2, Accepted: 1, Refused: 1, NotOffered: []string{"balance_transfers.create"}}, report.CountExploredOps(x.Operations))

	out := string(writeHTML(t, run))
	assert.Contains(t, out, "2 operations offered: 1 answered a 2xx, 1 a 4xx; not offered, in no total: <code>balance_transfers.create</code>")
	assert.Contains(t, out, "not offered: every request was answered 404 or 405, as an unknown route")
	assert.Contains(t, out, "not offered: no operation the target offers takes it")
	assert.Contains(t, out, "<b>offered, total</b></td><td class=\"n\">17/18</td><td class=\"n\">46/48</td>")

	var buf bytes.Buffer
	require.NoError(t, report.WriteResults(&buf, run))
	var back struct {
		Exploration report.Exploration `json:"exploration"`
	}
	require.NoError(t, json.Unmarshal(buf.Bytes(), &back))
	assert.Equal(t, x.Operations, back.Exploration.Operations)
	assert.True(t, back.Exploration.Schemas[2].NotOffered)
}
