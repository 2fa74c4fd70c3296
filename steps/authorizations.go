package steps

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"time"
)

func authorizationSteps() []stepDef {
	return []stepDef{
		step(`an authorization of (\d+) cents`, func(s *scenario) any { return s.anAuthorization }),
		step(`an authorization of (\d+) cents with Level 3 data`, func(s *scenario) any { return s.anAuthorizationL3 }),
		step(`I authorize (\d+) cents`, func(s *scenario) any { return s.authorize }),
		step(`I authorize (\d+) cents naming the merchant by its merchant id`, func(s *scenario) any { return s.authorizeByMerchant }),
		step(`I authorize (\d+) cents with Level 3 data`, func(s *scenario) any { return s.authorizeL3 }),
		step(`I authorize (\d+) cents with the idempotency id "([^"]*)"`, func(s *scenario) any { return s.authorizeIdempotent }),
		step(`I authorize (\d+) cents without the field "([^"]*)"`, func(s *scenario) any { return s.authorizeWithout }),
		step(`I create an? (sale|authorization) with Level 3 data where "([^"]*)" is (\d+) characters long`, func(s *scenario) any { return s.createL3Length }),
		step(`I create an? (sale|authorization) with Level 3 data where "([^"]*)" is (-?\d+)`, func(s *scenario) any { return s.createL3Int }),
		step(`I capture (\d+) cents`, func(s *scenario) any { return s.capture }),
		step(`I capture (\d+) cents with a fee of (\d+) cents`, func(s *scenario) any { return s.captureFee }),
		step(`I capture (\d+) cents with different Level 3 data`, func(s *scenario) any { return s.captureL3 }),
		step(`I capture (\d+) cents with Level 3 data where "([^"]*)" is (\d+) characters long`, func(s *scenario) any { return s.captureL3Length }),
		step(`I capture (\d+) cents with Level 3 data where "([^"]*)" is (-?\d+)`, func(s *scenario) any { return s.captureL3Int }),
		step(`I capture an authorization that does not exist`, func(s *scenario) any { return s.captureMissing }),
		step(`I capture the authorization without a capture amount`, func(s *scenario) any { return s.captureNoAmount }),
		step(`I authorize (\d+) cents with Level 3 data for the plain merchant`, func(s *scenario) any { return s.authorizePlainL3 }),
		step(`I create an? (sale|authorization) with Level 3 data without the field "([^"]*)"`, func(s *scenario) any { return s.createL3Without }),
		step(`I capture (\d+) cents with Level 3 data without the field "([^"]*)"`, func(s *scenario) any { return s.captureL3Without }),
		step(`the authorization expires (\d+) days after it was created`, func(s *scenario) any { return s.expiresAfterDays }),
		step(`I fetch the authorization`, func(s *scenario) any { return s.fetchAuthorization }),
		step(`I fetch the transfer of the capture`, func(s *scenario) any { return s.fetchCaptureTransfer }),
		step(`the authorization is still uncaptured`, func(s *scenario) any { return s.stillUncaptured }),
		step(`the error names the declined resource`, func(s *scenario) any { return s.errorNamesResource }),
	}
}

// authorizationBody is a create body for the configured Level 2/3 enabled merchant.
func (s *scenario) authorizationBody(amount int64) (map[string]any, error) {
	mi, err := s.needFixture("merchant_identity")
	if err != nil {
		return nil, err
	}
	card, err := s.id("card")
	if err != nil {
		return nil, err
	}
	return map[string]any{"source": card, "merchant_identity": mi, "amount": amount, "currency": "USD", "tags": s.runTags()}, nil
}

func (s *scenario) postAuthorization(ctx context.Context, body map[string]any, amount int64) error {
	_, err := s.create(ctx, "authorization", "POST", "/authorizations", body)
	s.amounts["authorization"] = amount
	return err
}

func (s *scenario) anAuthorization(ctx context.Context, amount int64) error {
	body, err := s.authorizationBody(amount)
	if err != nil {
		return err
	}
	s.amounts["authorization"] = amount
	return s.given(ctx, "authorization", "POST", "/authorizations", body)
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

func (s *scenario) authorize(ctx context.Context, amount int64) error {
	body, err := s.authorizationBody(amount)
	if err != nil {
		return err
	}
	return s.postAuthorization(ctx, body, amount)
}

func (s *scenario) authorizeByMerchant(ctx context.Context, amount int64) error {
	body, err := s.authorizationBody(amount)
	if err != nil {
		return err
	}
	merchant, err := s.needFixture("merchant")
	if err != nil {
		return err
	}
	delete(body, "merchant_identity")
	body["merchant"] = merchant
	return s.postAuthorization(ctx, body, amount)
}

func (s *scenario) authorizeL3(ctx context.Context, amount int64) error {
	body, err := s.authorizationBody(amount)
	if err != nil {
		return err
	}
	body["additional_purchase_data"] = level3Data(amount, true)
	return s.postAuthorization(ctx, body, amount)
}

func (s *scenario) authorizeIdempotent(ctx context.Context, amount int64, key string) error {
	body, err := s.authorizationBody(amount)
	if err != nil {
		return err
	}
	body["idempotency_id"] = s.unique(key)
	if err := s.postAuthorization(ctx, body, amount); err != nil {
		return err
	}
	return s.noteReplay("authorization")
}

func (s *scenario) authorizeWithout(ctx context.Context, amount int64, field string) error {
	body, err := s.authorizationBody(amount)
	if err != nil {
		return err
	}
	deletePath(body, field)
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

func (s *scenario) sendCapture(ctx context.Context, body map[string]any) error {
	id, err := s.id("authorization")
	if err != nil {
		return err
	}
	_, err = s.send(ctx, "PUT", "/authorizations/"+id, body, s.user)
	return err
}

func (s *scenario) capture(ctx context.Context, amount int64) error {
	return s.sendCapture(ctx, map[string]any{"capture_amount": amount})
}

func (s *scenario) captureFee(ctx context.Context, amount, fee int64) error {
	return s.sendCapture(ctx, map[string]any{"capture_amount": amount, "fee": fee})
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

// captureNoAmount sends a capture body without its required capture_amount (§4.1).
func (s *scenario) captureNoAmount(ctx context.Context) error {
	return s.sendCapture(ctx, map[string]any{"fee": 0})
}

func (s *scenario) captureMissing(ctx context.Context) error {
	_, err := s.send(ctx, "PUT", "/authorizations/"+placeholderID("authorization"), map[string]any{"capture_amount": 100}, s.user)
	return err
}

func (s *scenario) fetchAuthorization(ctx context.Context) error {
	return s.fetch(ctx, "authorization", "/authorizations")
}

// fetchCaptureTransfer fetches the transfer the last response names (transfers.get, an extension).
func (s *scenario) fetchCaptureTransfer(ctx context.Context) error {
	ex, err := s.lastExchange()
	if err != nil {
		return err
	}
	tr, ok := lookupString(ex.doc, "transfer")
	if !ok || tr == "" {
		return s.fail(ex, "the response names no transfer")
	}
	s.ids["capture transfer"] = tr
	_, err = s.send(ctx, "GET", "/transfers/"+tr, nil, s.user)
	return err
}

// stillUncaptured fetches the authorization again: transfer must still be null
// (normative); the fetch itself uses an extension operation (assumed).
func (s *scenario) stillUncaptured(ctx context.Context) error {
	if err := s.fetchAuthorization(ctx); err != nil {
		return err
	}
	ex := s.last
	if ex.status != 200 {
		return s.judge(true, s.failf(ex, "could not fetch the authorization again (status %d)", ex.status))
	}
	if v, ok := lookup(ex.doc, "transfer"); ok && v != nil {
		return s.fail(ex, "the refused capture changed the authorization: transfer = %s, want null", render(v))
	}
	return nil
}

// expiresAfterDays: expires_at is created_at plus n days (assumed: DESIGN.md captures).
func (s *scenario) expiresAfterDays(days int) error {
	ex, err := s.lastExchange()
	if err != nil {
		return err
	}
	created, _ := lookupString(ex.doc, "created_at")
	expires, _ := lookupString(ex.doc, "expires_at")
	c, err1 := time.Parse(time.RFC3339Nano, created)
	e, err2 := time.Parse(time.RFC3339Nano, expires)
	if err1 != nil || err2 != nil || e.Sub(c) != time.Duration(days)*24*time.Hour {
		return s.judge(true, s.failf(ex, "expires_at %q is not created_at %q plus %d days", expires, created, days))
	}
	return nil
}

// errorNamesResource: a decline's error item names the failed resource (assumed).
func (s *scenario) errorNamesResource() error {
	ex, err := s.lastExchange()
	if err != nil {
		return err
	}
	for _, id := range errorField(ex.doc, "failure_resource") {
		if id != "" {
			return nil
		}
	}
	return s.judge(true, s.failf(ex, "no error item names the declined resource (failure_resource)"))
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

// unique scopes a key from a feature file to this scenario and run.
func (s *scenario) unique(key string) string {
	if s.uniq == "" {
		b := make([]byte, 6)
		_, _ = rand.Read(b)
		s.uniq = s.suite.cfg.RunID + "-" + hex.EncodeToString(b)
	}
	return s.uniq + "-" + key
}

// errUsage is a misuse of the vocabulary in a feature file.
func errUsage(msg string) error { return errors.New(msg) }
