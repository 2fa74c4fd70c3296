package steps

import (
	"context"
	"errors"
	"sync"
)

// idempotencySteps check DESIGN.md's idempotency decisions beyond a plain
// replay: concurrent duplicates and the scope of an idempotency id.
func idempotencySteps() []stepDef {
	return []stepDef{
		step(`I create (\d+) identical sales of (\d+) cents at once with the idempotency id "([^"]*)"`, func(s *scenario) any { return s.createSalesAtOnce }),
		step(`all (\d+) responses name one and the same sale`, func(s *scenario) any { return s.batchNamesOneSale }),
		step(`the response field "idempotency_id" is the idempotency id "([^"]*)"`, func(s *scenario) any { return s.echoesIdempotencyID }),
	}
}

// createSalesAtOnce sends n identical sales carrying one idempotency id at
// the same time; every response is kept (DESIGN.md: concurrent duplicates
// create exactly one resource).
func (s *scenario) createSalesAtOnce(ctx context.Context, n int, amount int64, key string) error {
	body, err := s.saleBody(amount)
	if err != nil {
		return err
	}
	body["idempotency_id"] = s.unique(key)
	if s.batch, err = s.sendAtOnce(ctx, n, "POST", "/transfers", body); err != nil {
		return err
	}
	for _, ex := range s.batch {
		if err := s.record(ex); err != nil {
			return err
		}
	}
	return nil
}

// sendAtOnce sends the same request n times concurrently as the current user
// and returns every exchange, in no particular order of arrival.
func (s *scenario) sendAtOnce(ctx context.Context, n int, method, path string, body any) ([]*exchange, error) {
	if c := s.suite.cfg.credential(s.user); c != nil {
		s.secrets = appendSecret(s.secrets, c.Password)
	}
	exs, errs := make([]*exchange, n), make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			exs[i], errs[i] = s.roundTrip(ctx, method, path, body, s.user)
		}()
	}
	wg.Wait()
	return exs, errors.Join(errs...)
}

// batchNamesOneSale: every response of the batch succeeded with the same
// status and names the same sale id, so exactly one sale exists.
func (s *scenario) batchNamesOneSale(n int) error {
	if len(s.batch) != n {
		return &kitError{errUsage("the scenario did not send the requests at once")}
	}
	ids := map[string]int{}
	for _, ex := range s.batch {
		if err := s.checkSuccess(ex); err != nil {
			return err
		}
		if ex.status != s.batch[0].status {
			return s.fail(ex, "status %d, but another duplicate got %d", ex.status, s.batch[0].status)
		}
		id, _ := lookupString(ex.doc, "id")
		ids[id]++
	}
	if len(ids) != 1 {
		return s.fail(s.batch[0], "%d identical sales sent at once with one idempotency id created %d sales: %v", n, len(ids), ids)
	}
	return nil
}

// echoesIdempotencyID: the created resource carries the idempotency id it
// was created with (§2.1, §2.2 idempotency_id).
func (s *scenario) echoesIdempotencyID(key string) error {
	ex, v, _, err := s.field("idempotency_id")
	if err != nil {
		return err
	}
	if got, _ := v.(string); got != s.unique(key) {
		return s.fail(ex, "field idempotency_id = %s, want the idempotency id sent %q", render(v), s.unique(key))
	}
	return nil
}
