package explore

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMutableFixturesFromTheUpdateSchema: the fixtures sequences share and
// change are read from the contract: each merchant's read and update, and
// the update schema's one member, set by a body of exactly that member.
func TestMutableFixturesFromTheUpdateSchema(t *testing.T) {
	c := testContract(t)
	sf := newSharedFixtures(c.v, c)
	require.Len(t, sf.list, 2)
	for _, tc := range []struct {
		role, key, path string
	}{
		{"merchant", "merchant", "/merchants/{fixture:merchant}"},
		{"plain merchant", "plain_merchant", "/merchants/{fixture:plain_merchant}"},
	} {
		t.Run(tc.role, func(t *testing.T) {
			m, ok := sf.byRole(tc.role)
			require.True(t, ok)
			assert.Equal(t, tc.key, m.key)
			assert.Equal(t, tc.path, m.path)
			assert.Equal(t, "merchants.get", m.get)
			assert.Equal(t, "merchants.update", m.update)
			assert.Equal(t, []string{"level_two_level_three_data_enabled"}, m.fields, "the members of merchant_update")
			set := m.updateStep(map[string]any{"level_two_level_three_data_enabled": true})
			assert.Equal(t, Step{Op: "merchants.update", Method: "PUT", Path: tc.path, Body: `{"level_two_level_three_data_enabled":true}`}, set)
			vals, all := m.fieldsOf(map[string]any{"id": "MU1"}, true)
			assert.False(t, all)
			assert.Equal(t, map[string]any{"level_two_level_three_data_enabled": false}, vals, "a read without the flag: the flag off")
		})
	}
	assert.True(t, sf.isUpdate(Step{Op: "merchants.update"}))
	assert.False(t, sf.isUpdate(Step{Op: "webhooks.update"}))
	assert.True(t, sf.bound(Step{Op: "transfers.create", Body: `{"additional_purchase_data":{}}`}), "a payment with Level 2/3 data depends on its merchant")
	assert.False(t, sf.bound(Step{Op: "transfers.create", Body: `{"amount":1}`}))
}

// TestResyncReadsTheNamedMerchant: a payment naming a merchant (by id or
// identity) resyncs that merchant only; a capture, naming none, both.
func TestResyncReadsTheNamedMerchant(t *testing.T) {
	for _, tc := range []struct {
		body            string
		merchant, plain bool
	}{
		{`{"merchant":"{fixture:merchant}"}`, true, false},
		{`{"merchant_identity":"{fixture:merchant_identity}"}`, true, false},
		{`{"merchant":"{fixture:plain_merchant}"}`, false, true},
		{`{"merchant_identity":"{fixture:plain_merchant_identity}"}`, false, true},
		{`{"amount":5}`, false, false},
	} {
		t.Run(tc.body, func(t *testing.T) {
			assert.Equal(t, tc.merchant, namesFixture(tc.body, "merchant"))
			assert.Equal(t, tc.plain, namesFixture(tc.body, "plain_merchant"))
		})
	}
}

// TestStartStateAndRefusedUpdate: a trace's prelude gives the state a
// replay starts from; a refused update that changed the flag is named.
func TestStartStateAndRefusedUpdate(t *testing.T) {
	c := testContract(t)
	sf := newSharedFixtures(c.v, c)
	read := func(role string, on bool) Exchange {
		m, _ := sf.byRole(role)
		return Exchange{Step: Step{Op: "merchants.get", Method: "GET", Path: m.path, Of: role}, Page: true, Status: 200,
			doc: map[string]any{"level_two_level_three_data_enabled": on}}
	}
	trace := []Exchange{read("merchant", true), read("plain merchant", false), {Step: Step{Op: "transfers.create"}, Status: 201}, read("merchant", false)}
	assert.Equal(t, map[string]map[string]any{
		"merchant":       {"level_two_level_three_data_enabled": true},
		"plain_merchant": {"level_two_level_three_data_enabled": false},
	}, sf.startState(trace), "the prelude only")

	st := Step{Op: "merchants.update", Of: "plain merchant", Refuse: true}
	msg, want, got, _ := sf.refusedUpdateChanged(st, read("plain merchant", false), read("plain merchant", true))
	assert.Equal(t, "a refused merchant update changed level_two_level_three_data_enabled of the plain merchant: false before, true after", msg)
	assert.Equal(t, "level_two_level_three_data_enabled = false", want)
	assert.Equal(t, "true", got)
	msg, _, _, _ = sf.refusedUpdateChanged(st, read("plain merchant", false), read("plain merchant", false))
	assert.Empty(t, msg)
}
