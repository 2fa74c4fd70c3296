package explore

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/conform-kit/conform/validate/judging"
)

// TestReadBackBasesAsTheSpecStates: what a new authorization and an
// enrollment update must show rests on the sentence that states it, or on
// resource_values where the spec is silent: a new authorization's state
// SUCCEEDED (§2.1 "observed", §3.3 "Transitions: not shown") is assumed,
// its transfer null until captured is §2.1's; an enrollment update's
// nickname read back is assumed (§4.5 "The fields that may be updated: not
// shown"), what the update answered being what later reads show is §4.5's.
func TestReadBackBasesAsTheSpecStates(t *testing.T) {
	con := testContract(t)
	j, err := judging.Default()
	require.NoError(t, err)
	newGen := func(seed uint64) *generator {
		return &generator{c: newChoices(seed), con: con, profile: j.DefaultProfile(), seq: "t", roles: map[string][]string{"card": {"card"}, "enrollment": {"enrollment"}},
			amounts: map[string]*amountState{}, deleted: map[string]bool{}, enrolled: map[string]bool{}, auths: map[string]*authState{}, offers: func(string) bool { return true }}
	}
	basisAt := func(fields []expectField, path string) (judging.Basis, bool) {
		for _, e := range fields {
			if e.Path == path {
				return e.Basis, true
			}
		}
		return judging.Basis{}, false
	}
	tests := []struct {
		name     string
		step     func(g *generator) Step
		answered bool // the field is taken from the answer for later reads
		path     string
		want     judging.Basis
	}{
		{"a new authorization's state", (*generator).authorize, false, "state", judging.Basis{Assumed: keyFieldNotShown, Clauses: []string{"2.1", "3.3"}}},
		{"a new authorization's transfer", (*generator).authorize, false, "transfer", judging.Basis{Clauses: []string{"2.1"}}},
		{"an enrollment update's nickname sent", (*generator).updateEnrollment, false, "nickname", judging.Basis{Assumed: keyFieldNotShown, Clauses: []string{"2.6", "4.5"}}},
		{"an enrollment update's nickname answered", (*generator).updateEnrollment, true, "nickname", judging.Basis{Clauses: []string{"2.6", "4.5"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			found := false
			for seed := uint64(1); seed < 200 && !found; seed++ {
				st := tt.step(newGen(seed))
				fields := st.Expect
				if tt.answered {
					fields = st.Answered
				}
				b, ok := basisAt(fields, tt.path)
				if !ok {
					continue // refused, or the field not sent: another draw
				}
				found = true
				if b.Normative() {
					assert.NotEmpty(t, b.Says, "a normative read-back says the spec's words")
				}
				b.Says = ""
				assert.Equal(t, tt.want, b)
			}
			require.True(t, found, "no draw expects %s", tt.path)
		})
	}
}

// TestAnsweredFieldsReadLater: a field the step takes from the answer is
// expected on later reads with the value the target answered.
func TestAnsweredFieldsReadLater(t *testing.T) {
	st := Step{Answered: []expectField{{Path: "nickname", Check: checkReadBack, Basis: basisOf("2.6", "4.5")}, {Path: "tags.a"}}}
	got := answered(st, map[string]any{"nickname": "new name", "tags": map[string]any{}})
	require.Len(t, got, 1, "only what the answer shows")
	assert.Equal(t, "new name", got[0].Value)
	assert.True(t, got[0].Basis.Normative())
}

// TestLevel3RefusalCitesItsSentences: Level 2/3 data for a merchant not
// enabled is refused on §1 and §7, which state it (§2.13 describes the
// data, not the rule).
func TestLevel3RefusalCitesItsSentences(t *testing.T) {
	con := testContract(t)
	j, err := judging.Default()
	require.NoError(t, err)
	const rule = "Level 2/3 data for a merchant not enabled is refused"
	for _, tc := range []struct {
		name string
		make func(g *generator) Step
	}{
		{"an authorization", (*generator).authorize},
		{"a sale", (*generator).sale},
	} {
		t.Run(tc.name, func(t *testing.T) {
			found := false
			for seed := uint64(1); seed < 2000 && !found; seed++ {
				g := &generator{c: newChoices(seed), con: con, profile: j.DefaultProfile(), seq: "t", roles: map[string][]string{"card": {"card"}},
					amounts: map[string]*amountState{}, deleted: map[string]bool{}, enrolled: map[string]bool{}, auths: map[string]*authState{}, offers: func(string) bool { return true }}
				st := tc.make(g)
				if st.Rule != rule {
					continue
				}
				found = true
				assert.Contains(t, st.Basis.Says, "must be enabled for Level 2/Level 3 before such data is used")
				b := st.Basis
				b.Says = ""
				assert.Equal(t, judging.Basis{Clauses: []string{"1", "7"}}, b)
				assert.True(t, st.StateRule, "a state rule: the body's rules come first")
			}
			require.True(t, found, "no draw sends Level 2/3 data for the merchant not enabled")
		})
	}
}

// TestRefusedRequestBlamedOnlyForItsChange: the read after a refused
// request blames it for a field it sent only where the field reads as it
// sent it; one it sent that reads neither as before nor as sent is an
// earlier write the target acknowledged and did not keep (a rename
// answered with the new nickname, stored as the old), which the read-back
// check judges. A field a request changes without sending it (a
// transfer) is the refused request's whatever it reads.
func TestRefusedRequestBlamedOnlyForItsChange(t *testing.T) {
	r, err := newRunner(Options{Target: Target{URL: "http://127.0.0.1:1"}, Model: referenceModel})
	require.NoError(t, err)
	for _, tc := range []struct {
		name        string
		of          string
		before, now map[string]any
		refusedBody string
		blamed      string // the field the finding names, "" for none
	}{
		{"the nickname sent reads back", "enrollment", map[string]any{"nickname": "explore"}, map[string]any{"nickname": "007"},
			`{"nickname":"007","started_at":" 4209-01-00T38:20:21.1245Z"}`, "nickname"},
		{"an acknowledged rename not kept", "enrollment", map[string]any{"nickname": "explore"}, map[string]any{"nickname": ""},
			`{"nickname":"007","started_at":" 4209-01-00T38:20:21.1245Z"}`, ""},
		{"a nickname not sent", "enrollment", map[string]any{"nickname": "explore"}, map[string]any{"nickname": ""},
			`{"started_at":" 4209-01-00T38:20:21.1245Z"}`, ""},
		{"nothing changed", "enrollment", map[string]any{"nickname": "explore"}, map[string]any{"nickname": "explore"},
			`{"nickname":"007"}`, ""},
		{"a webhook disabled as sent", "webhook", map[string]any{"enabled": true}, map[string]any{"enabled": false},
			`{"enabled":false,"url":"http://exa mple.com"}`, "enabled"},
		{"a transfer no body sets", "authorization", map[string]any{"transfer": nil}, map[string]any{"transfer": "TR1"},
			`{"capture_amount":999999}`, "transfer"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			target := newSide(nil, "http://127.0.0.1:1", Target{}, "")
			target.docs[tc.of] = tc.before
			get := map[string]string{"enrollment": "subscription_enrollments.get", "webhook": "webhooks.get", "authorization": "authorizations.get"}[tc.of]
			st := Step{Op: get, Method: "GET", Of: tc.of, SameState: true, RefusedBody: tc.refusedBody}
			var v verdicts
			f := r.checkUnchanged(st, target, tc.now, &v)
			if f == nil {
				f = v.warn
			}
			if tc.blamed == "" {
				assert.Nil(t, f, "no refused request is blamed")
				return
			}
			require.NotNil(t, f, "the refused request is blamed")
			assert.Equal(t, checkChangesNone, f.Check)
			assert.Contains(t, f.Message, "a refused request changed "+tc.blamed)
		})
	}
}
