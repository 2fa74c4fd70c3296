// Package fake holds the deterministic clock and id source the tests of
// the reference and its stores run on: a clock that moves only when told
// and ids that count up, so two runs of a test see the same times and ids.
package fake

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// Clock is a settable clock, safe for concurrent use.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// NewClock is a Clock at a fixed instant (2026-03-14 15:09:26.535 UTC).
func NewClock() *Clock {
	return &Clock{now: time.Date(2026, 3, 14, 15, 9, 26, 535000000, time.UTC)}
}

// Now is the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock on by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// CounterIDs is an id source of prefix and a 22-digit counter.
func CounterIDs() func(string) string {
	var n atomic.Int64
	return func(prefix string) string { return fmt.Sprintf("%s%022d", prefix, n.Add(1)) }
}
