package explore

import (
	"slices"
	"strings"

	"github.com/conform-kit/conform/validate"
	"github.com/conform-kit/conform/validate/judging"
)

// Values a sentence of the spec states allowed, beyond a length at its
// stated limit (atLimit): a refusal of the request that names the field
// refuses what the sentence allows, in every operation and every array
// position the body carries it.

// allowedValue is a field a body sends in a form a sentence states
// allowed, with that sentence.
type allowedValue struct {
	Field string
	Basis judging.Basis
}

// statedForms names the strings doc sends in a form a stated rule of op's
// request schema gives exactly, within a length the spec states too: a
// commodity code of 3, 5, 7 or 11 digits (§2.13) within its 12 characters
// (§8). A form without a stated length (a currency's three letters, a
// country code) is no such statement: which codes exist the spec leaves
// to the server.
func (c *contract) statedForms(op string, doc map[string]any) []allowedValue {
	var out []allowedValue
	schema := c.ops[op]
	seen := map[string]bool{}
	c.visit(schema, doc, func(s *shape, v any, ptr string) {
		if str, ok := v.(string); ok && s.re != nil && s.MaxLength >= 0 && s.Name != "" && s.Name != "*" && !seen[s.Name] &&
			s.re.MatchString(str) && len([]rune(str)) <= s.MaxLength && c.statedBound(schema, ptr, "maxLength") {
			if b, ok := c.statedRule(schema, ptr, "pattern"); ok {
				seen[s.Name] = true
				out = append(out, allowedValue{Field: s.Name, Basis: b})
			}
		}
	})
	return out
}

// statedRule is the basis of a rule of schema at ptr when the spec states
// it (judging.RequestBodyBasis), with its words.
func (c *contract) statedRule(schema, ptr, rule string) (judging.Basis, bool) {
	if c.j == nil {
		return judging.Basis{}, false
	}
	b, ok := c.j.RequestBodyBasis(schema, validate.Violation{Pointer: ptr, Rule: rule, In: validate.InBody})
	return b, ok && b.Normative() && b.Says != ""
}

// basisFeeAtAmount is the sentence allowing a fee equal to the amount.
func basisFeeAtAmount(clause string) judging.Basis {
	return saying(basisOf(clause, "7"), "fee: must be <= the amount")
}

// statedLeaves marks each bounded leaf of schema's root that a stated
// rule of judging.json names, other than required (§8's limits, quantity
// greater than 0, a commodity code's digits, a currency's three letters),
// as opposed to leaves only the reference's assumed rules bound (a
// negative amount refused).
func (c *contract) statedLeaves(schema string, root *shape) {
	if c.j == nil {
		return
	}
	row, ok := c.j.Table().Schemas[schema]
	if !ok {
		return
	}
	for _, n := range root.all {
		if !n.bounded {
			continue
		}
		ptr := "/" + strings.ReplaceAll(strings.ReplaceAll(n.Path, "[]", ".0"), ".", "/")
		n.stated = slices.ContainsFunc(row.StatedRules, func(r judging.StatedRule) bool {
			return r.Rule != "required" && slices.ContainsFunc(r.Pointers, func(p string) bool { return judging.PointerMatches(p, ptr) })
		})
	}
}
