package validate

import (
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The body rules judged in the pass (passrules.go) against BodyRules
// decoding the body after the check, as the middleware applied them
// before: same verdict, same violations (pointer, rule, message), over the
// fixtures, boundary mutations of them, every combination of the members
// the rules read, duplicate names, escaped names and a seeded random
// corpus.

// ruleOps are the operations with body rules, with the schema of each.
var ruleOps = map[string]string{
	"transfers.create":       "transfer_create",
	"authorizations.create":  "authorization_create",
	"authorizations.capture": "authorization_capture",
}

// ruleTally counts what agreeRules compared.
type ruleTally struct {
	docs, valid, inPass, broken int
}

func (c ruleTally) String() string {
	return fmt.Sprintf("%d bodies, %d valid, %d of them judged in the pass, %d breaking a rule", c.docs, c.valid, c.inPass, c.broken)
}

// agreeRules checks one body of an operation both ways: the check with the
// rules in the pass (check, as Middleware calls it) against the check
// without them followed by BodyRules. It also runs the pass alone, to
// count the bodies whose rules it judged itself (not by BodyRules'
// decoder, which check falls back to), and compares those too.
func agreeRules(t testing.TB, v *Validator, op string, body []byte, tally *ruleTally) {
	t.Helper()
	i, ok := v.tab.byID[op]
	require.True(t, ok, op)
	pr, rs := v.bodies[i], v.rules[i]
	require.True(t, rs.inPass, "%s: the pass does not gather the rules' members", op)
	// Before: the check, then BodyRules decoding the body.
	wantErr := v.validate(pr, body)
	var want error
	if wantErr == nil {
		want = BodyRules(op, body)
	}
	gotVs, gotErr := v.check(pr, body, rs)
	tally.docs++
	if wantErr != nil || gotErr != nil {
		require.Equal(t, fmt.Sprint(wantErr), fmt.Sprint(gotErr), "%s %s: the check differs", op, body)
		require.Nil(t, gotVs, "%s %s: rule violations with a failed check", op, body)
		return
	}
	tally.valid++
	var got error
	if len(gotVs) > 0 {
		got = newRequestError(CodeInvalidField, op, gotVs)
		tally.broken++
	}
	require.Equal(t, want, got, "%s %s: the rules in the pass differ from BodyRules", op, body)
	// The pass alone: did it judge the rules itself?
	p := getPass(body)
	defer p.release()
	p.gather(rs)
	if !p.run(pr.fast) {
		return // valid only after the collecting run: BodyRules judged it
	}
	vs := p.ruleViolations(rs)
	tally.inPass++
	var alone error
	if len(vs) > 0 {
		alone = newRequestError(CodeInvalidField, op, vs)
	}
	require.Equal(t, want, alone, "%s %s: the pass alone differs from BodyRules", op, body)
}

// TestBodyRulesInPassFixtures: every fixture against the three operations,
// and boundary mutations of the fixtures of their schemas and of the
// benchmark bodies (the differential test's mutations: every value
// replaced by a sample of others, every member removed, an unknown member
// added).
func TestBodyRulesInPassFixtures(t *testing.T) {
	v, err := New()
	require.NoError(t, err)
	var tally ruleTally
	schemas, docs := fixtureDocs(t)
	for _, data := range docs {
		for op := range ruleOps {
			agreeRules(t, v, op, data, &tally)
		}
	}
	t.Logf("fixtures: %v", tally)
	require.Greater(t, tally.inPass, 10)

	lengths, numbers := limits(v)
	numbers = append(numbers, "1001", "999", "10000", "10001", "9999", "100", "101")
	rng := rand.New(rand.NewPCG(7, 2026))
	var mut ruleTally
	bases := map[string][][]byte{
		"transfers.create":       {BenchLevel3Sale(3), []byte(ratioMinimalSale)},
		"authorizations.create":  {benchAuthorization(3)},
		"authorizations.capture": {benchCapture(3)},
	}
	for op, schema := range ruleOps {
		for k, s := range schemas {
			if s == schema {
				bases[op] = append(bases[op], docs[k])
			}
		}
	}
	for op, bodies := range bases {
		for _, data := range bodies {
			doc, err := slowDecode(data)
			require.NoError(t, err)
			check := func(d any) {
				b, err := json.Marshal(d)
				require.NoError(t, err)
				agreeRules(t, v, op, b, &mut)
			}
			for _, p := range paths(doc) {
				cur := valueAt(doc, p)
				muts := mutations(cur, lengths, numbers)
				if len(p) > 0 && slices.Contains([]string{"amount", "fee", "sales_tax", "tax_exempt"}, p[len(p)-1].key) {
					muts = append(muts, json.Number("0"), json.Number("-0"), json.Number("0.0"), json.Number("0e0"), true, false, nil)
				} else {
					rng.Shuffle(len(muts), func(a, b int) { muts[a], muts[b] = muts[b], muts[a] })
					muts = muts[:min(6, len(muts))]
				}
				for _, m := range muts {
					check(replaced(doc, p, m, false))
				}
				if len(p) > 0 {
					check(replaced(doc, p, nil, true))
				}
			}
		}
	}
	t.Logf("mutations: %v", mut)
	require.Greater(t, mut.inPass, 1000)
	require.Greater(t, mut.broken, 50)
}

// ruleBody builds the body of an operation from its members, as written.
type ruleBody struct {
	op        string
	head      []string // the members the schema requires, other than the rules'
	amountKey string
}

var ruleBodies = []ruleBody{
	{"transfers.create", []string{`"source":"PI0123456789abcdefghijkl"`, `"merchant":"MU0123456789abcdefghijkl"`, `"currency":"USD"`}, "amount"},
	{"authorizations.create", []string{`"source":"PI0123456789abcdefghijkl"`, `"merchant_identity":"ID0123456789abcdefghijkl"`, `"currency":"USD"`}, "amount"},
	{"authorizations.capture", nil, "capture_amount"},
}

// purchaseHead is what a Level 2/3 purchase of a create must carry.
const purchaseHead = `"customer_reference_number":"C","customs_duty_amount":0,"discount_amount":0,"shipping_amount":0`

var (
	ruleAmounts  = []string{"0", "-0", "1", "999", "1000", "1001", "1e3", "1000.0", "9223372036854775807", "9223372036854775808", `"1000"`, "null"}
	ruleTaxFlags = []string{"", "true", "false", "null", `"true"`}
	ruleTaxes    = []string{"", "0", "-0", "0.0", "0e0", "0E+0", "1", "100", "9223372036854775807", "null", `"0"`, "true"}
)

func members(ms ...string) string {
	return "{" + strings.Join(slices.DeleteFunc(ms, func(s string) bool { return s == "" }), ",") + "}"
}

func member(key, val string) string {
	if val == "" {
		return ""
	}
	return `"` + key + `":` + val
}

// TestBodyRulesInPassCombinations: every combination of amount, fee,
// tax_exempt and sales_tax over values at the rules' edges (equal, one
// over, zero written four ways, integers JSON Schema counts that
// json.Number.Int64 does not, the largest int64 and one beyond, other
// types), with and without a purchase, for the three operations.
func TestBodyRulesInPassCombinations(t *testing.T) {
	v, err := New()
	require.NoError(t, err)
	var tally ruleTally
	for _, rb := range ruleBodies {
		for _, amount := range ruleAmounts {
			for _, fee := range append([]string{""}, ruleAmounts...) {
				for _, flag := range ruleTaxFlags {
					for _, tax := range ruleTaxes {
						purchase := ""
						if flag != "" || tax != "" || amount == "1000" {
							head := purchaseHead
							if rb.op == "authorizations.capture" {
								head = ""
							}
							purchase = members(head, member("tax_exempt", flag), member("sales_tax", tax))
						}
						body := members(slices.Concat(rb.head, []string{member(rb.amountKey, amount), member("fee", fee), member("additional_purchase_data", purchase)})...)
						agreeRules(t, v, rb.op, []byte(body), &tally)
					}
				}
			}
		}
	}
	t.Logf("%v", tally)
	require.Greater(t, tally.inPass, 2000)
	require.Greater(t, tally.broken, 500)
}

// TestBodyRulesInPassText: bodies a decoder reads other than member by
// member: duplicate names (the last wins, an additional_purchase_data
// whole), escaped names, whitespace, a duplicate the schema judges only in
// its last occurrence.
func TestBodyRulesInPassText(t *testing.T) {
	v, err := New()
	require.NoError(t, err)
	sale := `"source":"PI0123456789abcdefghijkl","merchant":"MU0123456789abcdefghijkl","currency":"USD"`
	ph := purchaseHead
	bodies := []string{
		`{` + sale + `,"amount":1000,"fee":2000,"fee":10}`,
		`{` + sale + `,"amount":1000,"fee":10,"fee":2000}`,
		`{` + sale + `,"amount":10,"fee":20,"amount":30}`,
		`{` + sale + `,"amount":30,"fee":20,"amount":10}`,
		`{` + sale + `,"amount":1000,"f\u0065e":2000}`,
		`{` + sale + `,"\u0061mount":1000,"fee":2000}`,
		`{` + sale + `,"amount":1000,"Fee":2000}`,
		`{` + sale + `,"amount":1000,"FEE":2000}`,
		`{` + sale + " ,\n\t\"amount\" :\n 1000 ,\r\n \"fee\"\t:\t1001 \n}",
		`{` + sale + `,"amount":1000,"additional_purchase_data":{` + ph + `,"tax_exempt":true},"additional_purchase_data":{` + ph + `,"sales_tax":5}}`,
		`{` + sale + `,"amount":1000,"additional_purchase_data":{` + ph + `,"sales_tax":5},"additional_purchase_data":{` + ph + `,"tax_exempt":true}}`,
		`{` + sale + `,"amount":1000,"additional_purchase_data":{` + ph + `,"tax_exempt":true,"sales_tax":5},"additional_purchase_data":{` + ph + `,"sales_tax":0}}`,
		`{` + sale + `,"amount":1000,"additional_purchase_data":{` + ph + `,"tax_exempt":true,"sales_tax":0},"additional_purchase_data":{` + ph + `,"tax_exempt":false}}`,
		`{` + sale + `,"amount":1000,"additional_purchase_data":{` + ph + `,"tax_exempt":true,"sales_tax":5,"tax_exempt":false}}`,
		`{` + sale + `,"amount":1000,"additional_purchase_data":{` + ph + `,"tax_exempt":false,"sales_tax":5,"tax_exempt":true}}`,
		`{` + sale + `,"amount":1000,"additional_purchase_data":{` + ph + `,"tax_exempt":true,"sales_tax":5,"sales_tax":0}}`,
		`{` + sale + `,"amount":1000,"additional_purchase_data":{` + ph + `,"tax\u005fexempt":true,"sales_ta\u0078":5}}`,
		`{` + sale + `,"amount":1000,"additional_purchase_dat\u0061":{` + ph + `,"tax_exempt":true,"sales_tax":5}}`,
		// Valid only because the last of a name decides: the first run
		// fails, the second finds nothing, BodyRules judges the rules.
		`{` + sale + `,"amount":1000,"additional_purchase_data":null,"additional_purchase_data":{` + ph + `,"tax_exempt":true,"sales_tax":5}}`,
		`{` + sale + `,"amount":1000,"additional_purchase_data":{` + ph + `,"tax_exempt":true,"sales_tax":5},"additional_purchase_data":null,"additional_purchase_data":{` + ph + `}}`,
		`{` + sale + `,"amount":1000,"additional_purchase_data":5,"additional_purchase_data":{` + ph + `,"tax_exempt":true,"sales_tax":5}}`,
		`{` + sale + `,"amount":"1000","amount":1000,"fee":2000}`,
		`{` + sale + `,"amount":"x","amount":1000,"fee":2000}`,
		`{` + sale + `,"amount":true,"amount":1000,"fee":2000}`,
		`{` + sale + `,"amount":1000,"fee":null,"fee":2000}`,
		`{` + sale + `,"amount":1000,"fee":2000,"fee":null}`,
		`{` + sale + `,"amount":1000,"additional_purchase_data":{` + ph + `,"tax_exempt":"yes","tax_exempt":true,"sales_tax":5}}`,
		`{` + sale + `,"amount":1000,"additional_purchase_data":{` + ph + `,"tax_exempt":true,"sales_tax":"5","sales_tax":5}}`,
		`{` + sale + `,"amount":1000,"additional_purchase_data":{` + ph + `,"tax_exempt":true,"sales_tax":-1,"sales_tax":0}}`,
		`{` + sale + `,"amount":1000,"tags":{"fee":"5000","amount":"1","tax_exempt":"true","sales_tax":"1"},"fee":5}`,
		// Cut short where a member the rules read starts.
		`{` + sale + `,"amount":1000,"additional_purchase_data":{` + ph + `,"tax_exempt":`,
		`{` + sale + `,"amount":1000,"additional_purchase_data":{` + ph + `,"sales_tax":`,
		`{` + sale + `,"amount":1000,"additional_purchase_data":`,
		`{` + sale + `,"amount":1000,"fee":`,
		`{` + sale + `,"amount":-`,
		`{` + sale + `,"amount":1000,"additional_purchase_data":{` + ph + `,"tax_exempt":t`,
		`{` + sale + `,"amount":1000,"additional_purchase_data":{` + ph + `,"item_data":[{"amount_excluding_sales_tax":0,"amount_including_sales_tax":1,"commodity_code":"123","cost_per_unit":1,"item_description":"x","item_discount_amount":0,"merchant_product_code":"x","quantity":1,"unit_of_measure":"x"}],"tax_exempt":true,"sales_tax":1}}`,
	}
	var tally ruleTally
	for _, b := range bodies {
		agreeRules(t, v, "transfers.create", []byte(b), &tally)
		for _, rb := range ruleBodies[1:] {
			// The same members in an authorization and a capture.
			body := strings.Replace(b, sale, strings.Join(rb.head, ","), 1)
			if rb.head == nil {
				body = strings.Replace(b, "{"+sale+",", `{"capture_amount":1,`, 1)
			}
			agreeRules(t, v, rb.op, []byte(body), &tally)
		}
	}
	t.Logf("%v", tally)
	require.Greater(t, tally.broken, 15)
}

// TestBodyRulesInPassRandom: a seeded random corpus of bodies built from
// the rules' members in any order, repeated, with escaped names and
// whitespace.
func TestBodyRulesInPassRandom(t *testing.T) {
	v, err := New()
	require.NoError(t, err)
	n := 4000
	if testing.Short() {
		n = 800
	}
	rng := rand.New(rand.NewPCG(2026, 11))
	var tally ruleTally
	for range n {
		rb := ruleBodies[rng.IntN(len(ruleBodies))]
		agreeRules(t, v, rb.op, randomRuleBody(rng, rb), &tally)
	}
	t.Logf("%v", tally)
	require.Greater(t, tally.inPass, n/4)
	require.Greater(t, tally.broken, n/20)
}

// randomRuleBody draws a body of rb's operation whose members the rules
// read are drawn, repeated and spelled at random.
func randomRuleBody(rng *rand.Rand, rb ruleBody) []byte {
	pick := func(xs []string) string { return xs[rng.IntN(len(xs))] }
	key := func(k string) string {
		if rng.IntN(8) == 0 { // the same name, one letter escaped
			j := rng.IntN(len(k))
			return k[:j] + fmt.Sprintf(`\u%04x`, k[j]) + k[j+1:]
		}
		return k
	}
	sep := func() string { return []string{"", "", "", " ", "\n  ", "\t"}[rng.IntN(6)] }
	num := func() string {
		if rng.IntN(3) == 0 {
			return pick(ruleAmounts)
		}
		return strconv.Itoa(rng.IntN(2000))
	}
	var ms []string
	ms = append(ms, rb.head...)
	for range 1 + rng.IntN(2) {
		ms = append(ms, `"`+key(rb.amountKey)+`":`+sep()+num())
	}
	for range rng.IntN(3) {
		ms = append(ms, `"`+key("fee")+`":`+num())
	}
	for range rng.IntN(4) {
		if rng.IntN(10) == 0 {
			ms = append(ms, `"`+key("additional_purchase_data")+`":`+pick([]string{"null", "5", "{}"}))
			continue
		}
		var ps []string
		if rb.op != "authorizations.capture" || rng.IntN(2) == 0 {
			ps = append(ps, purchaseHead)
		}
		for range rng.IntN(4) {
			if rng.IntN(2) == 0 {
				ps = append(ps, `"`+key("tax_exempt")+`":`+pick(ruleTaxFlags[1:]))
			} else {
				ps = append(ps, `"`+key("sales_tax")+`":`+pick(append([]string{strconv.Itoa(rng.IntN(3))}, ruleTaxes[1:]...)))
			}
		}
		rng.Shuffle(len(ps), func(a, b int) { ps[a], ps[b] = ps[b], ps[a] })
		ms = append(ms, `"`+key("additional_purchase_data")+`":`+sep()+"{"+strings.Join(ps, ","+sep())+"}")
	}
	rng.Shuffle(len(ms), func(a, b int) { ms[a], ms[b] = ms[b], ms[a] })
	return []byte(sep() + "{" + strings.Join(ms, sep()+","+sep()) + "}" + sep())
}

// FuzzBodyRulesInPass compares the rules in the pass with BodyRules after
// the check on arbitrary bytes sent to the three operations.
func FuzzBodyRulesInPass(f *testing.F) {
	v, err := New()
	if err != nil {
		f.Fatal(err)
	}
	ops := slices.Sorted(func(yield func(string) bool) {
		for op := range ruleOps {
			if !yield(op) {
				return
			}
		}
	})
	schemas, docs := fixtureDocs(f)
	for k, data := range docs {
		for i, op := range ops {
			if ruleOps[op] == schemas[k] {
				f.Add(uint8(i), data)
			}
		}
	}
	// Once read past its end (the value of tax_exempt cut off).
	f.Add(uint8(0), []byte(`{"capture_amount":10,"fee":100,"additional_purchase_data":{"000":100,"tax_exempt":`))
	rng := rand.New(rand.NewPCG(1, 2))
	for range 30 {
		i := rng.IntN(len(ruleBodies))
		f.Add(uint8(slices.Index(ops, ruleBodies[i].op)), randomRuleBody(rng, ruleBodies[i]))
	}
	f.Fuzz(func(t *testing.T, i uint8, body []byte) {
		var tally ruleTally
		agreeRules(t, v, ops[int(i)%len(ops)], body, &tally)
	})
}

// TestParseInt64: parseInt64 is strconv.ParseInt(s, 10, 64) without the
// error's allocation.
func TestParseInt64(t *testing.T) {
	for _, s := range slices.Concat(specialNumbers, ruleAmounts, []string{"", "-", "+", "+5", "--1", "1-", "00", "-00", "0x10", "1_000",
		"9223372036854775806", "-9223372036854775807", "-9223372036854775808", "-9223372036854775809",
		"18446744073709551615", "18446744073709551616", "92233720368547758080", "99999999999999999999999"}) {
		want, err := strconv.ParseInt(s, 10, 64)
		got, ok := parseInt64(s)
		assert.Equal(t, err == nil, ok, "%q", s)
		if err == nil {
			assert.Equal(t, want, got, "%q", s)
		}
	}
}

// logrefText is the envelope's log reference, different on every answer.
var logrefText = regexp.MustCompile(`"logref":"[0-9a-f]+"`)

// TestMiddlewareBodyRulesAsBefore: through the middleware, the rules in
// the pass answer every body of the combinations and the text table as
// the middleware answered it before (the check, then BodyRules): the same
// status and the same bytes of the envelope.
func TestMiddlewareBodyRulesAsBefore(t *testing.T) {
	v, err := New()
	require.NoError(t, err)
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) })
	now := Middleware(v)(ok)
	before := Middleware(v, WithoutBodyRules())(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		m, _ := MatchFrom(r.Context())
		if err := BodyRules(m.Operation.ID, body); err != nil {
			WriteError(w, r, err)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	targets := map[string][2]string{
		"transfers.create":       {"POST", "/transfers"},
		"authorizations.create":  {"POST", "/authorizations"},
		"authorizations.capture": {"PUT", "/authorizations/AU0123456789abcdefghijkl"},
	}
	rng := rand.New(rand.NewPCG(5, 6))
	refused := 0
	for range 1500 {
		rb := ruleBodies[rng.IntN(len(ruleBodies))]
		body := randomRuleBody(rng, rb)
		var codes [2]int
		var answers [2]string
		for k, h := range []http.Handler{now, before} {
			req := httptest.NewRequest(targets[rb.op][0], targets[rb.op][1], strings.NewReader(string(body)))
			req.Header.Set("Content-Type", "application/json")
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			codes[k], answers[k] = rec.Code, logrefText.ReplaceAllString(rec.Body.String(), `"logref":"…"`)
		}
		require.Equal(t, codes[1], codes[0], "%s %s", rb.op, body)
		require.Equal(t, answers[1], answers[0], "%s %s", rb.op, body)
		if codes[0] == http.StatusUnprocessableEntity && strings.Contains(answers[0], "INVALID_FIELD") && (strings.Contains(answers[0], "exceeds amount") || strings.Contains(answers[0], "tax_exempt is true")) {
			refused++
		}
	}
	require.Greater(t, refused, 50, "few bodies broke a rule: the comparison proves little")
}
