package validate

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/conform-kit/conform/validate/internal/jsondoc"
)

// The body rules are the business rules a request body alone shows broken.
// They are one table: each rule's name (Violation.Rule), the JSON pointers
// of the members it reads and its judge are code (ruleJudges); the
// operations that apply it are data (operations.json, each operation's
// body_rules), and so are the spec's sections and words that state it
// (judging.json, body_rules). New joins the three and refuses a rule that is
// missing from one of them. Every way the library judges a rule calls the
// same judge: the pass over the bytes (passrules.go), the decoded check
// (BodyRules, and check for a body the pass cannot judge), and the
// functions a handler calls with its own values (CheckFee,
// CheckTaxExempt).

// maxReads is the most members one rule reads.
const maxReads = 2

// Kinds of a member a rule reads.
const (
	valueAbsent = iota // not in the body
	valueNull
	valueTrue
	valueFalse
	valueNumber
	valueOther // a string, an object or an array
)

// ruleValue is one member a rule reads, as the decoded document holds it.
type ruleValue struct {
	kind  uint8
	isInt bool  // a number json.Number.Int64 reads (no fraction, no exponent, within int64)
	n     int64 // its value, when isInt
}

// ruleValues are the members a rule reads, in the order of its reads.
type ruleValues [maxReads]ruleValue

// ruleJudge is the code of one body rule.
type ruleJudge struct {
	name  string   // Violation.Rule of its violation
	reads []string // the pointers of the members it reads, at most maxReads
	// judge returns the violation of the members, and whether there is one.
	judge func(ruleValues) (Violation, bool)
}

// ruleJudges is the code of every body rule, in the order their
// violations are judged.
func ruleJudges() []ruleJudge {
	return []ruleJudge{
		{RuleFeeMax, []string{"/amount", "/fee"}, judgeFee},
		{RuleTaxExempt, []string{"/additional_purchase_data/tax_exempt", "/additional_purchase_data/sales_tax"}, judgeTaxExempt},
	}
}

// judgeFee: a fee, when given, is at most the amount. Members that are not
// int64 integers (1e3, 1000.0, beyond int64) leave the rule out: the
// schema judges them.
func judgeFee(v ruleValues) (Violation, bool) {
	amount, fee := v[0], v[1]
	if amount.kind != valueNumber || fee.kind != valueNumber || !amount.isInt || !fee.isInt || fee.n <= amount.n {
		return Violation{}, false
	}
	return feeViolation(amount.n, fee.n), true
}

// judgeTaxExempt: with tax_exempt true, sales_tax is 0 or absent (null
// counts as absent; 0.0 or 0e0 is not the integer 0).
func judgeTaxExempt(v ruleValues) (Violation, bool) {
	exempt, tax := v[0], v[1]
	if exempt.kind != valueTrue {
		return Violation{}, false
	}
	switch {
	case tax.kind == valueAbsent, tax.kind == valueNull:
		return Violation{}, false
	case tax.kind == valueNumber && tax.isInt && tax.n == 0:
		return Violation{}, false
	}
	return taxExemptViolation(), true
}

// BodyRule is one business rule of the contract that a request body alone
// shows broken, as the Validator joined it from its code and the data.
type BodyRule struct {
	Name       string   // the Violation.Rule of its violations ("fee_max")
	Reads      []string // the JSON pointers of the body members it reads
	Operations []string // the operations that apply it (operations.json body_rules), in table order
	Clauses    []string // the spec sections that state it (judging.json body_rules)
	Says       string   // the spec's words
}

// bodyRule is one rule as New joins it.
type bodyRule struct {
	ruleJudge
	clauses []string
	says    string
	ops     []string
}

// maxRules is the most body rules one operation applies.
const maxRules = 4

// ruleSet is the body rules of one operation and how the pass gathers
// the members they read. It is one block of memory (no slices to follow),
// read on every request with rules.
type ruleSet struct {
	op     string // the operation id
	inPass bool   // the pass gathers the members (passRulesFit)
	lens   uint64 // a bit for the length of every name in slots (below 64), the pass's first filter
	nRules int
	nSlots int
	rules  [maxRules]ruleAt   // in the order of ruleJudges
	slots  [maxSlots]ruleSlot // every member the rules read, once
}

// ruleAt is a rule with the slots of the members it reads.
type ruleAt struct {
	judge func(ruleValues) (Violation, bool) // rule.judge
	n     int                                // len(rule.reads)
	at    [maxReads]int
	rule  *bodyRule
}

// slotList is the slots in use.
func (rs *ruleSet) slotList() []ruleSlot { return rs.slots[:rs.nSlots] }

// ruleList is the rules in use.
func (rs *ruleSet) ruleList() []ruleAt { return rs.rules[:rs.nRules] }

// ruleSlot is one member the rules of an operation read: a member of the
// body (parent "") or of a member of the body that is an object.
type ruleSlot struct {
	parent, name string
}

// judgingRules is the body_rules table of judging.json.
type judgingRules map[string]struct {
	Clauses []string `json:"clauses"`
	Says    string   `json:"says"`
}

// compileBodyRules joins the rules' code with their rows in judging.json
// and the operations that list them, and builds each operation's ruleSet.
func compileBodyRules(t table, rows judgingRules, bodies []*program) ([]bodyRule, []*ruleSet, error) {
	judges := ruleJudges()
	rules := make([]bodyRule, len(judges))
	byName := make(map[string]int, len(judges))
	for i, j := range judges {
		row, ok := rows[j.name]
		if !ok || len(row.Clauses) == 0 || row.Says == "" {
			return nil, nil, fmt.Errorf("validate: %s: body rule %s has no clauses or words", judgingFile, j.name)
		}
		rules[i] = bodyRule{ruleJudge: j, clauses: row.Clauses, says: row.Says}
		byName[j.name] = i
	}
	for name := range rows {
		if _, ok := byName[name]; !ok {
			return nil, nil, fmt.Errorf("validate: %s: body rule %s has no judge", judgingFile, name)
		}
	}
	sets := make([]*ruleSet, len(t.ops))
	for i, op := range t.ops {
		if len(op.BodyRules) == 0 {
			continue
		}
		if !op.HasJSONBody() {
			return nil, nil, fmt.Errorf("validate: %s: operation %s has body rules but no JSON body", operationsFile, op.ID)
		}
		rs := &ruleSet{op: op.ID}
		for _, name := range op.BodyRules {
			k, ok := byName[name]
			if !ok {
				return nil, nil, fmt.Errorf("validate: %s: operation %s: unknown body rule %q", operationsFile, op.ID, name)
			}
			rules[k].ops = append(rules[k].ops, op.ID)
		}
		for k := range rules {
			if !slices.Contains(op.BodyRules, rules[k].name) {
				continue
			}
			if rs.nRules == maxRules {
				return nil, nil, fmt.Errorf("validate: %s: operation %s applies more than %d body rules", operationsFile, op.ID, maxRules)
			}
			r := ruleAt{judge: rules[k].judge, n: len(rules[k].reads), rule: &rules[k]}
			for m, ptr := range rules[k].reads {
				if r.at[m] = rs.slot(ptr); r.at[m] < 0 {
					return nil, nil, fmt.Errorf("validate: operation %s: its body rules read more than %d members", op.ID, maxSlots)
				}
			}
			rs.rules[rs.nRules] = r
			rs.nRules++
		}
		rs.inPass = passRulesFit(bodies[i].fast, rs.slotList())
		sets[i] = rs
	}
	return rules, sets, nil
}

// slot returns the index of the slot of ptr, adding it the first time (-1:
// no room). A pointer deeper than two members gets a slot the pass cannot
// fill (passRulesFit then leaves the operation to the decoded check).
func (rs *ruleSet) slot(ptr string) int {
	segs := strings.Split(strings.TrimPrefix(ptr, "/"), "/")
	s := ruleSlot{name: jsondoc.Unescape(segs[len(segs)-1])}
	switch len(segs) {
	case 1:
	case 2:
		s.parent = jsondoc.Unescape(segs[0])
	default:
		s.parent, s.name = ptr, "" // never met by the pass
	}
	if k := slices.Index(rs.slotList(), s); k >= 0 {
		return k
	}
	if rs.nSlots == maxSlots {
		return -1
	}
	for _, name := range []string{s.name, s.parent} {
		if len(name) < 64 {
			rs.lens |= 1 << len(name)
		}
	}
	rs.slots[rs.nSlots] = s
	rs.nSlots++
	return rs.nSlots - 1
}

// BodyRuleTable returns every body rule the Validator judges, with the
// operations that apply it and the clauses that state it (a copy).
func (v *Validator) BodyRuleTable() []BodyRule {
	out := make([]BodyRule, len(v.bodyRules))
	for i, r := range v.bodyRules {
		out[i] = BodyRule{Name: r.name, Reads: slices.Clone(r.reads), Operations: slices.Clone(r.ops),
			Clauses: slices.Clone(r.clauses), Says: r.says}
	}
	return out
}

// BodyRules applies to a request body that passed its schema the business
// rules that need nothing but the body, those the operation lists
// (BodyRuleTable): on a sale (transfers.create) fee must not exceed amount
// (CheckFee); on a sale, an authorization or a capture, a tax-exempt
// additional_purchase_data carries sales_tax 0 or none (CheckTaxExempt). It
// returns nil or an *Error (Where request, code INVALID_FIELD) naming the
// operation; other operations, and a body that is not a JSON object, pass.
// It decodes the body into the tree DecodeRequest hands back and reads the
// members there; Middleware and RequestBody judge the same rules with the
// same judges while they check the body against its schema, in one pass.
// It uses the Default Validator.
func BodyRules(operationID string, body []byte) error {
	v, err := Default()
	if err != nil {
		return err
	}
	i, ok := v.tab.byID[operationID]
	if !ok {
		return nil
	}
	vs := v.decodedRuleViolations(v.rules[i], body)
	if len(vs) == 0 {
		return nil
	}
	return newRequestError(CodeInvalidField, operationID, vs)
}

// decodedRuleViolations judges the rules of rs on the decoded body: the
// violations, or none.
func (v *Validator) decodedRuleViolations(rs *ruleSet, body []byte) []Violation {
	if rs == nil {
		return nil
	}
	doc, err := decodeKeys(body, v.keys)
	if err != nil {
		return nil // not JSON: the schema has judged the body
	}
	if _, ok := doc.(map[string]any); !ok {
		return nil
	}
	var vs []Violation
	for _, r := range rs.ruleList() {
		var vals ruleValues
		for m, ptr := range r.rule.reads {
			x, ok := jsondoc.At(doc, ptr)
			vals[m] = valueOf(x, ok)
		}
		if vi, broken := r.judge(vals); broken {
			vs = append(vs, vi)
		}
	}
	return vs
}

// valueOf reads a member of a decoded document (json.Number with
// UseNumber; float64 and Go integers as callers of CheckTaxExempt may hold
// them) as a rule reads it.
func valueOf(x any, present bool) ruleValue {
	if !present {
		return ruleValue{}
	}
	switch b := x.(type) {
	case nil:
		return ruleValue{kind: valueNull}
	case bool:
		if b {
			return ruleValue{kind: valueTrue}
		}
		return ruleValue{kind: valueFalse}
	case json.Number, float64, int, int64:
		n, ok := number(x)
		return ruleValue{kind: valueNumber, isInt: ok, n: n}
	}
	return ruleValue{kind: valueOther}
}

// intValue is an integer member.
func intValue(n int64) ruleValue { return ruleValue{kind: valueNumber, isInt: true, n: n} }
