package validate_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// saleBody builds a sale; items > 0 adds Level 3 data with that many items.
func saleBody(items int) []byte {
	if items == 0 {
		return []byte(validSale)
	}
	var b strings.Builder
	b.WriteString(`{"source":"PI0123456789abcdefghijkl","merchant":"MU0123456789abcdefghijkl","amount":100000,"fee":100,` +
		`"currency":"USD","idempotency_id":"bench-1","tags":{"order":"42"},"additional_purchase_data":{` +
		`"customer_reference_number":"CUST-0001","customs_duty_amount":0,"discount_amount":100,"shipping_amount":500,` +
		`"destination_country_code":"USA","destination_postal_code":"94110","invoice_reference_number":"INV-1",` +
		`"sales_tax":100,"ship_from_postal_code":"94105","tax_exempt":false,"order_date":{"day":21,"month":11,"year":2026},"item_data":[`)
	for i := range items {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"amount_excluding_sales_tax":1000,"amount_including_sales_tax":1100,"commodity_code":"12345",`+
			`"cost_per_unit":500,"item_description":"Widget %d","item_discount_amount":0,"merchant_product_code":"SKU-%d",`+
			`"quantity":2,"unit_of_measure":"EA"}`, i, i)
	}
	b.WriteString(`]}}`)
	return []byte(b.String())
}

var benchCases = []struct {
	name  string
	items int
}{
	{"MinimalSale", 0},
	{"Level3Sale3Items", 3},
	{"Level3Sale50Items", 50},
}

// BenchmarkRequest validates sales; each case sits beside
// BenchmarkUnmarshalBaseline of the same bytes.
func BenchmarkRequest(b *testing.B) {
	v := newValidator(b)
	for _, bc := range benchCases {
		body := saleBody(bc.items)
		if err := v.Request("transfers.create", body); err != nil {
			b.Fatalf("%s: %v", bc.name, err)
		}
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				if err := v.Request("transfers.create", body); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkUnmarshalBaseline is json.Unmarshal into any of the same bytes.
func BenchmarkUnmarshalBaseline(b *testing.B) {
	for _, bc := range benchCases {
		body := saleBody(bc.items)
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				var v any
				if err := json.Unmarshal(body, &v); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
