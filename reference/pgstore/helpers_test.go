package pgstore

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// clock is a settable test clock.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock() *clock {
	return &clock{now: time.Date(2026, 3, 14, 15, 9, 26, 535000000, time.UTC)}
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// counterIDs returns an id source producing prefix + a 22-digit counter.
func counterIDs() func(string) string {
	var n atomic.Int64
	return func(prefix string) string { return fmt.Sprintf("%s%022d", prefix, n.Add(1)) }
}

// openStore opens the store on dsn, closed when the test ends.
func openStore(t *testing.T, dsn string) *Store {
	t.Helper()
	pg, err := Open(context.Background(), dsn)
	require.NoError(t, err)
	t.Cleanup(pg.Close)
	return pg
}
