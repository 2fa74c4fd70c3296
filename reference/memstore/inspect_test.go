package memstore

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/conform-kit/conform/reference/ledger"
)

// TestCheckIndexesFindsAStaleIndex: a listed record whose amount changes
// without its list being told is reported; told, it is not.
func TestCheckIndexesFindsAStaleIndex(t *testing.T) {
	st, _, app, _ := storeFixture(t)
	require.NoError(t, st.CheckIndexes(), "a freshly seeded store")
	st.mu.Lock()
	bt := st.apps[app].balanceTransfers.items[0]
	bt.Amount++
	st.mu.Unlock()
	assert.Error(t, st.CheckIndexes(), "an amount changed behind the index's back")
	st.mu.Lock()
	st.apps[app].balanceTransfers.touch(bt)
	st.mu.Unlock()
	assert.NoError(t, st.CheckIndexes(), "the change told to the list")
}

// TestCountsAndRetentionOf: the counts follow a create, and the quota
// bookkeeping counts the resources and keys a client created.
func TestCountsAndRetentionOf(t *testing.T) {
	now := time.Date(2026, 3, 14, 15, 9, 26, 535000000, time.UTC)
	st, fx := Open(ledger.StoreEnv{Clock: func() time.Time { return now }, NewID: counterIDs(), Seed: 1,
		Limits: ledger.Limits{MaxAge: time.Hour}.WithDefaults()})
	u, ok := st.User(t.Context(), fx.Credentials.Platform.Username, now)
	require.True(t, ok)
	before := st.Counts()
	assert.Equal(t, 2, before["apps"], "seeded applications")
	assert.Equal(t, Retention{}, st.RetentionOf(u.App), "seeded fixtures count against no quota")

	_, owner, err := st.Claim(t.Context(), ledger.IdemKey{App: u.App, Op: "POST /payment_instruments", ID: "k"}, [32]byte{}, now)
	require.NoError(t, err)
	require.True(t, owner)
	require.NoError(t, st.Update(t.Context(), u.App, func(tx ledger.Tx) error { // CreateCard admits: a client's create
		_, err := ledger.CreateCard(tx, ledger.CardCreate{Number: "4111111111111111", ExpirationMonth: 1, ExpirationYear: 2099, Identity: fx.Fixtures.BuyerIdentity})
		return err
	}))
	after := st.Counts()
	assert.Equal(t, before["cards"]+1, after["cards"], "cards after a create")
	assert.Equal(t, before["idem"]+1, after["idem"], "idempotency keys after a claim")
	assert.Equal(t, Retention{Live: 1, Queue: 1, IdemKeys: 1, IdemOrder: 1, Idem: 1}, st.RetentionOf(u.App), "after a create and a claim")
}
