package validate

import (
	"encoding/json"
	"math"
)

// Rule names reported in Violation.Rule by the business rule checks.
const (
	RuleCaptureAmountMax         = "capture_amount_max"
	RuleFeeMax                   = "fee_max"
	RuleLevel23Enabled           = "level_two_level_three_data_enabled"
	RuleSubscriptionAmountUpdate = "subscription_amount_update_once"
	RuleTaxExempt                = "tax_exempt_sales_tax"
)

// CheckCapture checks a capture against its authorization: capture_amount
// must not exceed the authorization amount (/capture_amount) and fee, when
// given, must not exceed capture_amount (/fee). It returns nil or an *Error
// with code INVALID_FIELD listing both violations when both apply.
func CheckCapture(authorizationAmount, captureAmount int64, fee *int64) error {
	var vs []Violation
	if captureAmount > authorizationAmount {
		vs = append(vs, violation("/capture_amount", RuleCaptureAmountMax,
			"capture_amount %d exceeds the authorization amount %d", captureAmount, authorizationAmount))
	}
	if fee != nil && *fee > captureAmount {
		vs = append(vs, violation("/fee", RuleFeeMax, "fee %d exceeds capture_amount %d", *fee, captureAmount))
	}
	if len(vs) == 0 {
		return nil
	}
	return newError(CodeInvalidField, vs)
}

// CheckFee checks a sale: fee, when given, must not exceed amount (/fee).
// It is the body rule fee_max (BodyRuleTable) on values a handler holds.
func CheckFee(amount int64, fee *int64) error {
	if fee == nil {
		return nil
	}
	if vi, broken := judgeFee(ruleValues{intValue(amount), intValue(*fee)}); broken {
		return newError(CodeInvalidField, []Violation{vi})
	}
	return nil
}

// feeViolation is CheckFee's violation: a sale's fee over its amount.
func feeViolation(amount, fee int64) Violation {
	return violation("/fee", RuleFeeMax, "fee %d exceeds amount %d", fee, amount)
}

// CheckLevel23 refuses Level 2/3 data (additional_purchase_data) for a
// merchant without level_two_level_three_data_enabled (UNPROCESSABLE_ENTITY).
func CheckLevel23(merchantEnabled, hasPurchaseData bool) error {
	if !hasPurchaseData || merchantEnabled {
		return nil
	}
	return newError(CodeUnprocessable, []Violation{violation("/additional_purchase_data", RuleLevel23Enabled,
		"the merchant is not enabled for Level 2/Level 3 data (level_two_level_three_data_enabled is false)")})
}

// CheckSubscriptionAmountUpdate refuses to update a subscription amount that
// was itself produced by an update, or that was already updated once
// (UNPROCESSABLE_ENTITY).
func CheckSubscriptionAmountUpdate(producedByUpdate, alreadyUpdated bool) error {
	switch {
	case producedByUpdate:
		return newError(CodeUnprocessable, []Violation{violation("", RuleSubscriptionAmountUpdate,
			"a subscription amount produced by an update cannot be updated")})
	case alreadyUpdated:
		return newError(CodeUnprocessable, []Violation{violation("", RuleSubscriptionAmountUpdate,
			"this subscription amount was already updated and cannot be updated again")})
	}
	return nil
}

// CheckTaxExempt checks additional_purchase_data (decoded with UseNumber):
// with tax_exempt true, sales_tax must be 0 or absent
// (/additional_purchase_data/sales_tax, INVALID_FIELD). It is the body
// rule tax_exempt_sales_tax (BodyRuleTable) on a decoded purchase.
func CheckTaxExempt(purchaseData map[string]any) error {
	exempt, okE := purchaseData["tax_exempt"]
	tax, okT := purchaseData["sales_tax"]
	if vi, broken := judgeTaxExempt(ruleValues{valueOf(exempt, okE), valueOf(tax, okT)}); broken {
		return newError(CodeInvalidField, []Violation{vi})
	}
	return nil
}

// taxExemptViolation is CheckTaxExempt's violation: a sales tax on a
// tax-exempt purchase.
func taxExemptViolation() Violation {
	return Violation{Pointer: "/additional_purchase_data/sales_tax", Rule: RuleTaxExempt,
		Message: "sales_tax must be 0 or absent when tax_exempt is true"}
}

// SalesTax returns the purchase's sales tax: sales_tax when given, otherwise
// the sum over item_data of amount_including_sales_tax minus
// amount_excluding_sales_tax. ok is false when neither is available, or
// when the sum overflows an int64.
func SalesTax(purchaseData map[string]any) (int64, bool) {
	if raw, ok := purchaseData["sales_tax"]; ok && raw != nil {
		return number(raw)
	}
	items, _ := purchaseData["item_data"].([]any)
	var total int64
	found := false
	for _, it := range items {
		item, _ := it.(map[string]any)
		incl, ok1 := number(item["amount_including_sales_tax"])
		excl, ok2 := number(item["amount_excluding_sales_tax"])
		if !ok1 || !ok2 {
			continue
		}
		if total, ok1 = AddItemSalesTax(total, incl, excl); !ok1 {
			return 0, false // no int64 holds the sum: nothing sensible to compute
		}
		found = true
	}
	return total, found
}

// AddItemSalesTax adds an item's sales tax, amount_including_sales_tax incl
// less amount_excluding_sales_tax excl, to total: SalesTax's one step, also
// for readers of purchase data that is not decoded. ok is false when no
// int64 holds the difference or the sum.
func AddItemSalesTax(total, incl, excl int64) (sum int64, ok bool) {
	if (excl < 0 && incl > math.MaxInt64+excl) || (excl > 0 && incl < math.MinInt64+excl) {
		return 0, false
	}
	d := incl - excl
	if (d > 0 && total > math.MaxInt64-d) || (d < 0 && total < math.MinInt64-d) {
		return 0, false
	}
	return total + d, true
}

// number reads an integral JSON number (json.Number, float64 or Go integers).
func number(v any) (int64, bool) {
	switch n := v.(type) {
	case json.Number:
		return parseInt64(string(n))
	case float64:
		if n != math.Trunc(n) || math.Abs(n) > 1<<53 {
			return 0, false
		}
		return int64(n), true
	case int:
		return int64(n), true
	case int64:
		return n, true
	}
	return 0, false
}
