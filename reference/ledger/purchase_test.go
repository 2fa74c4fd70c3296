package ledger

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

	"github.com/conform-kit/conform/validate"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// treeOf decodes text as json.Unmarshal does, with UseNumber.
func treeOf(text []byte) (any, error) {
	if !json.Valid(text) {
		return nil, fmt.Errorf("not one JSON value: %q", text)
	}
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}

// sameCanonical requires AppendCanonical to write from text what AppendTree
// writes from its tree, and to refuse what encoding/json refuses.
func sameCanonical(t *testing.T, text []byte) {
	t.Helper()
	got, err := AppendCanonical([]byte("prefix"), text)
	tree, treeErr := treeOf(text)
	if treeErr != nil {
		require.Error(t, err, "%q: encoding/json refuses it (%v)", text, treeErr)
		return
	}
	require.NoError(t, err, "%q", text)
	want, err := AppendTree([]byte("prefix"), tree)
	require.NoError(t, err)
	require.Equal(t, string(want), string(got), "%q", text)
}

// canonicalCases are JSON texts of every kind the canonical form handles:
// white space, member order, duplicate names, escapes, numbers as written.
var canonicalCases = []string{
	`{}`, `[]`, `null`, `true`, `false`, `0`, `-0`, `1.50`, `1e3`, `-2E-7`, `12345678901234567890123`,
	`""`, `"plain text"`, `"<&>"`, `"\u003c"`, `"\/"`, `"é"`, "\"\u2028\u2029\"", `"\ud83d\ude00"`, `"\ud800"`,
	`"\udc00x"`, "\"\xff\xfe\"", "\"a\x7fb\"", `"tab\there"`, `"\b\f\n\r\t\"\\"`,
	` { "b" : 1 , "a" : [ 1 , { "z" : null , "y" : true } ] } `,
	`{"a":1,"a":2}`, `{"a":{"x":1},"b":0,"a":[3]}`, `{"b":1,"a":2,"b":3,"a":4}`,
	`{"\u0061":1,"a":2}`, `{"a":1,"\u0061":2}`, `{"é":1,"e":2,"<":3,"\u003c":4}`, "{\"\xff\":1,\"\ufffd\":2}",
	`{"customer_reference_number":"CRN-1","customs_duty_amount":0,"discount_amount":0,"item_data":[{"amount_excluding_sales_tax":1000,"amount_including_sales_tax":1080}],"shipping_amount":100}`,
	`{"z":1,"y":2,"x":3,"w":4,"v":5,"u":6,"t":7,"s":8,"r":9,"q":10,"p":11,"o":12,"n":13,"m":14,"l":15,"k":16,"j":17,"i":18}`,
	// not JSON
	``, ` `, `{`, `}`, `{"a"}`, `{"a":}`, `{"a":1,}`, `[1,]`, `01`, `1.`, `-`, `1e`, `+1`, `.5`, `tru`, `nul`,
	`"\x"`, `"\u12"`, "\"a\nb\"", `{"a":1}x`, `{} {}`, `[1 2]`, `{"a" 1}`, `{1:2}`, `"`,
}

func TestAppendCanonicalMatchesTree(t *testing.T) {
	for _, c := range canonicalCases {
		sameCanonical(t, []byte(c))
	}
	rng := rand.New(rand.NewPCG(11, 13))
	for range 3000 {
		sameCanonical(t, randomJSON(rng, 0))
	}
}

// FuzzAppendCanonical holds AppendCanonical to AppendTree on any bytes.
func FuzzAppendCanonical(f *testing.F) {
	for _, c := range canonicalCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, text []byte) { sameCanonical(t, text) })
}

// randomJSON writes a JSON value with white space, names out of order and
// repeated, escapes and numbers in every form.
func randomJSON(rng *rand.Rand, depth int) []byte {
	ws := func() string { return []string{"", "", " ", "\n\t", "\r "}[rng.IntN(5)] }
	names := []string{"a", "b", "sales_tax", "item_data", "tax_exempt", "é", `\u0062`, "<x>", "A", ""}
	var b bytes.Buffer
	b.WriteString(ws())
	switch k := rng.IntN(9); {
	case k < 2 && depth < 4:
		b.WriteString("{")
		for i := range rng.IntN(6) {
			if i > 0 {
				b.WriteString("," + ws())
			}
			fmt.Fprintf(&b, `"%s"%s:`, names[rng.IntN(len(names))], ws())
			b.Write(randomJSON(rng, depth+1))
		}
		b.WriteString(ws() + "}")
	case k < 4 && depth < 4:
		b.WriteString("[")
		for i := range rng.IntN(4) {
			if i > 0 {
				b.WriteString(",")
			}
			b.Write(randomJSON(rng, depth+1))
		}
		b.WriteString("]")
	case k < 6:
		b.WriteString([]string{`0`, `-0`, `7`, `1.0`, `1e3`, `-12.5E+2`, `9223372036854775808`, `80`}[rng.IntN(8)])
	case k < 8:
		b.WriteString([]string{`""`, `"x"`, `"<&>"`, `"\u00e9\n"`, `"\ud800"`, "\"\xc3\"", `"EA"`}[rng.IntN(7)])
	default:
		b.WriteString([]string{`true`, `false`, `null`}[rng.IntN(3)])
	}
	b.WriteString(ws())
	return b.Bytes()
}

// purchaseDataTree is purchaseData as it was on the decoded map: the
// differential tests hold the one on bytes to it.
func purchaseDataTree(m *Merchant, data map[string]any) (json.RawMessage, error) {
	if data == nil {
		return nil, nil
	}
	if err := validate.CheckLevel23(m.LevelTwoLevelThreeDataEnabled, true); err != nil {
		return nil, err
	}
	if err := validate.CheckTaxExempt(data); err != nil {
		return nil, err
	}
	var salesTax *TreeMember
	if _, ok := data["sales_tax"]; !ok {
		if tax, ok := validate.SalesTax(data); ok {
			salesTax = &TreeMember{"sales_tax", json.Number(strconv.FormatInt(tax, 10))}
		}
	}
	return AppendTreeObject(nil, data, salesTax)
}

// samePurchaseData requires purchaseData on the canonical form of text to
// keep what purchaseDataTree keeps from its tree, with the same verdict.
func samePurchaseData(t *testing.T, m *Merchant, text []byte) {
	t.Helper()
	tree, err := treeOf(text)
	require.NoError(t, err, "%q", text)
	obj, _ := tree.(map[string]any)
	want, wantErr := purchaseDataTree(m, obj)
	p, err := NewPurchaseData(text)
	require.NoError(t, err, "%q", text)
	got, gotErr := purchaseData(m, p)
	require.Equal(t, fmt.Sprint(wantErr), fmt.Sprint(gotErr), "%q", text)
	require.Equal(t, string(want), string(got), "%q", text)
}

// level23Fixtures are the purchase data of the validator's fixture bodies.
func level23Fixtures(t *testing.T) [][]byte {
	t.Helper()
	var out [][]byte
	for _, dir := range []string{"authorization_create", "transfer_create", "authorization_capture"} {
		files, err := filepath.Glob(filepath.Join("..", "..", "validate", "testdata", dir, "*", "*.json"))
		require.NoError(t, err)
		for _, f := range files {
			body, err := os.ReadFile(f)
			require.NoError(t, err)
			var doc map[string]json.RawMessage
			if json.Unmarshal(body, &doc) != nil {
				continue
			}
			if p, ok := doc["additional_purchase_data"]; ok && len(p) > 0 && p[0] == '{' {
				out = append(out, p)
			}
		}
	}
	require.NotEmpty(t, out)
	return out
}

// randomLevel23 writes Level 2/3 purchase data: the contract's members in
// any order, some left out or repeated, values of every form the rules
// read (integers as 5, 5.0, -0 or 1e2, out of range, of another type),
// items that break the sum, white space and escapes.
func randomLevel23(rng *rand.Rand) []byte {
	ws := func() string { return []string{"", "", " ", "\n  "}[rng.IntN(4)] }
	num := func() string {
		return []string{`0`, `5`, `80`, `1000`, `1080`, `5.0`, `-0`, `1e2`, `"5"`, `null`, `9223372036854775807`,
			`-9223372036854775808`, `true`}[rng.IntN(13)]
	}
	item := func() string {
		if rng.IntN(10) == 0 {
			return []string{`1`, `"x"`, `null`, `[]`}[rng.IntN(4)]
		}
		members := []string{
			`"amount_excluding_sales_tax":` + num(), `"amount_including_sales_tax":` + num(),
			`"commodity_code":"12345"`, `"cost_per_unit":1000`, `"item_description":"Widget \u00e9<"`,
			`"item_discount_amount":0`, `"merchant_product_code":"W-1"`, `"quantity":1`, `"unit_of_measure":"EA"`,
		}
		rng.Shuffle(len(members), func(i, j int) { members[i], members[j] = members[j], members[i] })
		return "{" + strings.Join(members[:rng.IntN(len(members)+1)], ","+ws()) + "}"
	}
	members := []string{
		`"customer_reference_number":"CRN-\u0031"`, `"customs_duty_amount":0`, `"discount_amount":0`,
		`"shipping_amount":100`, `"destination_country_code":"US"`, `"order_date":{"day":1,"month":2,"year":2026}`,
		`"sales_tax":` + num(), `"tax_exempt":` + []string{`true`, `false`, `null`}[rng.IntN(3)],
		`"sales_tax":` + num(),
	}
	items := make([]string, rng.IntN(5))
	for i := range items {
		items[i] = item()
	}
	members = append(members, `"item_data":[`+strings.Join(items, ",")+`]`)
	if rng.IntN(8) == 0 {
		members = append(members, `"item_data":"none"`)
	}
	rng.Shuffle(len(members), func(i, j int) { members[i], members[j] = members[j], members[i] })
	return []byte("{" + ws() + strings.Join(members[:rng.IntN(len(members)+1)], ","+ws()) + ws() + "}")
}

// TestPurchaseDataMatchesTree: on the fixture bodies' purchase data and on
// random Level 2/3 data, the rules on the canonical bytes keep and refuse
// what they kept and refused on the decoded map, for a merchant enabled for
// Level 2/3 data and one that is not.
func TestPurchaseDataMatchesTree(t *testing.T) {
	on, off := &Merchant{LevelTwoLevelThreeDataEnabled: true}, &Merchant{}
	texts := level23Fixtures(t)
	rng := rand.New(rand.NewPCG(5, 8))
	for range 3000 {
		texts = append(texts, randomLevel23(rng))
	}
	added := 0
	for _, text := range texts {
		samePurchaseData(t, on, text)
		if p, _ := NewPurchaseData(text); !bytes.Contains(p, []byte(`"sales_tax"`)) {
			if got, err := purchaseData(on, p); err == nil && bytes.Contains(got, []byte(`"sales_tax"`)) {
				added++
			}
		}
	}
	samePurchaseData(t, off, texts[0])
	assert.Greater(t, added, 20, "sales_tax filled in from the items")
	got, err := purchaseData(on, nil)
	assert.NoError(t, err)
	assert.Nil(t, got)
}

// TestMergePurchaseDataMatchesTree: a capture's purchase data merged with
// its authorization's, then the rules, as on the decoded maps (maps.Copy).
func TestMergePurchaseDataMatchesTree(t *testing.T) {
	on := &Merchant{LevelTwoLevelThreeDataEnabled: true}
	rng := rand.New(rand.NewPCG(2, 9))
	stored := []json.RawMessage{nil}
	for range 300 {
		p, err := NewPurchaseData(randomLevel23(rng))
		require.NoError(t, err)
		kept, err := purchaseData(on, p)
		if err == nil {
			stored = append(stored, kept)
		}
	}
	for _, s := range stored {
		for range 10 {
			text := randomLevel23(rng)
			base, err := decodePurchaseData(s)
			require.NoError(t, err)
			sentTree, err := treeOf(text)
			require.NoError(t, err)
			if base == nil {
				base = map[string]any{}
			}
			maps.Copy(base, sentTree.(map[string]any))
			want, wantErr := purchaseDataTree(on, base)

			sent, err := NewPurchaseData(text)
			require.NoError(t, err)
			merged, err := mergePurchaseData(s, sent)
			require.NoError(t, err)
			got, gotErr := purchaseData(on, merged)
			require.Equal(t, fmt.Sprint(wantErr), fmt.Sprint(gotErr), "%s + %s", s, text)
			require.Equal(t, string(want), string(got), "%s + %s", s, text)
		}
	}
}

// TestPurchaseDataJSON: PurchaseData marshals as its canonical form and
// unmarshals into it, null as none.
func TestPurchaseDataJSON(t *testing.T) {
	var in struct {
		P PurchaseData `json:"p"`
	}
	require.NoError(t, json.Unmarshal([]byte(`{"p": {"b": "<", "a": [1.0]}}`), &in))
	assert.Equal(t, `{"a":[1.0],"b":"\u003c"}`, string(in.P))
	out, err := json.Marshal(in)
	require.NoError(t, err)
	assert.Equal(t, `{"p":{"a":[1.0],"b":"\u003c"}}`, string(out))
	require.NoError(t, json.Unmarshal([]byte(`{"p":null}`), &in))
	assert.Nil(t, in.P)
	out, err = json.Marshal(in)
	require.NoError(t, err)
	assert.Equal(t, `{"p":null}`, string(out))
	assert.Error(t, json.Unmarshal([]byte(`{"p":[1]}`), &in))
}

// TestMergeStoredInAnotherForm: stored purchase data with white space or
// out of order still merges, as the decoded map did.
func TestMergeStoredInAnotherForm(t *testing.T) {
	for stored, want := range map[string]string{
		`{ "b" : 1 , "a" : [ 2 ] }`: `{"a":[2],"b":3,"c":4}`,
		` { } `:                     `{"b":3,"c":4}`,
	} {
		got, err := mergePurchaseData(json.RawMessage(stored), PurchaseData(`{"b":3,"c":4}`))
		require.NoError(t, err)
		assert.Equal(t, want, string(got), stored)
	}
	got, err := mergePurchaseData(json.RawMessage(`{"a":1}`), PurchaseData(`{}`))
	require.NoError(t, err)
	assert.Equal(t, `{"a":1}`, string(got))
	_, err = mergePurchaseData(json.RawMessage(`[1]`), PurchaseData(`{}`))
	assert.Error(t, err)
}
