package explore

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/conform-kit/conform/validate"
)

// TestCardNumbersCoverTheContract: the numbers drawn as valid have every
// length 12 to 19 and pass the Luhn check; those drawn as refused break it.
func TestCardNumbersCoverTheContract(t *testing.T) {
	assert.True(t, validate.LuhnValid("4111111111111111"), "a known valid number")
	assert.False(t, validate.LuhnValid("4111111111111112"), "a known invalid number")
	lengths := map[int]bool{}
	refused := 0
	for seed := range uint64(3000) {
		g := &generator{c: newChoices(seed)}
		n, bad, _ := g.cardNumber()
		if bad {
			refused++
			assert.False(t, len(n) >= 12 && len(n) <= 19 && allDigits(n) && validate.LuhnValid(n), "refused number %s is valid", n)
			continue
		}
		assert.True(t, len(n) >= 12 && len(n) <= 19 && allDigits(n) && validate.LuhnValid(n), "number %s", n)
		lengths[len(n)] = true
	}
	for l := 12; l <= 19; l++ {
		assert.True(t, lengths[l], "no valid number of %d digits drawn", l)
	}
	assert.Positive(t, refused, "no refused number drawn")
}

// TestShrinkingReplaysDraws: a recorded stream replays the same draws, and
// one past its end is the simplest alternative.
func TestShrinkingReplaysDraws(t *testing.T) {
	c := newChoices(42)
	var got []int
	for _, n := range []int{5, 100, 3, 7} {
		got = append(got, c.draw(n))
	}
	r := replay(c.used())
	for i, n := range []int{5, 100, 3, 7} {
		assert.Equal(t, got[i], r.draw(n), "draw %d", i)
	}
	assert.Equal(t, 0, r.draw(9), "a draw past the recipe")
	lowered := replay([]uint32{9})
	assert.Equal(t, 2, lowered.draw(3), "a recorded draw is capped to the alternatives")
}
