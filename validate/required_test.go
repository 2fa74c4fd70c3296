package validate_test

import (
	"os"
	"slices"
	"sort"
	"strconv"
	"testing"
)

// requiredPointers lists, per request schema, exactly which members of its
// full fixture are required (spec §4 tables, §2.13 for purchase data).
var requiredPointers = map[string][]string{
	"authorization_create": {"/source", "/amount", "/currency",
		"/additional_purchase_data/customer_reference_number", "/additional_purchase_data/customs_duty_amount",
		"/additional_purchase_data/discount_amount", "/additional_purchase_data/shipping_amount",
		"/additional_purchase_data/order_date/day", "/additional_purchase_data/order_date/month", "/additional_purchase_data/order_date/year",
		"/additional_purchase_data/item_data/0/amount_excluding_sales_tax", "/additional_purchase_data/item_data/0/amount_including_sales_tax",
		"/additional_purchase_data/item_data/0/commodity_code", "/additional_purchase_data/item_data/0/cost_per_unit",
		"/additional_purchase_data/item_data/0/item_description", "/additional_purchase_data/item_data/0/item_discount_amount",
		"/additional_purchase_data/item_data/0/merchant_product_code", "/additional_purchase_data/item_data/0/quantity",
		"/additional_purchase_data/item_data/0/unit_of_measure",
		"/merchant_identity", // the only merchant form in this fixture (exactly one of merchant_identity|merchant)
	},
	"authorization_capture": {"/capture_amount", "/additional_purchase_data/item_data/0/item_description"},
	"transfer_create": {"/source", "/merchant", "/amount", "/currency",
		"/additional_purchase_data/customer_reference_number", "/additional_purchase_data/customs_duty_amount",
		"/additional_purchase_data/discount_amount", "/additional_purchase_data/shipping_amount",
		"/additional_purchase_data/order_date/day", "/additional_purchase_data/order_date/month", "/additional_purchase_data/order_date/year",
		"/additional_purchase_data/item_data/0/amount_excluding_sales_tax", "/additional_purchase_data/item_data/0/amount_including_sales_tax",
		"/additional_purchase_data/item_data/0/commodity_code", "/additional_purchase_data/item_data/0/cost_per_unit",
		"/additional_purchase_data/item_data/0/item_description", "/additional_purchase_data/item_data/0/item_discount_amount",
		"/additional_purchase_data/item_data/0/merchant_product_code", "/additional_purchase_data/item_data/0/quantity",
		"/additional_purchase_data/item_data/0/unit_of_measure"},
	"payment_instrument_create": {"/type", "/name", "/number", "/expiration_month", "/expiration_year", "/security_code",
		"/identity", "/address", "/address/postal_code"},
	"merchant_update":                {},
	"subscription_schedule_create":   {"/line_item_type", "/nickname", "/subscription_type"},
	"subscription_amount_update":     {"/amount_type", "/fee_amount_data", "/nickname"},
	"subscription_amount_create":     {"/amount_type", "/fee_amount_data", "/nickname", "/fee_amount_data/amount"},
	"subscription_enrollment_create": {"/merchant"},
	"subscription_enrollment_update": {},
	"webhook_create":                 {"/url", "/authentication/type", "/enabled_events/0/entity"},
	"webhook_update":                 {"/authentication/type", "/authentication/basic", "/authentication/basic/username", "/authentication/basic/password"}, // basic is required for type BASIC
	"file_create":                    {"/display_name", "/linked_to", "/type"},
	"external_link_create":           {"/type"},
	"balance_transfer_create":        {"/amount", "/currency", "/description", "/source", "/destination"},
}

// TestEveryRequiredFieldMissing removes every member of every full fixture,
// one at a time. A removal either keeps the document valid (the member is
// optional) or is refused with violations naming the member's own pointer
// with rule "required". For request schemas the required set must equal
// requiredPointers exactly.
func TestEveryRequiredFieldMissing(t *testing.T) {
	v := newValidator(t)
	for _, schema := range v.Schemas() {
		if _, err := os.Stat("testdata/" + schema + "/valid/full.json"); err != nil {
			continue
		}
		t.Run(schema, func(t *testing.T) {
			var required []string
			for _, ptr := range memberPointers(fullFixture(t, schema), "") {
				doc := fullFixture(t, schema)
				setPointer(t, doc, ptr, deleteMember)
				err := v.Validate(schema, mustJSON(t, doc))
				if err == nil {
					continue
				}
				required = append(required, ptr)
				got := violationsOf(t, err)
				if !slices.Contains(got, expectation{ptr, "required"}) {
					t.Errorf("without %s: violations %s, want %s (required)", ptr, formatExpectations(got), ptr)
				}
				for _, g := range got {
					if g.Rule != "required" {
						t.Errorf("without %s: unexpected violation %s", ptr, g)
					}
				}
			}
			want, ok := requiredPointers[schema]
			if !ok {
				return
			}
			sort.Strings(required)
			want = slices.Sorted(slices.Values(want))
			if !slices.Equal(required, want) {
				t.Errorf("required members\n got %v\nwant %v", required, want)
			}
		})
	}
}

// memberPointers lists the pointers of every object member in doc, at any
// depth (array elements are entered, not removed).
func memberPointers(doc any, prefix string) []string {
	var out []string
	switch d := doc.(type) {
	case map[string]any:
		for k, v := range d {
			p := prefix + "/" + k
			out = append(out, p)
			out = append(out, memberPointers(v, p)...)
		}
	case []any:
		for i, v := range d {
			out = append(out, memberPointers(v, prefix+"/"+strconv.Itoa(i))...)
		}
	}
	return out
}
