package explore

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/conform-kit/conform/validate/judging"
)

// TestSequencesStartWithFixturesNotMade: where the target does not offer
// the extension making a kind, a sequence starts with the fixture of that
// kind (when both sides have it), so the operations the spec names on it
// are reached; where it offers the maker, or a side lacks the fixture,
// nothing is assumed.
func TestSequencesStartWithFixturesNotMade(t *testing.T) {
	both := func(string) bool { return true }
	con := testContract(t)
	j, err := judging.Default()
	require.NoError(t, err)
	for _, tc := range []struct {
		name      string
		offered   []string
		has       func(string) bool
		schedules []string
		amounts   []string
	}{
		{"every extension offered", []string{"subscription_schedules.create", "subscription_amounts.create"}, both, nil, nil},
		{"no schedule create", []string{"subscription_amounts.create"}, both, []string{fixtureSchedule}, nil},
		{"neither create", nil, both, []string{fixtureSchedule}, []string{fixtureAmount}},
		{"no fixture amount", nil, func(k string) bool { return k != "subscription_amount" }, []string{fixtureSchedule}, nil},
		{"no fixtures", nil, func(string) bool { return false }, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := &generator{c: newChoices(1), con: con, profile: j.DefaultProfile(), seq: "t", roles: map[string][]string{}, amounts: map[string]*amountState{}, deleted: map[string]bool{}, enrolled: map[string]bool{},
				offers: func(op string) bool { return !strings.HasSuffix(op, ".create") || slices.Contains(tc.offered, op) }}
			g.useFixtures(tc.has)
			assert.Equal(t, tc.schedules, g.roles["schedule"])
			assert.Equal(t, tc.amounts, g.roles["amount"])
			if tc.amounts != nil {
				assert.Equal(t, fixtureSchedule, g.amounts[fixtureAmount].schedule, "the fixture amount is the fixture schedule's")
				st := g.updateAmount()
				assert.True(t, st.Shared, "an update of the fixture amount is shared with the run's other sequences")
				assert.Contains(t, st.Path, "{fixture:subscription_schedule}/subscription_amounts/{fixture:subscription_amount}")
			}
			if tc.schedules != nil {
				st := g.enroll()
				assert.Equal(t, "/subscription/subscription_schedules/{fixture:subscription_schedule}/subscription_enrollments", st.Path)
				assert.False(t, st.Shared)
			}
		})
	}
}

// TestRefusedMerchantUpdateSetsItsState: a merchant user's update (which
// the contract refuses) comes after the platform's update to the other
// value, in the same action, so a refusal that was applied shows whatever
// the merchant held; the platform's own updates come alone.
func TestRefusedMerchantUpdateSetsItsState(t *testing.T) {
	con := testContract(t)
	j, err := judging.Default()
	require.NoError(t, err)
	var update []action
	for _, a := range allActions() {
		if a.op == "merchants.update" {
			update = append(update, a)
		}
	}
	require.Len(t, update, 1)
	refused, alone := 0, 0
	for seed := range uint64(400) {
		g := &generator{c: newChoices(seed), con: con, profile: j.DefaultProfile(), seq: "t", roles: map[string][]string{},
			deleted: map[string]bool{}, offers: func(string) bool { return true }}
		batch := g.next(update)
		require.NotEmpty(t, batch)
		last := batch[len(batch)-1]
		if last.User != userMerchant {
			alone++
			assert.Len(t, batch, 1, "seed %d: a platform update comes alone", seed)
			continue
		}
		assert.True(t, last.Refuse, "seed %d", seed)
		if !strings.Contains(last.Body, `"level_two_level_three_data_enabled":true`) && !strings.Contains(last.Body, `"level_two_level_three_data_enabled":false`) {
			continue // the flag mutated away: nothing to set first
		}
		refused++
		require.Len(t, batch, 2, "seed %d: the platform sets the state first", seed)
		set := batch[0]
		assert.Equal(t, "", set.User, "seed %d: as the platform", seed)
		assert.Equal(t, last.Path, set.Path)
		assert.False(t, set.Refuse)
		on := strings.Contains(last.Body, `"level_two_level_three_data_enabled":true`)
		assert.JSONEq(t, `{"level_two_level_three_data_enabled":`+map[bool]string{true: "false", false: "true"}[on]+`}`, set.Body, "seed %d: the other value", seed)
	}
	assert.Positive(t, refused)
	assert.Positive(t, alone)
}

// TestRefusedReadBackOnlyAfterTheTargetRefused: the read-back of "a
// refused request changes nothing" (SameState) follows a request the
// target refused, and only one: a request the contract forbids that the
// target accepted (the kit's expectation, not an answer) changed what it
// named, and a read-back judged as after a refusal would blame it for the
// change the target acknowledged.
func TestRefusedReadBackOnlyAfterTheTargetRefused(t *testing.T) {
	con := testContract(t)
	j, err := judging.Default()
	require.NoError(t, err)
	rename := Step{Op: "subscription_enrollments.update", Method: "PUT", Path: "/subscription/subscription_enrollments/{enrollment}", Of: "enrollment", Body: `{"nickname":" leading space"}`}
	for _, tc := range []struct {
		name     string
		refuse   bool // the contract forbids the request
		accepted bool // the target accepted it
		sameRead bool // a SameState read-back of the enrollment follows
	}{
		{"forbidden, refused", true, false, true},
		{"allowed, refused", false, false, true},
		{"forbidden, accepted", true, true, false},
		{"allowed, accepted", false, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Draws of 0: the next step reads back what the last one named.
			g := &generator{c: replay(nil), con: con, profile: j.DefaultProfile(), seq: "t", roles: map[string][]string{"enrollment": {"enrollment"}},
				amounts: map[string]*amountState{}, deleted: map[string]bool{}, enrolled: map[string]bool{}, auths: map[string]*authState{}, offers: func(string) bool { return true }}
			st := rename
			st.Refuse = tc.refuse
			g.observe(st, tc.accepted)
			if tc.sameRead {
				assert.Equal(t, "enrollment", g.refused)
			} else {
				assert.Empty(t, g.refused, "an accepted request is no refused request")
			}
			var acts []action
			for _, a := range allActions() {
				if a.op == "subscription_enrollments.get" {
					acts = append(acts, a)
				}
			}
			batch := g.next(acts)
			require.NotEmpty(t, batch)
			assert.Equal(t, "subscription_enrollments.get", batch[0].Op)
			assert.Equal(t, tc.sameRead, batch[0].SameState, "the read after it is judged as after a refusal")
		})
	}
}
