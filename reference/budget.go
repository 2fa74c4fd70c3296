package reference

import (
	"context"
	"fmt"
	"sync"
)

// DefaultBodyBudget is Config.BodyBudget's default: four JSON bodies of
// 1 MiB at once (each counts four times), or one 10 MiB upload beside small
// bodies. A hostile load of 1 MiB bodies from 64 connections then peaks
// under 128 MiB of RSS (BenchmarkInFlightMemory: 90 MiB; 96 MiB of budget
// let it reach 300 MiB, the garbage of 24 decoded bodies at a time doubled
// by the collector's headroom), while a small body takes little of it.
const DefaultBodyBudget = 16 << 20

// bodyBudget bounds the bytes of request bodies held at once: a request
// with a body acquires its declared size (or its limit, when it declares
// none) before reading it and releases it when answered, waiting in arrival
// order while the budget is spent. A burst of large bodies then costs the
// budget, not the burst's sum. A zero budget bounds nothing.
type bodyBudget struct {
	mu      sync.Mutex
	total   int64
	free    int64
	waiting []*budgetWaiter
}

type budgetWaiter struct {
	n     int64
	ready chan struct{}
}

func newBodyBudget(total int64) *bodyBudget {
	return &bodyBudget{total: total, free: total}
}

// acquire takes n bytes (at most the whole budget), waiting until they are
// free or ctx is done. It returns the bytes to release.
func (b *bodyBudget) acquire(ctx context.Context, n int64) (int64, error) {
	if b.total <= 0 || n <= 0 {
		return 0, nil
	}
	n = min(n, b.total)
	b.mu.Lock()
	if len(b.waiting) == 0 && b.free >= n {
		b.free -= n
		b.mu.Unlock()
		return n, nil
	}
	w := &budgetWaiter{n: n, ready: make(chan struct{})}
	b.waiting = append(b.waiting, w)
	b.mu.Unlock()
	select {
	case <-w.ready:
		return n, nil
	case <-ctx.Done():
		b.mu.Lock()
		for i, x := range b.waiting {
			if x == w {
				b.waiting = append(b.waiting[:i], b.waiting[i+1:]...)
				b.grant()
				b.mu.Unlock()
				return 0, fmt.Errorf("wait to read the request body: %w", ctx.Err())
			}
		}
		b.mu.Unlock()
		b.release(n) // granted meanwhile
		return 0, fmt.Errorf("wait to read the request body: %w", ctx.Err())
	}
}

// release returns n bytes and wakes the waiters they satisfy, in order.
func (b *bodyBudget) release(n int64) {
	if n <= 0 {
		return
	}
	b.mu.Lock()
	b.free += n
	b.grant()
	b.mu.Unlock()
}

// grant wakes waiters from the front while they fit; callers hold mu.
func (b *bodyBudget) grant() {
	for len(b.waiting) > 0 && b.waiting[0].n <= b.free {
		w := b.waiting[0]
		b.waiting = b.waiting[1:]
		b.free -= w.n
		close(w.ready)
	}
}
