package validate_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// createSchemas carry additional_purchase_data in its create/sale form,
// captureSchemas in its capture form (spec §2.13).
var (
	createSchemas  = []string{"authorization_create", "transfer_create"}
	captureSchemas = []string{"authorization_capture"}
	bothVariants   = []string{"authorization_create", "transfer_create", "authorization_capture"}
)

// limitCase sets one value in a valid document and states the verdict: rule
// "" means valid, otherwise exactly one violation at the pointer with that rule.
type limitCase struct {
	schemas []string
	pointer string
	value   any
	rule    string
}

func x(n int) string { return strings.Repeat("x", n) }

func digits(n int) string { return strings.Repeat("7", n) }

// lengthCases checks a maximum length on both sides of its boundary.
func lengthCases(schemas []string, pointer string, max int) []limitCase {
	return []limitCase{
		{schemas, pointer, x(max), ""},
		{schemas, pointer, x(max + 1), "maxLength"},
	}
}

// rangeCases checks an integer range on both sides of both boundaries.
func rangeCases(schemas []string, pointer string, lo, hi int, loRule string) []limitCase {
	return []limitCase{
		{schemas, pointer, lo - 1, loRule},
		{schemas, pointer, lo, ""},
		{schemas, pointer, hi, ""},
		{schemas, pointer, hi + 1, "maximum"},
	}
}

// TestLimits checks every limit of spec §8 (and the limits the kit assumes: features/README.md)
// on both sides of its boundary, for the create/sale and the capture variant
// where they differ.
func TestLimits(t *testing.T) {
	const apd = "/additional_purchase_data"
	const item = apd + "/item_data/0"
	var cases []limitCase
	add := func(cs ...limitCase) { cases = append(cases, cs...) }

	webhooks := []string{"webhook_create", "webhook_update"}
	add(limitCase{webhooks, "/url", "https://e.co/" + x(120-len("https://e.co/")), ""},
		limitCase{webhooks, "/url", "https://e.co/" + x(121-len("https://e.co/")), "maxLength"})
	add(lengthCases(bothVariants, apd+"/customer_reference_number", 17)...)
	add(lengthCases(bothVariants, apd+"/invoice_reference_number", 15)...)
	add(lengthCases(bothVariants, apd+"/destination_postal_code", 10)...)
	add(lengthCases(bothVariants, apd+"/ship_from_postal_code", 10)...)
	add(lengthCases(bothVariants, item+"/merchant_product_code", 12)...)
	add(lengthCases(createSchemas, item+"/item_description", 25)...)
	add(lengthCases(captureSchemas, item+"/item_description", 26)...)
	add(lengthCases(createSchemas, item+"/unit_of_measure", 3)...)
	add(lengthCases(captureSchemas, item+"/unit_of_measure", 12)...)
	// commodity_code: at most 12 characters, and a code of 3, 5, 7 or 11 digits.
	for n := 2; n <= 12; n++ {
		rule := "pattern"
		if n == 3 || n == 5 || n == 7 || n == 11 {
			rule = ""
		}
		add(limitCase{bothVariants, item + "/commodity_code", digits(n), rule})
	}
	add(limitCase{bothVariants, item + "/commodity_code", "12a45", "pattern"})
	add(limitCase{bothVariants, item + "/commodity_code", digits(13), "maxLength+pattern"})
	add(limitCase{bothVariants, item + "/quantity", 0, "exclusiveMinimum"},
		limitCase{bothVariants, item + "/quantity", 1, ""},
		limitCase{bothVariants, item + "/quantity", -1, "exclusiveMinimum"})
	add(rangeCases(bothVariants, apd+"/order_date/day", 1, 31, "minimum")...)
	add(rangeCases(bothVariants, apd+"/order_date/month", 1, 12, "minimum")...)
	add(rangeCases(bothVariants, apd+"/order_date/year", 1000, 9999, "minimum")...)
	pic := []string{"payment_instrument_create"}
	add(lengthCases(pic, "/address/line1", 35)...)
	add(lengthCases(pic, "/address/line2", 35)...)
	add(lengthCases(pic, "/address/city", 20)...)
	add(lengthCases(pic, "/address/postal_code", 7)...)
	add(limitCase{pic, "/address/region", "C", "pattern"}, limitCase{pic, "/address/region", "CA", ""},
		limitCase{pic, "/address/region", "CAL", "pattern"}, limitCase{pic, "/address/region", "C1", "pattern"})
	add(limitCase{pic, "/address/country", "US", "pattern"}, limitCase{pic, "/address/country", "USA", ""},
		limitCase{pic, "/address/country", "USAA", "pattern"}, limitCase{pic, "/address/country", "U5A", "pattern"})
	add(rangeCases(pic, "/expiration_month", 1, 12, "minimum")...)
	add(rangeCases(pic, "/expiration_year", 1000, 9999, "minimum")...)
	add(limitCase{pic, "/security_code", digits(2), "pattern"}, limitCase{pic, "/security_code", digits(3), ""},
		limitCase{pic, "/security_code", digits(4), ""}, limitCase{pic, "/security_code", digits(5), "pattern"})
	add(limitCase{pic, "/number", digits(11), "minLength"}, limitCase{pic, "/number", digits(12), ""},
		limitCase{pic, "/number", digits(19), ""}, limitCase{pic, "/number", digits(20), "maxLength"})
	add(rangeCases([]string{"external_link_create"}, "/duration", 1, 10080, "minimum")...)
	add(limitCase{[]string{"subscription_amount_update"}, "/fee_amount_data/amount", 0, "minimum"},
		limitCase{[]string{"subscription_amount_update"}, "/fee_amount_data/amount", 1, ""})

	v := newValidator(t)
	for _, c := range cases {
		for _, schema := range c.schemas {
			name := fmt.Sprintf("%s%s=%v", schema, c.pointer, c.value)
			if s, ok := c.value.(string); ok && len(s) > 8 {
				name = fmt.Sprintf("%s%s=len%d", schema, c.pointer, len(s))
			}
			t.Run(name, func(t *testing.T) {
				doc := fullFixture(t, schema)
				setPointer(t, doc, c.pointer, c.value)
				err := v.Validate(schema, mustJSON(t, doc))
				if c.rule == "" {
					if err != nil {
						t.Fatalf("Validate(%s) with %s=%v = %v, want valid", schema, c.pointer, c.value, err)
					}
					return
				}
				var want []expectation
				for _, r := range strings.Split(c.rule, "+") {
					want = append(want, expectation{c.pointer, r})
				}
				if got := violationsOf(t, err); !slices.Equal(got, sortExpectations(want)) {
					t.Errorf("Validate(%s) with %s=%v: violations %s, want %s", schema, c.pointer, c.value,
						formatExpectations(got), formatExpectations(want))
				}
			})
		}
	}
}

// fullFixture loads testdata/<schema>/valid/full.json decoded with UseNumber.
func fullFixture(t testing.TB, schema string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", schema, "valid", "full.json"))
	if err != nil {
		t.Fatal(err)
	}
	doc, ok := decodeUseNumber(t, data).(map[string]any)
	if !ok {
		t.Fatalf("%s full fixture is not an object", schema)
	}
	return doc
}

// setPointer sets (or, with value deleteMember, removes) the member at ptr.
func setPointer(t testing.TB, doc any, ptr string, value any) {
	t.Helper()
	segs := strings.Split(strings.TrimPrefix(ptr, "/"), "/")
	cur := doc
	for i, seg := range segs {
		last := i == len(segs)-1
		switch c := cur.(type) {
		case map[string]any:
			if last {
				if value == deleteMember {
					delete(c, seg)
				} else {
					c[seg] = value
				}
				return
			}
			cur = c[seg]
		case []any:
			n, err := strconv.Atoi(seg)
			if err != nil || n >= len(c) {
				t.Fatalf("setPointer %s: bad index %q", ptr, seg)
			}
			if last {
				c[n] = value
				return
			}
			cur = c[n]
		default:
			t.Fatalf("setPointer %s: %q is not in the document", ptr, seg)
		}
	}
}

// deleteMember, given to setPointer, removes the member.
var deleteMember any = struct{ delete bool }{true}
