package faults

import (
	"net/http"

	"github.com/conform-kit/conform/validate"
)

// level3Faults break spec §2.13, §4.4, §7 and §8 (Level 2/3 data).
func level3Faults() []Fault {
	create := []string{"authorizations.create", "transfers.create"}
	saleAndAuth := func(field string, ok, over string) []string {
		return []string{
			"sale Level 3 data accepts a " + field + " of " + ok + " characters and refuses " + over,
			"authorization Level 3 data accepts a " + field + " of " + ok + " characters and refuses " + over,
		}
	}
	return []Fault{
		{
			Name: "level3-not-enabled-accepted", Capability: "level3", Expect: ExpectFail, Tags: "@level3",
			Breaks:   "§4.4/§7 Level 2/3 data only for a merchant enabled for it",
			Catchers: []string{"Level 2/3 data is refused before the merchant is enabled and accepted after"},
			wrap:     rewriteRequest(stripLevel3ForDisabledMerchant, create...),
		},
		{
			Name: "level3-not-enabled-accepted-on-authorization", Capability: "level3", Expect: ExpectFail, Tags: "@level3",
			Breaks:   "§4.1/§7 Level 2/3 data on an authorization only for a merchant enabled for it",
			Catchers: []string{"Level 2/3 data is refused before the merchant is enabled and accepted after"},
			wrap:     rewriteRequest(stripLevel3ForDisabledMerchant, "authorizations.create"),
		},
		{
			Name: "customer-reference-number-optional-on-create", Capability: "level3", Expect: ExpectFail, Tags: "@level3",
			Breaks: "§2.13 customer_reference_number is required on create/sale",
			Catchers: []string{
				"sale Level 3 data without its required customer_reference_number is refused",
				"authorization Level 3 data without its required customer_reference_number is refused",
			},
			wrap: rewriteRequest(func(x *faultExchange) bool {
				apd := objectAt(x.in, "additional_purchase_data")
				if apd == nil || apd["customer_reference_number"] != nil {
					return false
				}
				apd["customer_reference_number"] = "DEFAULT-REF"
				return true
			}, create...),
		},
		{
			Name: "capture-requires-customer-reference-number", Capability: "level3", Expect: ExpectFail, Tags: "@level3",
			Breaks:   "§2.13 customer_reference_number is optional on capture",
			Catchers: []string{"capture Level 3 data may leave out customer_reference_number"},
			// A missing value becomes one over the limit, so the capture is refused as invalid.
			wrap: rewriteRequest(func(x *faultExchange) bool {
				apd := objectAt(x.in, "additional_purchase_data")
				if apd == nil || apd["customer_reference_number"] != nil {
					return false
				}
				apd["customer_reference_number"] = "MISSING-REFERENCE-1"
				return true
			}, "authorizations.capture"),
		},
		{
			Name: "capture-item-without-description-accepted", Capability: "level3", Expect: ExpectFail, Tags: "@level3",
			Breaks:   "§2.13 item_description is required on capture when item_data is supplied",
			Catchers: []string{"capture Level 3 items still need their description"},
			wrap: rewriteRequest(func(x *faultExchange) bool {
				changed := false
				for _, it := range itemData(x.in) {
					if it["item_description"] == nil {
						it["item_description"], changed = "Item", true
					}
				}
				return changed
			}, "authorizations.capture"),
		},
		{
			Name: "merchant-flag-update-ignored", Capability: "merchants", Expect: ExpectFail, Tags: "@level3",
			Breaks:   "§4.4 PUT /merchants sets level_two_level_three_data_enabled",
			Catchers: []string{"Level 2/3 data is refused before the merchant is enabled and accepted after"},
			wrap: rewriteRequest(func(x *faultExchange) bool {
				if x.in["level_two_level_three_data_enabled"] != true {
					return false
				}
				delete(x.in, "level_two_level_three_data_enabled")
				return true
			}, "merchants.update"),
		},
		{
			Name: "customer-reference-number-18-accepted", Capability: "level3", Expect: ExpectFail, Tags: "@level3",
			Breaks:   "§8 customer_reference_number max 17 characters",
			Catchers: saleAndAuth("customer_reference_number", "17", "18"),
			wrap:     rewriteRequest(shorten("additional_purchase_data.customer_reference_number", 17), create...),
		},
		{
			Name: "invoice-reference-number-16-accepted", Capability: "level3", Expect: ExpectFail, Tags: "@level3",
			Breaks:   "§8 invoice_reference_number max 15 characters",
			Catchers: saleAndAuth("invoice_reference_number", "15", "16"),
			wrap:     rewriteRequest(shorten("additional_purchase_data.invoice_reference_number", 15), create...),
		},
		{
			Name: "item-description-26-accepted-on-sale", Capability: "level3", Expect: ExpectFail, Tags: "@level3",
			Breaks:   "§8 item_description max 25 characters on create/sale",
			Catchers: saleAndAuth("item_data.0.item_description", "25", "26"),
			wrap:     rewriteRequest(shortenItems("item_description", 25), create...),
		},
		{
			Name: "unit-of-measure-13-accepted-on-capture", Capability: "level3", Expect: ExpectFail, Tags: "@level3",
			Breaks:   "§8 unit_of_measure max 12 characters on capture",
			Catchers: []string{"capture Level 3 data accepts a item_data.0.unit_of_measure of 12 characters and refuses 13"},
			wrap:     rewriteRequest(shortenItems("unit_of_measure", 12), "authorizations.capture"),
		},
		{
			Name: "quantity-zero-accepted", Capability: "level3", Expect: ExpectFail, Tags: "@level3",
			Breaks:   "§8 item_data.quantity greater than 0",
			Catchers: []string{"sale Level 3 data accepts a item_data.0.quantity of 1 and refuses 0", "authorization Level 3 data accepts a item_data.0.quantity of 1 and refuses 0"},
			wrap: rewriteRequest(func(x *faultExchange) bool {
				changed := false
				for _, it := range itemData(x.in) {
					if q, ok := numberOf(it["quantity"]); ok && q == 0 {
						it["quantity"], changed = 1, true
					}
				}
				return changed
			}, create...),
		},
		{
			Name: "order-month-13-accepted", Capability: "level3", Expect: ExpectFail, Tags: "@level3",
			Breaks:   "§8 order_date month 1-12",
			Catchers: []string{"sale Level 3 data accepts a order_date.month of 12 and refuses 13", "authorization Level 3 data accepts a order_date.month of 12 and refuses 13"},
			wrap: rewriteRequest(func(x *faultExchange) bool {
				od := objectAt(x.in, "additional_purchase_data.order_date")
				if m, ok := numberOf(od["month"]); ok && m == 13 {
					od["month"] = 12
					return true
				}
				return false
			}, create...),
		},
		{
			Name: "level3-not-carried-over", Capability: "level3", Expect: ExpectWarn, Tags: "@level3",
			Breaks:   "§4.1 Level 2/3 data omitted on capture is carried over (shown on the response: assumed)",
			Catchers: []string{"an authorization with Level 3 data is captured without it and the data carries over"},
			wrap: rewriteResponse(func(x *faultExchange) bool {
				if !isSuccess(x.status) || x.in == nil || x.in["additional_purchase_data"] != nil || x.out["additional_purchase_data"] == nil {
					return false
				}
				x.out["additional_purchase_data"] = nil
				return true
			}, "authorizations.capture"),
		},
		{
			Name: "tax-exempt-with-sales-tax-accepted", Capability: "level3", Expect: ExpectWarn, Tags: "@level3",
			Breaks:   "§2.13 tax_exempt purchases send sales_tax 0 (refusal assumed)",
			Catchers: []string{"a tax exempt sale with a positive sales tax is refused"},
			wrap: rewriteRequest(func(x *faultExchange) bool {
				apd := objectAt(x.in, "additional_purchase_data")
				if tax, ok := numberOf(apd["sales_tax"]); ok && apd["tax_exempt"] == true && tax > 0 {
					apd["sales_tax"] = 0
					return true
				}
				return false
			}, create...),
		},
		{
			Name: "sales-tax-not-computed", Capability: "level3", Expect: ExpectWarn, Tags: "@level3",
			Breaks:   "§2.13 sales_tax computed from itemized amounts (shown on the response: assumed)",
			Catchers: []string{"the sales tax is computed from the itemized amounts when it is omitted"},
			wrap: rewriteResponse(func(x *faultExchange) bool {
				apd := objectAt(x.out, "additional_purchase_data")
				if !isSuccess(x.status) || apd == nil || objectAt(x.in, "additional_purchase_data")["sales_tax"] != nil {
					return false
				}
				if _, ok := apd["sales_tax"]; !ok {
					return false
				}
				delete(apd, "sales_tax")
				return true
			}, "transfers.create"),
		},
	}
}

// itemData returns the item_data objects of a request body.
func itemData(body map[string]any) []map[string]any {
	v, _ := validate.FieldAt(body, "additional_purchase_data.item_data")
	list, _ := v.([]any)
	out := make([]map[string]any, 0, len(list))
	for _, it := range list {
		if m, ok := it.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

// shortenItems shortens field of every item by one when it is one over max.
func shortenItems(field string, max int) func(*faultExchange) bool {
	return func(x *faultExchange) bool {
		changed := false
		for _, it := range itemData(x.in) {
			if shortenString(it, field, max) {
				changed = true
			}
		}
		return changed
	}
}

// stripLevel3ForDisabledMerchant drops additional_purchase_data from a create
// or sale for a merchant that is not enabled for it, so it is not refused.
func stripLevel3ForDisabledMerchant(x *faultExchange) bool {
	if x.in["additional_purchase_data"] == nil {
		return false
	}
	m, _ := x.in["merchant"].(string)
	mi, _ := x.in["merchant_identity"].(string)
	ids := x.d.fx.Fixtures
	if m != ids.PlainMerchant && mi != ids.PlainMerchantIdentity {
		return false
	}
	platform := x.d.fx.Credentials.Platform
	if _, mer := x.call(http.MethodGet, "/merchants/"+ids.PlainMerchant, nil, &platform); mer["level_two_level_three_data_enabled"] != false {
		return false
	}
	delete(x.in, "additional_purchase_data")
	return true
}
