package validate

// The body rules (BodyRules: a sale's fee at most its amount, no sales_tax
// on a tax-exempt purchase) read four members: amount and fee of the body,
// tax_exempt and sales_tax of its additional_purchase_data. The pass
// gathers them while it reads the body for the schema, so the middleware
// judges the rules without decoding the body again and without
// allocating.
//
// They are gathered as BodyRules' decoder sees them: members are folded in
// document order, the last of duplicate names wins, and the members of
// every additional_purchase_data of the body land in one set (the decoder
// fills one map). A member is folded once, the first time the pass reads
// it: the pass reads a value again for $ref, allOf, anyOf, if and
// dependentSchemas, always after its first reading, so a member whose
// value starts at or before the last one folded is a second reading.

// ruleSet is the body rules of one operation.
type ruleSet struct {
	op     string // the operation id; "" when its body has no rule
	fee    bool   // fee must not exceed amount (a sale)
	inPass bool   // the pass gathers the members (passRulesFit)
}

// bodyRulesOf returns whether BodyRules concerns the operation, and whether
// the fee rule does.
func bodyRulesOf(operationID string) (applies, fee bool) {
	switch operationID {
	case "transfers.create":
		return true, true
	case "authorizations.create", "authorizations.capture":
		return true, false
	}
	return false, false
}

// passRulesFit reports whether the pass can gather the rules' members from
// a schema's program: its root reads additional_purchase_data with a
// subschema (not skipping it), so the first reading of the body descends
// into it. A schema that does not fit has its rules applied by BodyRules.
func passRulesFit(root *fnode) bool {
	if root == nil || root.never {
		return false
	}
	i, ok := root.lookup("additional_purchase_data")
	return ok && root.entries[i].prop != nil
}

// Kinds of a gathered value.
const (
	factAbsent = iota // not given
	factNumber        // a number: from, to hold its text
	factNull          // null
	factOther         // any other JSON type
)

// ruleFact is one gathered member.
type ruleFact struct {
	kind     uint8
	from, to int
}

// ruleFacts is what the pass gathers for the body rules.
type ruleFacts struct {
	on         bool // gather (the first run of a body with rules)
	pos        int  // where the value of the last member folded starts
	inPurchase bool // the last top-level member folded is additional_purchase_data, an object
	purchase   bool // an additional_purchase_data object was given (the decoder's map is not nil)
	exempt     bool // its tax_exempt is true
	odd        bool // a member the decoder would refuse or read other than the pass: BodyRules decides
	amount     ruleFact
	fee        ruleFact
	salesTax   ruleFact
}

// fold records the member named key whose value starts at i, read in an
// object at depth p.depth (1: the body).
func (p *pass) fold(key string, i int) {
	f := &p.facts
	if i <= f.pos {
		return // read again
	}
	f.pos = i
	if p.depth == 1 {
		f.inPurchase = false
		switch key {
		case "amount":
			f.amount = p.fact(i)
		case "fee":
			f.fee = p.fact(i)
		case "additional_purchase_data":
			switch p.kindAt(i) {
			case tObject:
				f.purchase, f.inPurchase = true, true
			case tNull: // the decoder drops the map
				f.purchase, f.exempt, f.salesTax = false, false, ruleFact{}
			default:
				f.odd = true
			}
		}
		return
	}
	if !f.inPurchase {
		return
	}
	switch key {
	case "tax_exempt":
		f.exempt = p.kindAt(i) == tBoolean && p.data[i] == 't' // only the literal true is a bool true
	case "sales_tax":
		f.salesTax = p.fact(i)
	}
}

// fact reads a gathered scalar at i. amount and fee are decoded into
// *json.Number: null clears them, a string may hold a number, other types
// fail the decoding; the pass leaves those rare bodies to BodyRules.
func (p *pass) fact(i int) ruleFact {
	switch p.kindAt(i) {
	case tNumber:
		if end := p.number(i); end > i {
			return ruleFact{kind: factNumber, from: i, to: end}
		}
	case tNull:
		return ruleFact{kind: factNull}
	}
	return ruleFact{kind: factOther}
}

// ruleViolations judges the gathered members by the rules of rs, as
// BodyRules does (CheckFee and CheckTaxExempt on the decoded members). ok
// is false when the members are odd: BodyRules must judge the body.
func (p *pass) ruleViolations(rs ruleSet) (vs []Violation, ok bool) {
	f := &p.facts
	if f.odd || (f.amount.kind == factOther || f.fee.kind == factOther) {
		return nil, false
	}
	if rs.fee && f.amount.kind == factNumber && f.fee.kind == factNumber {
		amount, okA := parseInt64(bytesString(p.data[f.amount.from:f.amount.to]))
		fee, okF := parseInt64(bytesString(p.data[f.fee.from:f.fee.to]))
		if okA && okF && fee > amount {
			vs = append(vs, feeViolation(amount, fee))
		}
	}
	if f.purchase && f.exempt {
		switch f.salesTax.kind {
		case factAbsent, factNull:
		case factNumber:
			if n, isInt := parseInt64(bytesString(p.data[f.salesTax.from:f.salesTax.to])); !isInt || n != 0 {
				vs = append(vs, taxExemptViolation())
			}
		default:
			vs = append(vs, taxExemptViolation())
		}
	}
	return vs, true
}

// parseInt64 reads a JSON number's text as strconv.ParseInt(s, 10, 64)
// does (json.Number.Int64): digits with an optional '-', within int64;
// anything else (a fraction, an exponent) is not one. It allocates
// nothing, where ParseInt's error does.
func parseInt64(s string) (int64, bool) {
	neg := false
	if s != "" && (s[0] == '-' || s[0] == '+') {
		neg = s[0] == '-'
		s = s[1:]
	}
	if s == "" {
		return 0, false
	}
	const limit = uint64(1) << 63
	var n uint64
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		if n > (limit+9)/10 {
			return 0, false
		}
		n = n*10 + uint64(c-'0')
		if n > limit {
			return 0, false
		}
	}
	switch {
	case neg:
		return -int64(n), true // n == 1<<63 wraps to math.MinInt64, as ParseInt gives
	case n == limit:
		return 0, false
	}
	return int64(n), true
}
