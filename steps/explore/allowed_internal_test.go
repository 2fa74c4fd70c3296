package explore

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/conform-kit/conform/validate/judging"
)

// TestStatedLeavesAndForms: the leaves whose bound a sentence states are
// told from those only an assumed rule bounds, and a commodity code in
// the stated form is named as allowed in every item, a currency's
// letters (no stated length) never.
func TestStatedLeavesAndForms(t *testing.T) {
	j, err := judging.Default()
	require.NoError(t, err)
	c, err := newContract(j, 0)
	require.NoError(t, err)
	stated := map[string]bool{}
	for _, n := range c.schemas["transfer_create"].all {
		if n.bounded {
			stated[n.Path] = n.stated
		}
	}
	for path, want := range map[string]bool{
		"additional_purchase_data.item_data[].quantity":       true,  // §8: greater than 0
		"additional_purchase_data.item_data[].commodity_code": true,  // §2.13, §8
		"additional_purchase_data.item_data[].cost_per_unit":  false, // a negative amount refused: assumed
		"amount": false,
	} {
		got, ok := stated[path]
		require.True(t, ok, path)
		assert.Equal(t, want, got, path)
	}
	var doc map[string]any
	require.NoError(t, json.Unmarshal([]byte(`{"source":"{card}","merchant":"{fixture:merchant}","amount":100,"currency":"USD",
		"additional_purchase_data":{"item_data":[{"commodity_code":"123"},{"commodity_code":"1234567"},{"commodity_code":"123456"}]}}`), &doc))
	forms := c.statedForms("transfers.create", doc)
	require.Len(t, forms, 1, "commodity_code once, whichever item holds it: %v", forms)
	assert.Equal(t, "commodity_code", forms[0].Field)
	assert.Contains(t, forms[0].Basis.Says, "3, 5, 7 or 11 digits")
	require.NoError(t, json.Unmarshal([]byte(`{"amount":100,"currency":"USD","additional_purchase_data":{"item_data":[{"commodity_code":"123456"}]}}`), &doc))
	assert.Empty(t, c.statedForms("transfers.create", doc), "a code of 6 digits is no stated form; a currency has no stated length")
}
