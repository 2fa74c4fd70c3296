package ledger

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/conform-kit/conform/validate"
)

// PurchaseData is a request's additional_purchase_data in canonical form
// (AppendCanonical): the bytes json.Marshal writes for the decoded object,
// whatever the member order, spacing and escapes the client sent; nil when
// the body has none or null. It is written once, from the body's bytes, and
// is what a record keeps (with sales_tax filled in), what an answer writes
// and what the idempotency hash reads: the rules read the few members they
// need from it, and nothing decodes it into a tree.
type PurchaseData []byte

// errNotObject is NewPurchaseData's error for a JSON value other than an
// object.
var errNotObject = errors.New("additional_purchase_data is not a JSON object")

// NewPurchaseData is the canonical form of text, a JSON object; an error
// when text is anything else.
func NewPurchaseData(text []byte) (PurchaseData, error) {
	// Most often no longer than text: white space goes, escapes seldom
	// grow.
	b, err := AppendCanonical(make([]byte, 0, len(text)), text)
	if err != nil {
		return nil, err
	}
	if b[0] != '{' {
		return nil, errNotObject
	}
	if cap(b)-len(b) > len(b)/8 {
		b = slices.Clone(b) // kept: little spare capacity
	}
	return b, nil
}

// MarshalJSON writes the canonical form as it is, null for none.
func (p PurchaseData) MarshalJSON() ([]byte, error) {
	if p == nil {
		return []byte("null"), nil
	}
	return p, nil
}

// UnmarshalJSON takes the canonical form of an object, none for null, so
// encoding/json decodes a body into the input types as the reference's own
// readers do.
func (p *PurchaseData) UnmarshalJSON(text []byte) error {
	if string(text) == "null" {
		*p = nil
		return nil
	}
	q, err := NewPurchaseData(text)
	if err != nil {
		return err
	}
	*p = q
	return nil
}

// purchaseData applies the Level 2/3 rules to data sent for merchant m, and
// returns what a record keeps: data, with sales_tax filled from the items
// when it is omitted, in the form it is served in (a fraction of the memory
// of a decoded map).
func purchaseData(m *Merchant, data PurchaseData) (json.RawMessage, error) {
	if data == nil {
		return nil, nil
	}
	if err := validate.CheckLevel23(m.LevelTwoLevelThreeDataEnabled, true); err != nil {
		return nil, err
	}
	f, ok := readPurchaseFacts(data)
	if !ok {
		return nil, fmt.Errorf("read purchase data: %w", errNotJSON)
	}
	if f.taxExempt {
		// The rule is broken only with tax_exempt true: then it is
		// decided on the decoded data, as validate states it.
		tree, err := decodePurchaseData(json.RawMessage(data))
		if err != nil {
			return nil, err
		}
		if err := validate.CheckTaxExempt(tree); err != nil {
			return nil, err
		}
	}
	if f.salesTax || !f.itemsTaxOK {
		return json.RawMessage(data), nil
	}
	var num [20]byte
	tax := strconv.AppendInt(num[:0], f.itemsTax, 10)
	out := make([]byte, 0, len(data)+len(`,"sales_tax":`)+len(tax))
	out = append(out, data[:f.at]...)
	if data[f.at] == '}' && f.at > 1 {
		out = append(out, ',')
	}
	out = append(out, `"sales_tax":`...)
	out = append(out, tax...)
	if data[f.at] != '}' {
		out = append(out, ',')
	}
	return append(out, data[f.at:]...), nil
}

// mergePurchaseData is the purchase data a capture keeps: the members of
// the authorization's (stored, in canonical form) and of the capture's
// (sent), the capture's where both name one.
func mergePurchaseData(stored json.RawMessage, sent PurchaseData) (PurchaseData, error) {
	if len(stored) == 0 || string(stored) == "null" {
		return sent, nil
	}
	// The record keeps the canonical form; written again, so that text
	// kept in another form still merges.
	base, err := AppendCanonical(make([]byte, 0, len(stored)+len(sent)), stored)
	if err != nil || base[0] != '{' {
		return nil, fmt.Errorf("stored purchase data: %w", errNotObject)
	}
	// One object of both's members, the capture's last: the canonical form
	// keeps the last of duplicate names.
	text := base[:len(base)-1]
	if len(base) > 2 && len(sent) > 2 {
		text = append(text, ',')
	}
	text = append(text, sent[1:]...)
	merged, err := NewPurchaseData(text)
	if err != nil {
		return nil, fmt.Errorf("merge stored purchase data: %w", err)
	}
	return merged, nil
}

// purchaseFacts is what the Level 2/3 rules read of purchase data in
// canonical form.
type purchaseFacts struct {
	taxExempt  bool  // tax_exempt is true
	salesTax   bool  // sales_tax is there
	at         int   // where sales_tax goes: the first member named after it, or the closing brace
	itemsTax   int64 // the items' sales tax (validate.SalesTax), when itemsTaxOK
	itemsTaxOK bool
}

// readPurchaseFacts reads the members tax_exempt, sales_tax and item_data
// of p, a JSON object in canonical form (no white space, members sorted, no
// duplicate names), without decoding the others; false when p is not one.
func readPurchaseFacts(p PurchaseData) (purchaseFacts, bool) {
	var f purchaseFacts
	if len(p) < 2 || p[0] != '{' {
		return f, false
	}
	placed := false
	i := 1
	for p[i] != '}' {
		if i > 1 {
			if p[i] != ',' {
				return f, false
			}
			i++
		}
		end, plain := stringEnd(p, i)
		if end < 0 || end >= len(p) || p[end] != ':' {
			return f, false
		}
		key := p[i+1 : end-1]
		if !placed {
			if plain && string(key) > "sales_tax" || !plain && decodedAfter(p[i:end], "sales_tax") {
				f.at, placed = i, true
			}
		}
		v := end + 1
		next := skipValue(p, v)
		if next < 0 || next >= len(p) {
			return f, false
		}
		if plain {
			switch string(key) {
			case "tax_exempt":
				f.taxExempt = string(p[v:next]) == "true"
			case "sales_tax":
				f.salesTax = true
			case "item_data":
				f.itemsTax, f.itemsTaxOK = itemsSalesTax(p[v:next])
			}
		}
		i = next
	}
	if !placed {
		f.at = i
	}
	return f, i == len(p)-1
}

// decodedAfter reports whether the JSON string text decodes to a name
// sorted after name.
func decodedAfter(text []byte, name string) bool {
	var s string
	_ = json.Unmarshal(text, &s)
	return s > name
}

// itemsSalesTax is validate.SalesTax's sum over item_data (text, canonical
// JSON): amount_including_sales_tax less amount_excluding_sales_tax of
// every object with both integers; false when none has, when item_data is
// not an array, or when the sum overflows.
func itemsSalesTax(text []byte) (int64, bool) {
	if text[0] != '[' {
		return 0, false
	}
	var total int64
	found := false
	for i := 1; i < len(text) && text[i] != ']'; {
		if text[i] == ',' {
			i++
		}
		end := skipValue(text, i)
		if end < 0 {
			return 0, false
		}
		incl, excl, ok := itemAmounts(text[i:end])
		i = end
		if !ok {
			continue
		}
		if total, ok = validate.AddItemSalesTax(total, incl, excl); !ok {
			return 0, false // no int64 holds the sum: nothing sensible to compute
		}
		found = true
	}
	return total, found
}

// itemAmounts reads an item's amount_including_sales_tax and
// amount_excluding_sales_tax: ok when the item is an object with both,
// integers in int64 range.
func itemAmounts(item []byte) (incl, excl int64, ok bool) {
	if item[0] != '{' {
		return 0, 0, false
	}
	var okI, okE bool
	for i := 1; i < len(item) && item[i] != '}'; {
		if item[i] == ',' {
			i++
		}
		end, _ := stringEnd(item, i)
		if end < 0 || end >= len(item) {
			return 0, 0, false
		}
		next := skipValue(item, end+1)
		if next < 0 {
			return 0, 0, false
		}
		switch string(item[i+1 : end-1]) {
		case "amount_including_sales_tax":
			incl, okI = intText(item[end+1 : next])
		case "amount_excluding_sales_tax":
			excl, okE = intText(item[end+1 : next])
		}
		i = next
	}
	return incl, excl, okI && okE
}

// intText reads an integer written as JSON digits (a minus sign at most)
// in int64 range, as validate reads an integral json.Number.
func intText(text []byte) (int64, bool) {
	digits := text
	neg := len(text) > 0 && text[0] == '-'
	if neg {
		digits = text[1:]
	}
	if len(digits) == 0 {
		return 0, false
	}
	const limit = uint64(1) << 63 // the magnitude of math.MinInt64
	var n uint64
	for _, c := range digits {
		if c < '0' || c > '9' {
			return 0, false
		}
		if n > (limit-uint64(c-'0'))/10 {
			return 0, false
		}
		n = n*10 + uint64(c-'0')
	}
	switch {
	case neg:
		return int64(-n), true // -(1<<63) wraps to itself
	case n == limit:
		return 0, false
	}
	return int64(n), true
}

// decodePurchaseData turns stored purchase data back into the map the
// rules read; nil for none.
func decodePurchaseData(raw json.RawMessage) (map[string]any, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("decode stored purchase data: %w", err)
	}
	return m, nil
}
