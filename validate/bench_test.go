package validate_test

import (
	"encoding/json"
	"testing"

	"github.com/conform-kit/conform/validate"
)

// saleBody builds a sale; items > 0 adds Level 3 data with that many items.
func saleBody(items int) []byte {
	if items == 0 {
		return []byte(validSale)
	}
	return validate.BenchLevel3Sale(items)
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
