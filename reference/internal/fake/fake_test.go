package fake_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/conform-kit/conform/reference/internal/fake"
)

func TestClockMovesOnlyWhenTold(t *testing.T) {
	c := fake.NewClock()
	start := c.Now()
	assert.Equal(t, start, c.Now())
	c.Advance(90 * time.Second)
	assert.Equal(t, start.Add(90*time.Second), c.Now())
}

func TestCounterIDsCountEachSourceFromOne(t *testing.T) {
	ids, other := fake.CounterIDs(), fake.CounterIDs()
	assert.Equal(t, "TR0000000000000000000001", ids("TR"))
	assert.Equal(t, "AU0000000000000000000002", ids("AU"))
	assert.Equal(t, "TR0000000000000000000001", other("TR"), "each source counts on its own")
}
