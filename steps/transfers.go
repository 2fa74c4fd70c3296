package steps

import (
	"context"
	"errors"
	"sync"

	"github.com/conform-kit/conform/validate/judging"
)

// transferSteps is the vocabulary of transfers.feature: sales, replays and concurrent
// duplicates under one idempotency id.
func transferSteps() []stepDef {
	return []stepDef{
		step(`a sale of (\d+) cents`, func(s *scenario) any { return s.aSale }),
		step(`I create a sale of (\d+) cents`, func(s *scenario) any { return s.createSale }),
		step(`I create a sale of the sandbox's declined amount`, func(s *scenario) any { return s.createDeclinedSale }),
		step(`I create a sale of the sandbox's dispute amount`, func(s *scenario) any { return s.createDisputedSale }),
		step(`a sale of the sandbox's dispute amount`, func(s *scenario) any { return s.aDisputedSale }),
		step(`I create a sale of (\d+) cents with a fee of (\d+) cents`, func(s *scenario) any { return s.createSaleFee }),
		step(`I create a sale of (\d+) cents with the idempotency id "([^"]*)"`, func(s *scenario) any { return s.createSaleIdempotent }),
		step(`I create a sale of (\d+) cents without the field "([^"]*)"`, func(s *scenario) any { return s.createSaleWithout }),
		step(`I fetch the sale`, func(s *scenario) any { return s.fetchSale }),
		step(`the response repeats the original (authorization|sale)`, func(s *scenario) any { return s.repeatsOriginal }),
		step(`I create (\d+) identical sales of (\d+) cents at once with the idempotency id "([^"]*)"`, func(s *scenario) any { return s.createSalesAtOnce }),
		step(`all (\d+) responses name one and the same sale`, func(s *scenario) any { return s.batchNamesOneSale }),
		step(`the response field "idempotency_id" is the idempotency id "([^"]*)"`, func(s *scenario) any { return s.echoesIdempotencyID }),
	}
}

// saleBody is a sale for the configured Level 2/3 enabled merchant.
func (s *scenario) saleBody(amount int64) (map[string]any, error) {
	merchant, err := s.needFixture("merchant")
	if err != nil {
		return nil, err
	}
	card, err := s.id("card")
	if err != nil {
		return nil, err
	}
	return map[string]any{"source": card, "merchant": merchant, "amount": amount, "currency": "USD", "tags": s.runTags()}, nil
}

func (s *scenario) aSale(ctx context.Context, amount int64) error {
	body, err := s.saleBody(amount)
	if err != nil {
		return err
	}
	s.amounts["sale"] = amount
	return s.given(ctx, "sale", "POST", "/transfers", body)
}

// createDeclinedSale sells the amount the profile declares declined.
func (s *scenario) createDeclinedSale(ctx context.Context) error {
	amount, _ := s.suite.profile.DeclineTrigger()
	return s.createSale(ctx, amount)
}

// disputeAmount is the sale amount that opens a dispute, or an ordinary
// amount when the profile declares no trigger (the dispute fixture stands in).
func (s *scenario) disputeAmount() int64 {
	if amount, ok := s.suite.profile.DisputeTrigger(); ok {
		return amount
	}
	return 1500
}

func (s *scenario) createDisputedSale(ctx context.Context) error {
	return s.createSale(ctx, s.disputeAmount())
}

func (s *scenario) aDisputedSale(ctx context.Context) error { return s.aSale(ctx, s.disputeAmount()) }

func (s *scenario) postSale(ctx context.Context, amount int64, edit func(map[string]any)) error {
	body, err := s.saleBody(amount)
	if err != nil {
		return err
	}
	edit(body)
	s.amounts["sale"] = amount
	_, err = s.create(ctx, "sale", "POST", "/transfers", body)
	return err
}

func (s *scenario) createSale(ctx context.Context, amount int64) error {
	return s.postSale(ctx, amount, func(map[string]any) {})
}

func (s *scenario) createSaleFee(ctx context.Context, amount, fee int64) error {
	return s.postSale(ctx, amount, func(b map[string]any) { b["fee"] = fee })
}

func (s *scenario) createSaleIdempotent(ctx context.Context, amount int64, key string) error {
	if err := s.postSale(ctx, amount, func(b map[string]any) { b["idempotency_id"] = s.unique(key) }); err != nil {
		return err
	}
	return s.noteReplay("sale")
}

func (s *scenario) createSaleWithout(ctx context.Context, amount int64, field string) error {
	return s.postSale(ctx, amount, func(b map[string]any) { deletePath(b, field) })
}

func (s *scenario) fetchSale(ctx context.Context) error { return s.fetch(ctx, "sale", "/transfers") }

// noteReplay keeps the first response of an idempotent request.
func (s *scenario) noteReplay(role string) error {
	if _, ok := s.first[role]; !ok {
		s.first[role] = s.last
	}
	return nil
}

// repeatsOriginal: a replay returns the original status and resource (assumed: features/README.md, "Behaviour").
func (s *scenario) repeatsOriginal(role string) error {
	ex, err := s.lastExchange()
	if err != nil {
		return err
	}
	orig := s.first[role]
	if orig == nil || orig == ex {
		return &kitError{errUsage("no earlier " + role + " request to compare with")}
	}
	a, _ := lookupString(orig.doc, "id")
	b, _ := lookupString(ex.doc, "id")
	if a == "" || a != b || orig.status != ex.status {
		return s.assume("idempotency_replay", judging.IdempotencyOriginal, "another response", map[string]any{"idempotency_replay": judging.Unchecked},
			s.failf(ex, "replay returned %d %s, want the original %d %s", ex.status, b, orig.status, a))
	}
	return nil
}

// createSalesAtOnce sends n identical sales carrying one idempotency id at
// the same time; every response is kept (assumed: concurrent duplicates
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
