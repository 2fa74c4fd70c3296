package steps

import (
	"context"
	"errors"
	"time"
)

// errNotYet tells poll to try again.
var errNotYet = errors.New("not yet")

// poll calls try until it returns something other than errNotYet, waiting
// between attempts on a ticker and giving up at the configured deadline.
func (s *scenario) poll(ctx context.Context, what string, try func() error) error {
	deadline := time.NewTimer(s.suite.cfg.WaitTimeout)
	defer deadline.Stop()
	tick := time.NewTicker(pollInterval(s.suite.cfg.WaitTimeout))
	defer tick.Stop()
	for {
		err := try()
		if !errors.Is(err, errNotYet) {
			return err
		}
		select {
		case <-ctx.Done():
			return &kitError{ctx.Err()}
		case <-deadline.C:
			if s.last != nil {
				return s.fail(s.last, "gave up waiting for %s after %s", what, s.suite.cfg.WaitTimeout)
			}
			return s.judge(errors.New("gave up waiting for " + what))
		case <-tick.C:
		}
	}
}

// pollUntil calls try until it returns something other than errNotYet or
// the deadline passes; reaching the deadline returns nil (the caller judges
// what it found).
func (s *scenario) pollUntil(ctx context.Context, deadline time.Time, try func() error) error {
	tick := time.NewTicker(pollInterval(s.suite.cfg.WaitTimeout))
	defer tick.Stop()
	for {
		err := try()
		if !errors.Is(err, errNotYet) {
			return err
		}
		if !time.Now().Before(deadline) {
			return nil
		}
		select {
		case <-ctx.Done():
			return &kitError{ctx.Err()}
		case <-tick.C:
		}
	}
}

// pollInterval spaces attempts: often enough for a fast reference, gently for a live target.
func pollInterval(wait time.Duration) time.Duration {
	if d := wait / 200; d > 5*time.Millisecond {
		return min(d, 500*time.Millisecond)
	}
	return 5 * time.Millisecond
}
