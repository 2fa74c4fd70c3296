package validate

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// BenchmarkRatios prints the validator's cost as ratios to json.Unmarshal
// into any of the same bytes, measured in one run: every round times each
// contender once, interleaved, and the table shows the median over rounds.
// Run it with -benchtime 1x (make bench); it times its own loops.
func BenchmarkRatios(b *testing.B) {
	v, err := New()
	if err != nil {
		b.Fatal(err)
	}
	const op = "transfers.create"
	schema := v.compiled["transfer_create"]
	type contender struct {
		name string
		run  func(body []byte) error
	}
	contenders := []contender{
		{"unmarshal", func(body []byte) error { var x any; return json.Unmarshal(body, &x) }},
		{"conform", func(body []byte) error { return v.Request(op, body) }},
		{"jsonschema", func(body []byte) error {
			doc, err := slowDecode(body)
			if err != nil {
				return err
			}
			return schema.Validate(doc)
		}},
		{"typed", func(body []byte) error { var x typedSale; return json.Unmarshal(body, &x) }},
	}
	type benchCase struct {
		name    string
		body    []byte
		invalid int // expected violations, 0 for a valid body
	}
	cases := []benchCase{
		{"minimal sale", []byte(ratioMinimalSale), 0},
		{"Level 3, 3 items", BenchLevel3Sale(3), 0},
		{"Level 3, 50 items", BenchLevel3Sale(50), 0},
		{"invalid, 5 violations", []byte(ratioInvalidSale), 5},
	}
	const rounds = 51
	var table strings.Builder
	table.WriteString("\n| body | bytes | unmarshal | conform | jsonschema v5 alone | typed decode (floor) |\n|---|---|---|---|---|---|\n")
	for _, c := range cases {
		err := v.Request(op, c.body)
		var verr *Error
		switch {
		case c.invalid == 0 && err != nil:
			b.Fatalf("%s: %v", c.name, err)
		case c.invalid > 0 && (!errors.As(err, &verr) || len(verr.Violations) != c.invalid):
			b.Fatalf("%s: %v, want %d violations", c.name, err, c.invalid)
		}
		samples := make([][]float64, len(contenders))
		iters := make([]int, len(contenders))
		for i, ct := range contenders {
			iters[i] = calibrate(func() { _ = ct.run(c.body) })
		}
		for r := range rounds {
			for k := range contenders {
				i := (r + k) % len(contenders) // each contender leads in turn
				ct := contenders[i]
				start := time.Now()
				for range iters[i] {
					_ = ct.run(c.body)
				}
				samples[i] = append(samples[i], float64(time.Since(start).Nanoseconds())/float64(iters[i]))
			}
		}
		med := make([]float64, len(contenders))
		for i := range contenders {
			med[i] = median(samples[i])
		}
		typed := fmt.Sprintf("%.2f×", med[3]/med[0])
		if c.invalid > 0 {
			typed = "–"
		}
		fmt.Fprintf(&table, "| %s | %d | %.2f µs | %.2f× | %.2f× | %s |\n", c.name, len(c.body), med[0]/1000, med[1]/med[0], med[2]/med[0], typed)
		b.ReportMetric(med[1]/med[0], "conform/"+strings.NewReplacer(" ", "", ",", "_").Replace(c.name))
	}
	b.Log(table.String())
}

// calibrate returns an iteration count that takes about 2 ms.
func calibrate(f func()) int {
	n := 1
	for {
		start := time.Now()
		for range n {
			f()
		}
		if d := time.Since(start); d > 2*time.Millisecond || n >= 1<<20 {
			return max(1, int(float64(n)*float64(2*time.Millisecond)/float64(d+1)))
		}
		n *= 2
	}
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

const ratioMinimalSale = `{"source":"PI0123456789abcdefghijkl","merchant":"MU0123456789abcdefghijkl","amount":100,"currency":"USD"}`

// ratioInvalidSale has five violations: source pattern, amount and fee
// minimum, currency, an unknown field.
const ratioInvalidSale = `{"source":"XX0123456789","merchant":"MU0123456789abcdefghijkl","amount":-1,"fee":-5,"currency":"usd","extra":true}`

// BenchLevel3Sale is a sale with Level 3 data of that many items; exported
// here (a test file) so the external benchmarks build the same bodies.
func BenchLevel3Sale(items int) []byte {
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

// typedSale is the sale as a service would decode it into structs: the floor.
type typedSale struct {
	Source        string            `json:"source"`
	Merchant      string            `json:"merchant"`
	Amount        int64             `json:"amount"`
	Fee           int64             `json:"fee"`
	Currency      string            `json:"currency"`
	IdempotencyID string            `json:"idempotency_id"`
	Tags          map[string]string `json:"tags"`
	Purchase      *struct {
		CustomerReference string `json:"customer_reference_number"`
		CustomsDuty       int64  `json:"customs_duty_amount"`
		Discount          int64  `json:"discount_amount"`
		Shipping          int64  `json:"shipping_amount"`
		Country           string `json:"destination_country_code"`
		PostalCode        string `json:"destination_postal_code"`
		Invoice           string `json:"invoice_reference_number"`
		SalesTax          int64  `json:"sales_tax"`
		ShipFrom          string `json:"ship_from_postal_code"`
		TaxExempt         bool   `json:"tax_exempt"`
		OrderDate         struct {
			Day, Month, Year int
		} `json:"order_date"`
		Items []struct {
			Excl        int64  `json:"amount_excluding_sales_tax"`
			Incl        int64  `json:"amount_including_sales_tax"`
			Commodity   string `json:"commodity_code"`
			CostPerUnit int64  `json:"cost_per_unit"`
			Description string `json:"item_description"`
			Discount    int64  `json:"item_discount_amount"`
			ProductCode string `json:"merchant_product_code"`
			Quantity    int64  `json:"quantity"`
			Unit        string `json:"unit_of_measure"`
		} `json:"item_data"`
	} `json:"additional_purchase_data"`
}
