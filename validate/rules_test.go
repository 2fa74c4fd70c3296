package validate_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/conform-kit/conform/validate"
)

func ptr(n int64) *int64 { return &n }

// checkRule compares a rule's result with the expected code and violations.
func checkRule(t *testing.T, call string, err error, code string, want []expectation) {
	t.Helper()
	if want == nil {
		if err != nil {
			t.Errorf("%s = %v, want nil", call, err)
		}
		return
	}
	if err == nil {
		t.Errorf("%s = nil, want violation %s", call, formatExpectations(want))
		return
	}
	var verr *validate.Error
	if !errors.As(err, &verr) {
		t.Fatalf("%s = %v (%T), want *validate.Error", call, err, err)
	}
	if verr.Code != code {
		t.Errorf("%s code = %s, want %s", call, verr.Code, code)
	}
	if got := violationsOf(t, err); !slices.Equal(got, sortExpectations(want)) {
		t.Errorf("%s violations = %s, want %s", call, formatExpectations(got), formatExpectations(want))
	}
}

func TestCheckCapture(t *testing.T) {
	tests := []struct {
		amount, capture int64
		fee             *int64
		want            []expectation
	}{
		{1000, 1000, nil, nil},
		{1000, 999, ptr(999), nil},
		{1000, 1, ptr(0), nil},
		{1000, 1001, nil, []expectation{{"/capture_amount", validate.RuleCaptureAmountMax}}},
		{1000, 1200, ptr(100), []expectation{{"/capture_amount", validate.RuleCaptureAmountMax}}},
		{1000, 500, ptr(501), []expectation{{"/fee", validate.RuleFeeMax}}},
		{1000, 1200, ptr(1201), []expectation{{"/capture_amount", validate.RuleCaptureAmountMax}, {"/fee", validate.RuleFeeMax}}},
	}
	for _, tt := range tests {
		call := fmt.Sprintf("CheckCapture(amount=%d, capture=%d, fee=%v)", tt.amount, tt.capture, deref(tt.fee))
		checkRule(t, call, validate.CheckCapture(tt.amount, tt.capture, tt.fee), validate.CodeInvalidField, tt.want)
	}
}

func deref(p *int64) any {
	if p == nil {
		return "nil"
	}
	return *p
}

func TestCheckFee(t *testing.T) {
	tests := []struct {
		amount int64
		fee    *int64
		want   []expectation
	}{
		{100, nil, nil},
		{100, ptr(100), nil},
		{100, ptr(0), nil},
		{100, ptr(101), []expectation{{"/fee", validate.RuleFeeMax}}},
		{0, ptr(1), []expectation{{"/fee", validate.RuleFeeMax}}},
	}
	for _, tt := range tests {
		call := fmt.Sprintf("CheckFee(amount=%d, fee=%v)", tt.amount, deref(tt.fee))
		checkRule(t, call, validate.CheckFee(tt.amount, tt.fee), validate.CodeInvalidField, tt.want)
	}
}

func TestCheckLevel23(t *testing.T) {
	tests := []struct {
		enabled, has bool
		want         []expectation
	}{
		{true, true, nil},
		{true, false, nil},
		{false, false, nil},
		{false, true, []expectation{{"/additional_purchase_data", validate.RuleLevel23Enabled}}},
	}
	for _, tt := range tests {
		call := fmt.Sprintf("CheckLevel23(enabled=%v, hasPurchaseData=%v)", tt.enabled, tt.has)
		checkRule(t, call, validate.CheckLevel23(tt.enabled, tt.has), validate.CodeUnprocessable, tt.want)
	}
}

func TestCheckSubscriptionAmountUpdate(t *testing.T) {
	tests := []struct {
		produced, updated bool
		want              []expectation
	}{
		{false, false, nil},
		{true, false, []expectation{{"", validate.RuleSubscriptionAmountUpdate}}},
		{false, true, []expectation{{"", validate.RuleSubscriptionAmountUpdate}}},
		{true, true, []expectation{{"", validate.RuleSubscriptionAmountUpdate}}},
	}
	for _, tt := range tests {
		call := fmt.Sprintf("CheckSubscriptionAmountUpdate(producedByUpdate=%v, alreadyUpdated=%v)", tt.produced, tt.updated)
		checkRule(t, call, validate.CheckSubscriptionAmountUpdate(tt.produced, tt.updated), validate.CodeUnprocessable, tt.want)
	}
}

func purchaseData(t *testing.T, s string) map[string]any {
	t.Helper()
	m, ok := decodeUseNumber(t, []byte(s)).(map[string]any)
	if !ok {
		t.Fatalf("%s is not an object", s)
	}
	return m
}

func TestCheckTaxExempt(t *testing.T) {
	bad := []expectation{{"/additional_purchase_data/sales_tax", validate.RuleTaxExempt}}
	tests := []struct {
		data string
		want []expectation
	}{
		{`{}`, nil},
		{`{"tax_exempt": true}`, nil},
		{`{"tax_exempt": true, "sales_tax": 0}`, nil},
		{`{"tax_exempt": true, "sales_tax": null}`, nil},
		{`{"tax_exempt": false, "sales_tax": 100}`, nil},
		{`{"sales_tax": 100}`, nil},
		{`{"tax_exempt": true, "sales_tax": 1}`, bad},
		{`{"tax_exempt": true, "sales_tax": 100}`, bad},
	}
	for _, tt := range tests {
		call := fmt.Sprintf("CheckTaxExempt(%s)", tt.data)
		checkRule(t, call, validate.CheckTaxExempt(purchaseData(t, tt.data)), validate.CodeInvalidField, tt.want)
	}
}

func TestSalesTax(t *testing.T) {
	tests := []struct {
		data string
		want int64
		ok   bool
	}{
		{`{}`, 0, false},
		{`{"item_data": []}`, 0, false},
		{`{"sales_tax": 250}`, 250, true},
		{`{"sales_tax": 0, "item_data": [{"amount_excluding_sales_tax": 100, "amount_including_sales_tax": 110}]}`, 0, true},
		{`{"item_data": [{"amount_excluding_sales_tax": 100, "amount_including_sales_tax": 110}]}`, 10, true},
		{`{"item_data": [{"amount_excluding_sales_tax": 100, "amount_including_sales_tax": 110},
		                 {"amount_excluding_sales_tax": 9007199254740000, "amount_including_sales_tax": 9007199254740993}]}`, 1003, true},
		{`{"item_data": [{"amount_excluding_sales_tax": 100}]}`, 0, false},
		{`{"item_data": [{"amount_excluding_sales_tax": 0, "amount_including_sales_tax": 9223372036854775807},
		                 {"amount_excluding_sales_tax": 0, "amount_including_sales_tax": 1}]}`, 0, false},
		// One item's difference no int64 holds (it wrapped to a negative
		// sum once).
		{`{"item_data": [{"amount_excluding_sales_tax": -1, "amount_including_sales_tax": 9223372036854775807}]}`, 0, false},
		{`{"item_data": [{"amount_excluding_sales_tax": 1, "amount_including_sales_tax": -9223372036854775808}]}`, 0, false},
		{`{"item_data": [{"amount_excluding_sales_tax": -5, "amount_including_sales_tax": 9223372036854775800}]}`, 9223372036854775805, true},
	}
	for _, tt := range tests {
		got, ok := validate.SalesTax(purchaseData(t, tt.data))
		if got != tt.want || ok != tt.ok {
			t.Errorf("SalesTax(%s) = %d, %v; want %d, %v", tt.data, got, ok, tt.want, tt.ok)
		}
	}
	// Plain json.Unmarshal (float64 numbers) works too.
	var m map[string]any
	if err := json.Unmarshal([]byte(`{"sales_tax": 42}`), &m); err != nil {
		t.Fatal(err)
	}
	if got, ok := validate.SalesTax(m); got != 42 || !ok {
		t.Errorf("SalesTax(float64 42) = %d, %v; want 42, true", got, ok)
	}
}

// TestRulesDoNotAllocate: a passing business rule costs no allocation (the
// count is deterministic, not a timing).
func TestRulesDoNotAllocate(t *testing.T) {
	fee := ptr(5)
	purchase := map[string]any{"tax_exempt": true, "sales_tax": json.Number("0"),
		"item_data": []any{map[string]any{"amount_including_sales_tax": json.Number("110"), "amount_excluding_sales_tax": json.Number("100")}}}
	withItems := map[string]any{"item_data": purchase["item_data"]}
	rules := []struct {
		name string
		run  func()
	}{
		{"CheckCapture", func() { _ = validate.CheckCapture(100, 50, fee) }},
		{"CheckFee", func() { _ = validate.CheckFee(100, fee) }},
		{"CheckLevel23", func() { _ = validate.CheckLevel23(true, true) }},
		{"CheckSubscriptionAmountUpdate", func() { _ = validate.CheckSubscriptionAmountUpdate(false, false) }},
		{"CheckTaxExempt", func() { _ = validate.CheckTaxExempt(purchase) }},
		{"SalesTax", func() { _, _ = validate.SalesTax(withItems) }},
	}
	for _, r := range rules {
		if n := testing.AllocsPerRun(100, r.run); n != 0 {
			t.Errorf("%s: %.0f allocations per call, want 0", r.name, n)
		}
	}
}
