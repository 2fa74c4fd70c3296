package explore

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/conform-kit/conform/validate"
	"github.com/conform-kit/conform/validate/judging"
)

// captureGenerator is a generator whose sequence holds a card and the
// authorizations auths.
func captureGenerator(t *testing.T, c *choices, auths map[string]*authState) *generator {
	t.Helper()
	j, err := judging.Default()
	require.NoError(t, err)
	g := &generator{c: c, con: testContract(t), profile: j.DefaultProfile(), seq: "t", roles: map[string][]string{"card": {"card"}},
		auths: map[string]*authState{}, deleted: map[string]bool{}, offers: func(string) bool { return true }}
	for _, r := range []string{"authorization", "authorization b"} {
		if a, ok := auths[r]; ok {
			g.roles["authorization"] = append(g.roles["authorization"], r)
			g.auths[r] = a
		}
	}
	return g
}

// TestCaptureDrawnValid: two captures of three (the first draw 0 or 1, 0
// the simplest) are meant to be accepted: of an authorization not captured
// yet, within what is left, a fee within the amount captured or none, no
// Level 2/3 data for the merchant not enabled, within the tax exemption
// with the authorization's data, no leaf mutated; where every
// authorization is captured, the action authorizes instead. The others
// still ask the rules' questions (over the amount, fees, a second capture).
func TestCaptureDrawnValid(t *testing.T) {
	exempt := map[string]any{"tax_exempt": true}
	for _, tc := range []struct {
		name  string
		auths map[string]*authState
		want  string // the role a valid capture names, "" for an authorization instead
	}{
		{"one authorization", map[string]*authState{"authorization": {amount: 1000}}, "authorization"},
		{"the plain merchant's", map[string]*authState{"authorization": {amount: 1000, plain: true}}, "authorization"},
		{"tax exempt", map[string]*authState{"authorization": {amount: 5000, data: exempt}}, "authorization"},
		{"the one not captured", map[string]*authState{"authorization": {amount: 1000, data: exempt}, "authorization b": {amount: 700, captured: 700, captures: 1}}, "authorization"},
		{"every one captured", map[string]*authState{"authorization": {amount: 1000, captured: 10, captures: 1}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			simplest := captureGenerator(t, replay(nil), tc.auths).capture()
			valid, refused := 0, 0
			for seed := range uint64(300) {
				g := captureGenerator(t, newChoices(seed), tc.auths)
				st := g.capture()
				if g.c.buf[0] >= 2 {
					if st.Refuse {
						refused++
					}
					continue
				}
				valid++
				if tc.want == "" {
					assert.Equal(t, "authorizations.create", st.Op, "seed %d: authorizes instead", seed)
					continue
				}
				require.Equal(t, "authorizations.capture", st.Op, "seed %d", seed)
				assert.Equal(t, tc.want, st.Of, "seed %d", seed)
				assert.False(t, st.Refuse, "seed %d: %s: %s", seed, st.Rule, st.Body)
				doc, _ := decodeBody(st.Body).(map[string]any)
				a := tc.auths[st.Of]
				amt, _ := intAt(doc, "capture_amount")
				assert.LessOrEqual(t, amt, a.amount-a.captured, "seed %d: within what is left", seed)
				if fee, ok := intAt(doc, "fee"); ok {
					assert.LessOrEqual(t, fee, amt, "seed %d: the fee within the amount captured", seed)
				}
				data, sent := doc["additional_purchase_data"].(map[string]any)
				if a.plain {
					assert.False(t, sent, "seed %d: no Level 2/3 data for the merchant not enabled", seed)
				} else if sent {
					assert.NoError(t, validate.CheckTaxExempt(mergedPurchase(a, data)), "seed %d", seed)
				}
			}
			assert.Positive(t, valid)
			assert.Positive(t, refused, "the other captures still ask the rules' questions")
			if tc.want == "" {
				assert.Equal(t, "authorizations.create", simplest.Op)
				return
			}
			assert.False(t, simplest.Refuse, "the simplest draws are a valid capture: %s", simplest.Rule)
			assert.JSONEq(t, `{"capture_amount":`+map[bool]string{true: "1000", false: "5000"}[tc.auths[tc.want].amount == 1000]+`}`, simplest.Body,
				"the simplest capture: all of it, no fee, no data")
		})
	}
}

// TestCaptureTransferFetched: after a capture accepted on both sides, the
// transfer its answer names is remembered on each side as the capture
// transfer of its authorization, and fetching it (after the authorization
// read back) is queued as a question; a read of a captured authorization
// queues the fetch alone, one of an authorization not captured nothing.
func TestCaptureTransferFetched(t *testing.T) {
	for _, tc := range []struct {
		name, auth, role string
	}{
		{"the first authorization", "authorization", "capture transfer"},
		{"a later one", "authorization c", "capture transfer c"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.role, transferRole(tc.auth))
			assert.Equal(t, "capture transfer", kindOf(tc.role))
			target, model := newSide(nil, "", Target{}, ""), newSide(nil, "", Target{}, "")
			target.docs[tc.auth] = map[string]any{"transfer": "TRtarget"}
			model.docs[tc.auth] = map[string]any{"transfer": "TRmodel"}
			bindCaptureTransfer(tc.auth, target, model)
			assert.Equal(t, "/transfers/TRtarget", target.expand("/transfers/{"+tc.role+"}"))
			assert.Equal(t, "/transfers/TRmodel", model.expand("/transfers/{"+tc.role+"}"))

			g := captureGenerator(t, replay(nil), nil)
			g.roles["authorization"] = []string{tc.auth}
			g.auths[tc.auth] = &authState{amount: 1000}
			g.askCaptureTransfer(tc.auth, false)
			assert.Empty(t, g.asks, "not captured: nothing to fetch")
			g.pendingCapture = 1000
			g.observe(Step{Op: "authorizations.capture", Method: "PUT", Path: "/authorizations/{" + tc.auth + "}", Of: tc.auth}, true)
			require.NotEmpty(t, g.asks)
			q := g.asks[len(g.asks)-1]
			require.Len(t, q, 2)
			assert.Equal(t, "authorizations.get", q[0].Op)
			assert.Equal(t, Step{Op: "transfers.get", Method: "GET", Path: "/transfers/{" + tc.role + "}", Of: tc.role}, q[1])
			g.observe(q[0], true)
			require.NotEmpty(t, g.asks)
			assert.Equal(t, []Step{q[1]}, g.asks[len(g.asks)-1], "a read of the captured authorization queues the fetch")
		})
	}
}

// TestCaptureProbesReachLevel3: a capture's probe (every body mutated)
// sends the capture form's Level 2/3 data, mutated or not, for either
// merchant: its schema refuses it before any merchant's processing is
// asked. Outside probes, the merchant not enabled gets none.
func TestCaptureProbesReachLevel3(t *testing.T) {
	for _, tc := range []struct {
		name  string
		plain bool
	}{
		{"the merchant enabled", false},
		{"the merchant not enabled", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			auths := map[string]*authState{"authorization": {amount: 1000, plain: tc.plain}}
			probes, plainSteps := 0, 0
			for seed := range uint64(200) {
				g := captureGenerator(t, newChoices(seed), auths)
				g.force = true
				if st := g.capture(); strings.Contains(st.Body, "additional_purchase_data") {
					probes++
				}
				g = captureGenerator(t, newChoices(seed), auths)
				if st := g.capture(); tc.plain && strings.Contains(st.Body, "additional_purchase_data") {
					plainSteps++
				}
			}
			assert.Greater(t, probes, 100, "probes sending Level 2/3 data")
			assert.Zero(t, plainSteps, "no Level 2/3 data for the merchant not enabled outside probes")
		})
	}
}

// TestProbeUnderAbsentFixMutates: a probe whose mutation lands under a
// parent its fix leaves out (a payment's Level 2/3 data drawn absent)
// draws that parent anyway, to hold the mutation; the absent marker, set
// there, was {}, a body the schema takes, and the probe was lost.
func TestProbeUnderAbsentFixMutates(t *testing.T) {
	con := testContract(t)
	for _, tc := range []struct {
		op, path string
	}{
		{"authorizations.create", "additional_purchase_data.sales_tax"},
		{"authorizations.capture", "additional_purchase_data.item_data[].quantity"},
		{"transfers.create", "additional_purchase_data.order_date.year"},
	} {
		t.Run(tc.op, func(t *testing.T) {
			s := con.schemas[con.ops[tc.op]]
			require.NotNil(t, s)
			g := captureGenerator(t, newChoices(1), nil)
			fixes := map[string]func() any{"additional_purchase_data": fixed(absent)}
			doc := map[string]any{}
			var node *shape
			for _, n := range s.all {
				if n.Path == tc.path {
					node = n
				}
			}
			require.NotNil(t, node, tc.path)
			g.setAt(s, doc, tc.path, g.mutant(node), fixes, firstItem)
			data, ok := doc["additional_purchase_data"].(map[string]any)
			require.True(t, ok, "the parent drawn: %v", doc)
			assert.NotEmpty(t, data)
		})
	}
}
