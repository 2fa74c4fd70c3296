package reference

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/conform-kit/conform/reference/ledger"
	"github.com/conform-kit/conform/validate"
	"github.com/stretchr/testify/require"
)

// The purchase data a request sends is kept, answered and hashed as
// canonical bytes written from the body's text (ledger.PurchaseData). These
// tests hold it to the way it was done on the decoded tree: the body
// decoded with encoding/json, the rules on the map, the map written by
// AppendTree.

// treePurchaseData is what a record kept of purchase data decoded as a
// tree: sales_tax filled in from the items when omitted, written by
// AppendTree.
func treePurchaseData(t *testing.T, data map[string]any) string {
	t.Helper()
	var salesTax *ledger.TreeMember
	if _, ok := data["sales_tax"]; !ok {
		if tax, ok := validate.SalesTax(data); ok {
			salesTax = &ledger.TreeMember{Name: "sales_tax", Value: json.Number(strconv.FormatInt(tax, 10))}
		}
	}
	b, err := ledger.AppendTreeObject(nil, data, salesTax)
	require.NoError(t, err)
	return string(b)
}

// purchaseTree decodes the body's additional_purchase_data with
// encoding/json (UseNumber), integers in integer form when one of the
// body's typed integers is written in another (as decodeTree does).
func purchaseTree(t *testing.T, body []byte, inexact bool) map[string]any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var doc map[string]any
	require.NoError(t, dec.Decode(&doc))
	if inexact {
		integralize(doc)
	}
	m, _ := doc["additional_purchase_data"].(map[string]any)
	return m
}

// answeredPurchaseData is the additional_purchase_data of an answer, byte
// for byte.
func answeredPurchaseData(t *testing.T, r response) string {
	t.Helper()
	var doc map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(r.body, &doc), "%s", r.body)
	return string(doc["additional_purchase_data"])
}

// treeSaleBody is TransferCreate as it was, its purchase data a map: the
// canonical encoding the idempotency hash read is json.Marshal of it.
type treeSaleBody struct {
	Source                 string         `json:"source"`
	Merchant               string         `json:"merchant"`
	Amount                 json.Number    `json:"amount"`
	Fee                    *int64         `json:"fee"`
	Currency               string         `json:"currency"`
	IdempotencyID          *string        `json:"idempotency_id"`
	Tags                   ledger.Tags    `json:"tags"`
	AdditionalPurchaseData map[string]any `json:"additional_purchase_data"`
}

// level23Fixtures are the purchase data of the validator's fixture bodies
// of dir.
func level23Fixtures(t *testing.T, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "validate", "testdata", dir, "valid", "*.json"))
	require.NoError(t, err)
	var out []string
	for _, f := range files {
		body, err := os.ReadFile(f)
		require.NoError(t, err)
		var doc map[string]json.RawMessage
		require.NoError(t, json.Unmarshal(body, &doc))
		if p := doc["additional_purchase_data"]; len(p) > 0 && p[0] == '{' {
			out = append(out, string(p))
		}
	}
	require.NotEmpty(t, out, dir)
	return out
}

// randomPurchaseData writes valid Level 2/3 data for a create or sale
// (capture: the capture's) with the contract's members in any order, some
// optional ones left out, one repeated, integers as 5, 5.0, 5e0 or -0,
// strings with escapes and characters encoding/json escapes, and white
// space.
func randomPurchaseData(rng *rand.Rand, capture bool) string {
	ws := func() string { return []string{"", "", " ", "\n\t"}[rng.IntN(4)] }
	cents := func(n int) string {
		s := strconv.Itoa(n)
		switch rng.IntN(6) {
		case 0:
			return s + ".0"
		case 1:
			return s + "e0"
		case 2:
			if n == 0 {
				return "-0"
			}
		}
		return s
	}
	item := func() string {
		excl := rng.IntN(5000)
		members := []string{
			`"amount_excluding_sales_tax":` + cents(excl),
			`"amount_including_sales_tax":` + cents(excl+rng.IntN(500)),
			`"commodity_code":"12345"`, `"cost_per_unit":` + cents(1000), `"item_description":"W\u00e9 <&> \u2028"`,
			`"item_discount_amount":` + cents(0), `"merchant_product_code":"W-1"`, `"quantity":` + cents(1+rng.IntN(3)),
			`"unit_of_measure":"EA"`,
		}
		if capture && rng.IntN(2) == 0 {
			members = members[2:5] // item_description is the one required
		}
		rng.Shuffle(len(members), func(i, j int) { members[i], members[j] = members[j], members[i] })
		return "{" + strings.Join(members, ","+ws()) + "}"
	}
	members := []string{
		`"customer_reference_number":"CRN-\u0031<"`, `"customs_duty_amount":` + cents(0), `"discount_amount":` + cents(0),
		`"shipping_amount":` + cents(100), `"shipping_amount":` + cents(rng.IntN(200)),
	}
	optional := []string{`"destination_country_code":"US"`, `"order_date":{"year":2026,"month":2,"day":1}`, `"ship_from_postal_code":"94105"`}
	switch rng.IntN(4) {
	case 0:
		optional = append(optional, `"tax_exempt":true`)
	case 1:
		optional = append(optional, `"tax_exempt":false`, `"sales_tax":`+cents(rng.IntN(300)))
	case 2:
		optional = append(optional, `"tax_exempt":true`, []string{`"sales_tax":0`, `"sales_tax":-0`}[rng.IntN(2)])
	}
	items := make([]string, rng.IntN(4))
	for i := range items {
		items[i] = item()
	}
	if len(items) > 0 || rng.IntN(2) == 0 {
		optional = append(optional, `"item_data":[`+strings.Join(items, ",")+`]`)
	}
	for _, m := range optional {
		if rng.IntN(4) > 0 {
			members = append(members, m)
		}
	}
	if capture {
		members = members[rng.IntN(5):]
	}
	rng.Shuffle(len(members), func(i, j int) { members[i], members[j] = members[j], members[i] })
	return "{" + ws() + strings.Join(members, ","+ws()) + ws() + "}"
}

// TestPurchaseDataMatchesTree sends sales with the fixture bodies' purchase
// data and random Level 2/3 data, and requires of each: the answered
// purchase data (what the record keeps) is what the tree's way kept, the
// idempotency hash's canonical encoding is json.Marshal of the body decoded
// as before, and the hash of a replay with the members in another order is
// the same.
func TestPurchaseDataMatchesTree(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.Limits = ledger.Limits{CreatesPerMinute: -1, MaxRetained: -1, MaxBytes: -1} })
	card, merchant := h.card(), h.fx.Fixtures.Merchant
	datas := level23Fixtures(t, "transfer_create")
	datas = append(datas, level23Fixtures(t, "authorization_create")...)
	rng := rand.New(rand.NewPCG(21, 34))
	for range 150 {
		datas = append(datas, randomPurchaseData(rng, false))
	}
	for n, data := range datas {
		amount := []string{"1000", "1000", "1e3"}[n%3]
		body := []byte(fmt.Sprintf(`{"source":%q,"merchant":%q,"amount":%s,"currency":"USD","idempotency_id":"pd-%d","additional_purchase_data":%s}`,
			card, merchant, amount, n, data))
		tree := purchaseTree(t, body, amount == "1e3")
		r := h.expect(h.call(h.platform(), "POST", "/transfers", body), 201, "transfer")
		require.Equal(t, treePurchaseData(t, tree), answeredPurchaseData(t, r), "%s", body)

		var in ledger.TransferCreate
		require.NoError(t, decodeBody(h.srv.v, body, &in))
		got, err := (*saleBody)(&in).appendCanonical(nil)
		require.NoError(t, err)
		old := treeSaleBody{Source: card, Merchant: merchant, Amount: "1000", Currency: "USD", AdditionalPurchaseData: tree}
		id := fmt.Sprint("pd-", n)
		old.IdempotencyID = &id
		want, err := json.Marshal(old)
		require.NoError(t, err)
		require.Equal(t, string(want), string(got), "%s", body)
	}
}

// TestCapturePurchaseDataMatchesTree authorizes with random Level 2/3 data
// and captures with more: the capture keeps the authorization's members
// and its own, its own where both name one, as the tree's way did.
func TestCapturePurchaseDataMatchesTree(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.Limits = ledger.Limits{CreatesPerMinute: -1, MaxRetained: -1, MaxBytes: -1} })
	card, merchant := h.card(), h.fx.Fixtures.Merchant
	captures := level23Fixtures(t, "authorization_capture")
	rng := rand.New(rand.NewPCG(55, 89))
	refused := 0
	for n := range 60 {
		authData := ""
		if n%5 != 0 {
			authData = `,"additional_purchase_data":` + randomPurchaseData(rng, false)
		}
		capture := randomPurchaseData(rng, true)
		if n < len(captures) {
			capture = captures[n]
		}
		auth := h.expect(h.call(h.platform(), "POST", "/authorizations",
			fmt.Sprintf(`{"source":%q,"merchant":%q,"amount":1000,"currency":"USD"%s}`, card, merchant, authData)), 201, "authorization")
		body := []byte(`{"capture_amount":500,"additional_purchase_data":` + capture + `}`)
		merged := map[string]any{}
		if stored := answeredPurchaseData(t, auth); stored != "" {
			dec := json.NewDecoder(strings.NewReader(stored))
			dec.UseNumber()
			require.NoError(t, dec.Decode(&merged))
		}
		maps.Copy(merged, purchaseTree(t, body, false))

		r := h.call(h.platform(), "PUT", "/authorizations/"+auth.str(t, "id"), body)
		if err := validate.CheckTaxExempt(merged); err != nil {
			// A tax-exempt capture of an authorization whose sales tax
			// was filled in from its items.
			h.expect(r, 422, "")
			require.Contains(t, string(r.body), "sales_tax must be 0 or absent when tax_exempt is true")
			refused++
			continue
		}
		h.expect(r, 200, "authorization")
		require.Equal(t, treePurchaseData(t, merged), answeredPurchaseData(t, r), "%s then %s", authData, body)
	}
	require.Less(t, refused, 30, "most captures are kept")
}
