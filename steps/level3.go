package steps

import (
	"context"
)

// level3Steps is the vocabulary of level3.feature: Level 2/3 data on sales,
// authorizations and captures, and the merchant flag that gates it.
func level3Steps() []stepDef {
	return []stepDef{
		step(`an authorization of (\d+) cents with Level 3 data`, func(s *scenario) any { return s.anAuthorizationL3 }),
		step(`I authorize (\d+) cents with Level 3 data`, func(s *scenario) any { return s.authorizeL3 }),
		step(`I create an? (sale|authorization) with Level 3 data where "([^"]*)" is (\d+) characters long`, func(s *scenario) any { return s.createL3Length }),
		step(`I create an? (sale|authorization) with Level 3 data where "([^"]*)" is (-?\d+)`, func(s *scenario) any { return s.createL3Int }),
		step(`I capture (\d+) cents with different Level 3 data`, func(s *scenario) any { return s.captureL3 }),
		step(`I capture (\d+) cents with Level 3 data where "([^"]*)" is (\d+) characters long`, func(s *scenario) any { return s.captureL3Length }),
		step(`I capture (\d+) cents with Level 3 data where "([^"]*)" is (-?\d+)`, func(s *scenario) any { return s.captureL3Int }),
		step(`I authorize (\d+) cents with Level 3 data for the plain merchant`, func(s *scenario) any { return s.authorizePlainL3 }),
		step(`I create an? (sale|authorization) with Level 3 data without the field "([^"]*)"`, func(s *scenario) any { return s.createL3Without }),
		step(`I capture (\d+) cents with Level 3 data without the field "([^"]*)"`, func(s *scenario) any { return s.captureL3Without }),
		step(`the plain merchant is not enabled for Level 2/3 data`, func(s *scenario) any { return s.plainNotEnabled }),
		step(`I enable the plain merchant for Level 2/3 data`, func(s *scenario) any { return s.enablePlain }),
		step(`I create a sale with Level 3 data for the plain merchant`, func(s *scenario) any { return s.salePlainL3 }),
		step(`I create a sale of (\d+) cents with Level 3 items`, func(s *scenario) any { return s.createSaleItems }),
		step(`I create a sale of (\d+) cents with Level 3 items and no sales tax`, func(s *scenario) any { return s.createSaleItemsNoTax }),
		step(`I create a tax exempt sale of (\d+) cents with a sales tax of (\d+) cents`, func(s *scenario) any { return s.createTaxExempt }),
	}
}

func (s *scenario) anAuthorizationL3(ctx context.Context, amount int64) error {
	body, err := s.authorizationBody(amount)
	if err != nil {
		return err
	}
	body["additional_purchase_data"] = level3Data(amount, true)
	s.amounts["authorization"] = amount
	return s.given(ctx, "authorization", "POST", "/authorizations", body)
}

func (s *scenario) authorizeL3(ctx context.Context, amount int64) error {
	body, err := s.authorizationBody(amount)
	if err != nil {
		return err
	}
	body["additional_purchase_data"] = level3Data(amount, true)
	return s.postAuthorization(ctx, body, amount)
}

// createL3 sends a sale or an authorization of 1000 cents whose Level 3 data is changed by edit.
func (s *scenario) createL3(ctx context.Context, flow string, edit func(map[string]any)) error {
	data := level3Data(1000, true)
	edit(data)
	if flow == "sale" {
		body, err := s.saleBody(1000)
		if err != nil {
			return err
		}
		body["additional_purchase_data"] = data
		_, err = s.create(ctx, "sale", "POST", "/transfers", body)
		return err
	}
	body, err := s.authorizationBody(1000)
	if err != nil {
		return err
	}
	body["additional_purchase_data"] = data
	return s.postAuthorization(ctx, body, 1000)
}

// createL3Without sends a sale or an authorization whose Level 3 data lacks one field.
func (s *scenario) createL3Without(ctx context.Context, flow, field string) error {
	return s.createL3(ctx, flow, func(d map[string]any) { deletePath(d, field) })
}

// authorizePlainL3 authorizes with Level 3 data for the plain merchant's identity.
func (s *scenario) authorizePlainL3(ctx context.Context, amount int64) error {
	body, err := s.authorizationBody(amount)
	if err != nil {
		return err
	}
	mi, err := s.needFixture("plain_merchant_identity")
	if err != nil {
		return err
	}
	body["merchant_identity"] = mi
	body["additional_purchase_data"] = level3Data(amount, true)
	return s.postAuthorization(ctx, body, amount)
}

func (s *scenario) createL3Length(ctx context.Context, flow, field string, n int) error {
	return s.createL3(ctx, flow, func(d map[string]any) { setPath(d, field, filler(field, n)) })
}

func (s *scenario) createL3Int(ctx context.Context, flow, field string, v int64) error {
	return s.createL3(ctx, flow, func(d map[string]any) { setPath(d, field, v) })
}

func (s *scenario) captureL3(ctx context.Context, amount int64) error {
	data := level3Data(amount, true)
	data["customer_reference_number"] = "CAPTURE-REF-2"
	return s.sendCapture(ctx, map[string]any{"capture_amount": amount, "additional_purchase_data": data})
}

func (s *scenario) captureL3Length(ctx context.Context, amount int64, field string, n int) error {
	data := level3Data(amount, true)
	setPath(data, field, filler(field, n))
	return s.sendCapture(ctx, map[string]any{"capture_amount": amount, "additional_purchase_data": data})
}

func (s *scenario) captureL3Int(ctx context.Context, amount int64, field string, v int64) error {
	data := level3Data(amount, true)
	setPath(data, field, v)
	return s.sendCapture(ctx, map[string]any{"capture_amount": amount, "additional_purchase_data": data})
}

// captureL3Without captures with complete Level 3 data less one field (§2.13: optional on capture).
func (s *scenario) captureL3Without(ctx context.Context, amount int64, field string) error {
	data := level3Data(amount, true)
	deletePath(data, field)
	return s.sendCapture(ctx, map[string]any{"capture_amount": amount, "additional_purchase_data": data})
}

// level3Data is valid Level 2/3 data for a purchase of amount cents (create/sale form).
func level3Data(amount int64, items bool) map[string]any {
	d := map[string]any{
		"customer_reference_number": "CONFORM-REF-1", "customs_duty_amount": 0, "discount_amount": 0,
		"shipping_amount": 100, "invoice_reference_number": "INV-1001", "tax_exempt": false,
		"order_date": map[string]any{"day": 15, "month": 6, "year": 2025},
	}
	if items {
		d["sales_tax"] = 100
		d["item_data"] = []any{map[string]any{
			"amount_excluding_sales_tax": amount - 100, "amount_including_sales_tax": amount,
			"commodity_code": "43211", "cost_per_unit": amount - 100, "item_description": "Conform test item",
			"item_discount_amount": 0, "merchant_product_code": "SKU-1", "quantity": 1, "unit_of_measure": "EA",
		}}
	}
	return d
}

// plainNotEnabled makes sure the plain merchant starts disabled, and arranges
// for it to be disabled again when the scenario ends.
func (s *scenario) plainNotEnabled(ctx context.Context) error {
	id, err := s.needFixture("plain_merchant")
	if err != nil {
		return err
	}
	if _, err := s.needFixture("plain_merchant_identity"); err != nil {
		return err
	}
	s.restore = func(ctx context.Context) error { return s.disablePlain(ctx, id) }
	ex, err := s.send(ctx, "GET", "/merchants/"+id, nil, "platform")
	if err != nil {
		return err
	}
	if on, _ := lookup(ex.doc, "level_two_level_three_data_enabled"); on != false {
		return s.disablePlain(ctx, id)
	}
	return s.checkSuccess(ex)
}

func (s *scenario) enablePlain(ctx context.Context) error {
	id, err := s.needFixture("plain_merchant")
	if err != nil {
		return err
	}
	_, err = s.putMerchantL23(ctx, id, true, "platform")
	return err
}

func (s *scenario) salePlainL3(ctx context.Context) error {
	id, err := s.needFixture("plain_merchant")
	if err != nil {
		return err
	}
	return s.postSale(ctx, 1000, func(b map[string]any) {
		b["merchant"] = id
		b["additional_purchase_data"] = level3Data(1000, true)
	})
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
