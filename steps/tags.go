package steps

import (
	"fmt"
	"strings"
)

// tagExpr is a parsed tag expression; a nil *tagExpr selects everything.
//
// Both syntaxes work, and may be mixed: cucumber's ("@a and not (@b or @c)")
// and godog's ("@a && ~@b,@c", where "," is an or that binds tighter than
// "&&"). Precedence, loosest first: or/||, and/&&, the comma, not/~. The "@"
// of a tag may be left out.
type tagExpr struct {
	op          string // "tag", "not", "and", "or"
	tag         string // for "tag": the name with its "@"
	left, right *tagExpr
}

// match reports whether a scenario with tags is selected.
func (e *tagExpr) match(tags []string) bool {
	if e == nil {
		return true
	}
	switch e.op {
	case "not":
		return !e.left.match(tags)
	case "and":
		return e.left.match(tags) && e.right.match(tags)
	case "or":
		return e.left.match(tags) || e.right.match(tags)
	}
	for _, t := range tags {
		if t == e.tag {
			return true
		}
	}
	return false
}

// parseTags parses a tag expression; "" selects every scenario. Errors wrap ErrUsage.
func parseTags(text string) (*tagExpr, error) {
	toks, err := tagTokens(text)
	if err != nil {
		return nil, fmt.Errorf("%w: tag expression %q: %w", ErrUsage, text, err)
	}
	if len(toks) == 0 {
		return nil, nil
	}
	p := &tagParser{toks: toks}
	e, err := p.or()
	if err == nil && p.pos < len(toks) {
		err = fmt.Errorf("unexpected %q", toks[p.pos])
	}
	if err != nil {
		return nil, fmt.Errorf("%w: tag expression %q: %w (write e.g. \"@transfers and not @assumed\")", ErrUsage, text, err)
	}
	return e, nil
}

// tagTokens splits an expression into "(", ")", ",", "&&", "||", "~" and words.
func tagTokens(text string) ([]string, error) {
	var toks []string
	for i := 0; i < len(text); {
		c := text[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			i++
		case c == '(' || c == ')' || c == ',' || c == '~':
			toks = append(toks, string(c))
			i++
		case strings.HasPrefix(text[i:], "&&") || strings.HasPrefix(text[i:], "||"):
			toks = append(toks, text[i:i+2])
			i += 2
		case c == '&' || c == '|' || c == '!':
			return nil, fmt.Errorf("unexpected %q (use and, or, not, or godog's &&, ||, ~)", string(c))
		default:
			j := i
			for j < len(text) && !strings.ContainsRune(" \t\n(),~&|", rune(text[j])) {
				j++
			}
			toks = append(toks, text[i:j])
			i = j
		}
	}
	return toks, nil
}

type tagParser struct {
	toks []string
	pos  int
}

func (p *tagParser) peek() string {
	if p.pos < len(p.toks) {
		return p.toks[p.pos]
	}
	return ""
}

// binary parses operands joined by any of ops, left-associative.
func (p *tagParser) binary(op string, operand func() (*tagExpr, error), ops ...string) (*tagExpr, error) {
	left, err := operand()
	if err != nil {
		return nil, err
	}
	for {
		tok := p.peek()
		found := false
		for _, o := range ops {
			if strings.EqualFold(tok, o) {
				found = true
			}
		}
		if !found {
			return left, nil
		}
		p.pos++
		if p.peek() == "" {
			return nil, fmt.Errorf("expected a tag after %q", tok)
		}
		right, err := operand()
		if err != nil {
			return nil, err
		}
		left = &tagExpr{op: op, left: left, right: right}
	}
}

func (p *tagParser) or() (*tagExpr, error)    { return p.binary("or", p.and, "or", "||") }
func (p *tagParser) and() (*tagExpr, error)   { return p.binary("and", p.comma, "and", "&&") }
func (p *tagParser) comma() (*tagExpr, error) { return p.binary("or", p.unary, ",") }

func (p *tagParser) unary() (*tagExpr, error) {
	tok := p.peek()
	switch {
	case tok == "":
		return nil, fmt.Errorf("expected a tag at the end")
	case tok == "~" || strings.EqualFold(tok, "not"):
		p.pos++
		if p.peek() == "" {
			return nil, fmt.Errorf("expected a tag after %q", tok)
		}
		e, err := p.unary()
		if err != nil {
			return nil, err
		}
		return &tagExpr{op: "not", left: e}, nil
	case tok == "(":
		p.pos++
		e, err := p.or()
		if err != nil {
			return nil, err
		}
		if p.peek() != ")" {
			return nil, fmt.Errorf("missing \")\"")
		}
		p.pos++
		return e, nil
	case tok == ")" || tok == "," || tok == "&&" || tok == "||" || strings.EqualFold(tok, "and") || strings.EqualFold(tok, "or"):
		return nil, fmt.Errorf("expected a tag, found %q", tok)
	}
	p.pos++
	name := tok
	if !strings.HasPrefix(name, "@") {
		name = "@" + name
	}
	if name == "@" {
		return nil, fmt.Errorf("an empty tag name")
	}
	return &tagExpr{op: "tag", tag: name}, nil
}

// maxGodogClauses bounds the conjunctive normal form handed to godog; a
// larger one is not handed over (the runner's own selection still applies).
const maxGodogClauses = 256

// godogFilter renders e in godog's tag filter syntax (clauses of
// comma-separated literals joined by "&&"), so godog leaves unselected
// scenarios out before running anything. ok is false when e has no compact
// form; "" with ok selects everything.
func (e *tagExpr) godogFilter() (string, bool) {
	if e == nil {
		return "", true
	}
	clauses, ok := e.cnf(false)
	if !ok {
		return "", false
	}
	parts := make([]string, len(clauses))
	for i, c := range clauses {
		parts[i] = strings.Join(c, ",")
	}
	return strings.Join(parts, "&&"), true
}

// cnf returns e (negated when neg) as clauses of literals ("@a", "~@a").
func (e *tagExpr) cnf(neg bool) ([][]string, bool) {
	switch e.op {
	case "tag":
		if neg {
			return [][]string{{"~" + e.tag}}, true
		}
		return [][]string{{e.tag}}, true
	case "not":
		return e.left.cnf(!neg)
	}
	l, lok := e.left.cnf(neg)
	r, rok := e.right.cnf(neg)
	if !lok || !rok {
		return nil, false
	}
	if (e.op == "and") != neg { // a conjunction: the clauses of both
		out := append(append([][]string{}, l...), r...)
		return out, len(out) <= maxGodogClauses
	}
	if len(l)*len(r) > maxGodogClauses { // a disjunction: distribute
		return nil, false
	}
	out := make([][]string, 0, len(l)*len(r))
	for _, a := range l {
		for _, b := range r {
			out = append(out, append(append([]string{}, a...), b...))
		}
	}
	return out, true
}
