package steps

import (
	"context"
)

func transferSteps() []stepDef {
	return []stepDef{
		step(`a sale of (\d+) cents`, func(s *scenario) any { return s.aSale }),
		step(`I create a sale of (\d+) cents`, func(s *scenario) any { return s.createSale }),
		step(`I create a sale of (\d+) cents with a fee of (\d+) cents`, func(s *scenario) any { return s.createSaleFee }),
		step(`I create a sale of (\d+) cents with the idempotency id "([^"]*)"`, func(s *scenario) any { return s.createSaleIdempotent }),
		step(`I create a sale of (\d+) cents without the field "([^"]*)"`, func(s *scenario) any { return s.createSaleWithout }),
		step(`I create a sale of (\d+) cents with Level 3 items`, func(s *scenario) any { return s.createSaleItems }),
		step(`I create a sale of (\d+) cents with Level 3 items and no sales tax`, func(s *scenario) any { return s.createSaleItemsNoTax }),
		step(`I create a tax exempt sale of (\d+) cents with a sales tax of (\d+) cents`, func(s *scenario) any { return s.createTaxExempt }),
		step(`I fetch the sale`, func(s *scenario) any { return s.fetchSale }),
		step(`the response repeats the original (authorization|sale)`, func(s *scenario) any { return s.repeatsOriginal }),
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
	return s.given(ctx, "sale", "POST", "/transfers", body)
}

func (s *scenario) postSale(ctx context.Context, amount int64, edit func(map[string]any)) error {
	body, err := s.saleBody(amount)
	if err != nil {
		return err
	}
	edit(body)
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

func (s *scenario) createSaleItems(ctx context.Context, amount int64) error {
	return s.postSale(ctx, amount, func(b map[string]any) {
		b["additional_purchase_data"] = level3Data(amount, true)
	})
}

func (s *scenario) createSaleItemsNoTax(ctx context.Context, amount int64) error {
	return s.postSale(ctx, amount, func(b map[string]any) {
		d := level3Data(amount, true)
		delete(d, "sales_tax")
		b["additional_purchase_data"] = d
	})
}

func (s *scenario) createTaxExempt(ctx context.Context, amount, tax int64) error {
	return s.postSale(ctx, amount, func(b map[string]any) {
		d := level3Data(amount, false)
		d["tax_exempt"], d["sales_tax"] = true, tax
		b["additional_purchase_data"] = d
	})
}

func (s *scenario) fetchSale(ctx context.Context) error { return s.fetch(ctx, "sale", "/transfers") }

// noteReplay keeps the first response of an idempotent request.
func (s *scenario) noteReplay(role string) error {
	if _, ok := s.first[role]; !ok {
		s.first[role] = s.last
	}
	return nil
}

// repeatsOriginal: a replay returns the original status and resource (assumed, DESIGN.md idempotency).
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
		return s.judge(true, s.failf(ex, "replay returned %d %s, want the original %d %s", ex.status, b, orig.status, a))
	}
	return nil
}
