package explore_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/conform-kit/conform/steps/explore"
	"github.com/conform-kit/conform/steps/explore/suite"
	"github.com/conform-kit/conform/steps/report"
)

// TestUnitsMergeAsOneRun: the sequences of a seed run as two units find, by
// group, what they find as one unit, whatever the workers; a finding's
// record reads back as the same finding; merged coverage sums the answers
// and unites the leaves.
func TestUnitsMergeAsOneRun(t *testing.T) {
	cfg := serveFaults(t, "bin-wrong") // a card's bin read back wrong: nearly every sequence meets it
	opts := explore.Options{Target: suite.Target(cfg), Model: model, Seed: 11, MaxSteps: 6, ShrinkRuns: 40, Workers: 4}
	ctx := context.Background()
	whole, err := explore.RunUnit(ctx, opts, 0, 12)
	require.NoError(t, err)
	require.NotEmpty(t, whole.Findings, "bin-wrong within 12 sequences of seed 11")

	one := opts
	one.Workers = 1
	a, err := explore.RunUnit(ctx, one, 0, 6)
	require.NoError(t, err)
	b, err := explore.RunUnit(ctx, opts, 6, 6)
	require.NoError(t, err)

	counts := func(fs ...[]explore.Finding) map[string]int {
		out := map[string]int{}
		for _, list := range fs {
			for _, f := range list {
				out[f.Group()] += f.Occurrences
			}
		}
		return out
	}
	assert.Equal(t, counts(whole.Findings), counts(a.Findings, b.Findings), "groups and their sequences, one unit or two")
	for _, f := range whole.Findings {
		assert.Equal(t, report.Fail, f.Outcome)
		assert.NotEmpty(t, f.Gherkin)
		raw, err := json.Marshal(f.Record())
		require.NoError(t, err)
		var rec explore.Record
		require.NoError(t, json.Unmarshal(raw, &rec))
		back := rec.Finding()
		assert.Equal(t, f.Group(), back.Group(), "a stored finding keeps its group")
		assert.Equal(t, f.Record(), back.Record(), "and every field a report reads")
	}

	var merged explore.Coverage
	merged.Merge(a.Coverage)
	merged.Merge(b.Coverage)
	sum := func(c explore.Coverage) int {
		n := 0
		for _, o := range c.Ops {
			n += o.Accepted + o.Refused + o.Errored
		}
		return n
	}
	assert.Equal(t, sum(a.Coverage)+sum(b.Coverage), sum(merged), "answers add up")
	for schema, leaves := range a.Coverage.Leaves {
		assert.Subset(t, merged.Leaves[schema], leaves, "leaves unite")
	}
	res, err := explore.Merged(opts, whole.Findings, whole.Coverage, 12, whole.Requests, 0)
	require.NoError(t, err)
	assert.NotEmpty(t, res.Coverage)
	assert.Equal(t, 12, res.Sequences)
}
