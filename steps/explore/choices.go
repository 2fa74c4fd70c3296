package explore

import "math/rand/v2"

// choices is the stream of decisions a sequence is generated from. Every
// draw is an index into an ordered list of alternatives, simplest first, so
// a smaller number is always a simpler request. Generating records the
// draws; replaying reads them back (a draw past the end is 0, the simplest
// alternative), which is what the shrinker edits: it deletes spans and
// lowers numbers, and regenerates the sequence from what is left.
type choices struct {
	buf  []uint32
	pos  int
	rng  *rand.Rand // nil: replay buf only
	mark []span     // where each action's draws start and end
}

// span is the draws of one action.
type span struct{ start, end int }

// newChoices draws fresh decisions from a seeded generator.
func newChoices(seed uint64) *choices {
	return &choices{rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
}

// replay reads back recorded decisions.
func replay(buf []uint32) *choices { return &choices{buf: append([]uint32(nil), buf...)} }

// draw returns an index in [0, n).
func (c *choices) draw(n int) int {
	if n <= 1 {
		return 0
	}
	if c.pos < len(c.buf) {
		v := int(c.buf[c.pos])
		c.pos++
		return min(v, n-1)
	}
	v := 0
	if c.rng != nil {
		v = c.rng.IntN(n)
	}
	c.buf = append(c.buf, uint32(v))
	c.pos++
	return v
}

// bias draws index 0 with probability about p percent, otherwise any index
// of [0, n): the simplest alternative stays common while the rest is reached.
func (c *choices) bias(n, p int) int {
	if c.draw(100) < p {
		return 0
	}
	return c.draw(n)
}

// pick returns one of the alternatives, the first being the simplest.
func pick[T any](c *choices, alts ...T) T { return alts[c.draw(len(alts))] }

// begin and end bracket the draws of one action.
func (c *choices) begin() { c.mark = append(c.mark, span{start: c.pos}) }
func (c *choices) end()   { c.mark[len(c.mark)-1].end = c.pos }

// used is the draws consumed, the sequence's whole recipe.
func (c *choices) used() []uint32 { return append([]uint32(nil), c.buf[:min(c.pos, len(c.buf))]...) }
