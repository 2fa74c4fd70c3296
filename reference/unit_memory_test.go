package reference

import (
	"context"
	"testing"

	"github.com/conform-kit/conform/reference/ledger"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestServerUnitsAllocateNothing: a unit of work the Server runs on the
// in-memory store (Server.view, Server.update) allocates nothing of its
// own, so the closure a handler hands it and the record it copies out stay
// on the handler's stack; through the seam's interface each would be on the
// heap.
func TestServerUnitsAllocateNothing(t *testing.T) {
	h := newHarness(t)
	card := h.card()
	u, ok := h.srv.units.User(context.Background(), h.platform().Username, h.clock.Now())
	require.True(t, ok)
	ctx := context.Background()
	var got ledger.PaymentInstrument
	read := func(t ledger.Tx) error {
		var err error
		got, err = t.Cards().Get(card)
		return err
	}
	allocs := map[string]float64{
		"view": testing.AllocsPerRun(200, func() {
			if err := h.srv.view(ctx, u.App, func(t ledger.Tx) error { return read(t) }); err != nil {
				panic(err)
			}
		}),
		"update": testing.AllocsPerRun(200, func() {
			if err := h.srv.update(ctx, u.App, func(t ledger.Tx) error { return read(t) }); err != nil {
				panic(err)
			}
		}),
	}
	assert.Equal(t, card, got.ID)
	assert.Equal(t, map[string]float64{"view": 0, "update": 0}, allocs, "allocations a unit")
}
