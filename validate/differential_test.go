package validate

import (
	"bytes"
	"encoding/json"
	"io"
	"math/big"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/conform-kit/conform/validate/internal/jsondoc"
	"github.com/stretchr/testify/require"
)

// The differential test: the pass against jsonschema v5 over encoding/json's
// tree (agree, in fastpath_internal_test.go) on every fixture, on boundary
// mutations of every fixture, and on a seeded random corpus, against every
// schema. Verdicts and violations (pointer, rule and message) must be the
// same, up to the cap.

// limits collects every length, item count and numeric bound of the
// programs, each with its neighbours.
func limits(v *Validator) (lengths []int, numbers []string) {
	seen := map[*fnode]bool{}
	var walk func(n *fnode)
	walk = func(n *fnode) {
		if n == nil || seen[n] {
			return
		}
		seen[n] = true
		for _, l := range []int{n.minLen, n.maxLen, n.minItems, n.maxItems} {
			if l >= 0 {
				lengths = append(lengths, max(0, l-1), l, l+1)
			}
		}
		for _, b := range n.bounds {
			numbers = append(numbers, addOne(b.text, -1), b.text, addOne(b.text, 1))
		}
		for _, e := range n.entries {
			walk(e.prop)
			walk(e.dependent)
		}
		for _, c := range slices.Concat(n.inplace, n.anyOf, []*fnode{n.additional, n.items, n.ifNode, n.thenNode, n.elseNode}) {
			walk(c)
		}
	}
	for _, name := range v.names {
		walk(v.fast[name])
	}
	slices.Sort(lengths)
	slices.Sort(numbers)
	return slices.Compact(lengths), slices.Compact(numbers)
}

// addOne adds d (±1) to an integer's text, exactly.
func addOne(s string, d int) string {
	n, ok := new(big.Int).SetString(s, 10)
	if !ok {
		return s
	}
	return n.Add(n, big.NewInt(int64(d))).String()
}

// specialNumbers are the numbers a float would get wrong, and integers
// written as JSON Schema still counts them.
var specialNumbers = []string{
	"0", "-0", "1", "-1", "0.5", "1.0", "1e3", "1E2", "12.0", "-1e0", "2.5e1",
	"2147483647", "2147483648", "-2147483649",
	"9007199254740992", "9007199254740993", "-9007199254740993",
	"9223372036854775806", "9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
	"1000000000000000000", "9999999999999999999", "10000000000000000000",
	"9223372036854775807.5", "922337203685477580.7e1", "1e19", "1e-5", "123456789012345678901234567890",
}

// mutations returns the values to put in place of v: every other type,
// the limits of the programs, special numbers, strings of every limit's
// length in one-, two- and four-byte characters, edits of v itself, and
// deep nesting.
func mutations(v any, lengths []int, numbers []string) []any {
	deep := any([]any{})
	for range 64 {
		deep = []any{deep}
	}
	out := []any{nil, true, false, "", "x", json.Number("0"), json.Number("-1"), json.Number("1.5"), []any{}, map[string]any{},
		map[string]any{"unknown_member": json.Number("1")}, deep}
	switch x := v.(type) {
	case json.Number:
		for _, n := range slices.Concat(numbers, specialNumbers) {
			out = append(out, json.Number(n))
		}
	case string:
		for _, l := range lengths {
			for _, r := range []string{"a", "é", "😀", "7"} {
				out = append(out, strings.Repeat(r, l))
			}
		}
		out = append(out, x+"x", x+"é", "x"+x, strings.ToLower(x), strings.ToUpper(x), x+" ", "\u0000"+x, "https://"+x, x+"Z")
		if x != "" {
			out = append(out, x[:len(x)-1], x[1:])
		}
	case []any:
		if len(x) > 0 {
			out = append(out, slices.Clone(x[1:]), append(slices.Clone(x), x[0]), append(slices.Clone(x), "x"))
		}
		for _, l := range lengths {
			if l <= 12 {
				out = append(out, slices.Repeat([]any{json.Number("1")}, l))
			}
		}
	}
	return out
}

// step is one pointer segment of a value in a document.
type step struct {
	key   string
	index int
}

// paths lists every value's path in doc, members in key order.
func paths(doc any) [][]step {
	var out [][]step
	var walk func(v any, p []step)
	walk = func(v any, p []step) {
		out = append(out, slices.Clone(p))
		switch x := v.(type) {
		case map[string]any:
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for _, k := range keys {
				walk(x[k], append(p, step{key: k, index: -1}))
			}
		case []any:
			for i, e := range x {
				walk(e, append(p, step{index: i}))
			}
		}
	}
	walk(doc, nil)
	return out
}

// replaced returns doc with the value at path replaced by val, or removed
// when remove (a member or an element); the parts along the path are
// copied, the rest shared.
func replaced(doc any, path []step, val any, remove bool) any {
	if len(path) == 0 {
		return val
	}
	s := path[0]
	switch x := doc.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = e
		}
		if len(path) == 1 && remove {
			delete(m, s.key)
		} else {
			m[s.key] = replaced(x[s.key], path[1:], val, remove)
		}
		return m
	case []any:
		a := slices.Clone(x)
		if len(path) == 1 && remove {
			return slices.Delete(a, s.index, s.index+1)
		}
		a[s.index] = replaced(x[s.index], path[1:], val, remove)
		return a
	}
	return doc
}

// valueAt follows path in doc.
func valueAt(doc any, path []step) any {
	segs := make([]string, len(path))
	for i, s := range path {
		if s.index >= 0 {
			segs[i] = strconv.Itoa(s.index)
		} else {
			segs[i] = s.key
		}
	}
	v, _ := jsondoc.Walk(doc, segs)
	return v
}

// TestDifferentialMutations compares the pass with jsonschema on boundary
// mutations of every fixture: every value replaced (a sample of the
// replacements, drawn with a fixed seed), every member and element
// removed, an unknown member added to every object.
func TestDifferentialMutations(t *testing.T) {
	v, err := New()
	require.NoError(t, err)
	lengths, numbers := limits(v)
	require.Contains(t, numbers, "9223372036854775807")
	require.Contains(t, lengths, 121)
	perValue := 12
	if testing.Short() {
		perValue = 3
	}
	rng := rand.New(rand.NewPCG(24, 2026))
	schemas, docs := fixtureDocs(t)
	start := compared.Load()
	for i, data := range docs {
		doc, err := slowDecode(data)
		if err != nil {
			continue
		}
		schema := schemas[i]
		check := func(d any) {
			b, err := json.Marshal(d)
			require.NoError(t, err)
			agree(t, v, schema, b)
		}
		for _, p := range paths(doc) {
			cur := valueAt(doc, p)
			muts := mutations(cur, lengths, numbers)
			rng.Shuffle(len(muts), func(a, b int) { muts[a], muts[b] = muts[b], muts[a] })
			for _, m := range muts[:min(perValue, len(muts))] {
				check(replaced(doc, p, m, false))
			}
			if len(p) > 0 {
				check(replaced(doc, p, nil, true))
			}
			if obj, ok := cur.(map[string]any); ok {
				extra := make(map[string]any, len(obj)+1)
				for k, e := range obj {
					extra[k] = e
				}
				extra["unknown_member"] = "x"
				check(replaced(doc, p, extra, false))
			}
		}
	}
	n := compared.Load() - start
	t.Logf("%d mutated documents compared", n)
	require.Greater(t, n, int64(5000), "the comparison proves little")
}

// randomValue draws a JSON value whose keys are the contract's names, so
// that it reaches deep into the programs.
func randomValue(rng *rand.Rand, keys []string, depth int) any {
	k := rng.IntN(10)
	if depth > 4 && k >= 7 {
		k = rng.IntN(7)
	}
	switch k {
	case 0:
		return nil
	case 1:
		return rng.IntN(2) == 0
	case 2:
		return json.Number(specialNumbers[rng.IntN(len(specialNumbers))])
	case 3:
		return json.Number(strconv.Itoa(rng.IntN(200) - 20))
	case 4:
		alphabet := []string{"a", "Z", "0", "9", "é", "😀", "-", "_", " ", "PI", "MU", "USD", "https://", ":", "T", "."}
		var b strings.Builder
		for range rng.IntN(30) {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		return b.String()
	case 5:
		return []string{"BASIC", "BEARER", "NONE", "USD", "FIXED_TIME_INTERVAL", "PERIODIC_MONTHLY", "UPLOAD", "PI0123456789abcdefghijkl",
			"MU0123456789abcdefghijkl", "https://example.com/x", "2026-11-25T10:00:00.123Z", "123e4567-e89b-12d3-a456-426614174000"}[rng.IntN(12)]
	case 6:
		return rng.IntN(3) == 0
	case 7:
		a := make([]any, rng.IntN(4))
		for i := range a {
			a[i] = randomValue(rng, keys, depth+1)
		}
		return a
	default:
		m := map[string]any{}
		for range rng.IntN(7) {
			m[keys[rng.IntN(len(keys))]] = randomValue(rng, keys, depth+1)
		}
		return m
	}
}

// TestDifferentialRandom compares the pass with jsonschema on a seeded
// random corpus against every schema.
func TestDifferentialRandom(t *testing.T) {
	v, err := New()
	require.NoError(t, err)
	keys := make([]string, 0, len(v.keys))
	for k := range v.keys {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	docs := 6000
	if testing.Short() {
		docs = 1000
	}
	rng := rand.New(rand.NewPCG(2026, 24))
	start, invalid := compared.Load(), invalidCompared.Load()
	for i := range docs {
		doc := map[string]any{}
		for range rng.IntN(9) {
			doc[keys[rng.IntN(len(keys))]] = randomValue(rng, keys, 1)
		}
		b, err := json.Marshal(doc)
		require.NoError(t, err)
		agree(t, v, v.names[i%len(v.names)], b)
	}
	t.Logf("%d random documents compared, %d of them invalid", compared.Load()-start, invalidCompared.Load()-invalid)
}

// TestDifferentialText compares the two on bodies a tree loses: escapes,
// invalid UTF-8, duplicate names, nesting at and beyond encoding/json's
// limit, numbers written every way, syntax errors.
func TestDifferentialText(t *testing.T) {
	v, err := New()
	require.NoError(t, err)
	sale := `"merchant":"MU0123456789abcdefghijkl","currency":"USD","amount":5`
	bodies := []string{
		`{"source":"P\u0049` + "0123" + `",` + sale + `}`,
		`{"sou\u0072ce":"PI0123",` + sale + `}`,
		`{"source":"PI0123\ud800",` + sale + `}`,
		`{"source":"PI0123\ud83d\ude00",` + sale + `}`,
		"{\"source\":\"PI0123\xff\"," + sale + `}`,
		`{"source":"PI0123","source":"XX",` + sale + `}`,
		`{"source":"XX","source":"PI0123",` + sale + `}`,
		`{"source":"PI0123",` + sale + `,"amount":1.0}`,
		`{"source":"PI0123",` + sale + `,"amount":1e2}`,
		`{"source":"PI0123",` + sale + `,"amount":-0.0}`,
		`{"source":"PI0123",` + sale + `,"amount":9223372036854775807}`,
		`{"source":"PI0123",` + sale + `,"amount":9223372036854775808}`,
		`{"source":"PI0123",` + sale + `,"amount":92233720368547758070e-1}`,
		`{"source":"PI0123",` + sale + `,"tags":{"k":` + strings.Repeat("[", 9998) + strings.Repeat("]", 9998) + `}}`,
		`{"source":"PI0123",` + sale + `,"tags":{"k":` + strings.Repeat("[", 9999) + strings.Repeat("]", 9999) + `}}`,
		`{"source":"PI0123",` + sale + `,"tags":{"k":` + strings.Repeat("[", 10000) + strings.Repeat("]", 10000) + `}}`,
		`{"source":"PI0123",` + sale + `,"x":` + strings.Repeat(`{"a":`, 10000) + "1" + strings.Repeat("}", 10000) + `}`,
		`{"source":"PI0123",` + sale + `,"tags":{"k":[}}`,
		`{"source":"PI0123",` + sale + `} x`,
		`{"source":"PI0123",` + sale + `}{}`,
		`{"source":"PI0123",` + sale,
		`{"source":"PI0123",` + sale + `,}`,
		`{"source":"PI0123",` + sale + `,"a":01}`,
		`{"source":"PI0123",` + sale + `,"a":1.}`,
		`{"source":"PI0123",` + sale + `,"a":"\x"}`,
		"{\"source\":\"PI0\n123\"," + sale + `}`,
		`{"amount":1,"amount":2,"":3}`, `["a",{"amount":1,"amount":2,"` + "" + `":0}]`, `{"tags":{"a":1},"tags":{"b":"c"},"x":[}`,
		`{"amount":-1,"amount":2,"b":[1,}`, `{"amount":-1,"amount":2`,
		`{"amount":1e1000`, `{"amount":1e1000,"tags":[}`, `{"amount":1e1000} x`,
		`{"":{}}`, `{"tags":{"":1}}`, `{"a~b/c":1}`, `{"tags":{"a~b/c":1}}`,
		` `, ``, `nul`, `[1,]`, `[0,0,0`, `"abc`, `{"a" 1}`, "\t{\"amount\":1}\n",
	}
	for _, b := range bodies {
		for _, schema := range []string{"transfer_create", "webhook_create", "authorization_create", "subscription_amount_create"} {
			agree(t, v, schema, []byte(b))
		}
	}
}

// TestValidBodiesAllocateNothing: the pass allocates nothing on a valid
// body, with or without the body rules the middleware judges in it; and
// through the middleware, the rules add no allocation to a request on the
// three operations they concern.
func TestValidBodiesAllocateNothing(t *testing.T) {
	v, err := New()
	require.NoError(t, err)
	exempt := strings.Replace(string(BenchLevel3Sale(3)), `"sales_tax":100,`, `"sales_tax":0,`, 1)
	exempt = strings.Replace(exempt, `"tax_exempt":false`, `"tax_exempt":true`, 1)
	cases := []struct {
		op, method, target string
		body               []byte
	}{
		{"transfers.create", "POST", "/transfers", []byte(ratioMinimalSale)},
		{"transfers.create", "POST", "/transfers", BenchLevel3Sale(3)},
		{"transfers.create", "POST", "/transfers", BenchLevel3Sale(50)},
		{"transfers.create", "POST", "/transfers", []byte(exempt)},
		{"authorizations.create", "POST", "/authorizations", benchAuthorization(3)},
		{"authorizations.capture", "PUT", "/authorizations/AU0123456789abcdefghijkl", benchCapture(3)},
	}
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) })
	rules, noRules := Middleware(v)(ok), Middleware(v, WithoutBodyRules())(ok)
	for _, c := range cases {
		i := v.tab.byID[c.op]
		pr, rs := v.bodies[i], v.rules[i]
		vs, err := v.check(pr, c.body, rs)
		require.NoError(t, err)
		require.Empty(t, vs)
		allocs := []float64{
			testing.AllocsPerRun(20, func() { _ = v.Request(c.op, c.body) }),
			testing.AllocsPerRun(20, func() { _, _ = v.check(pr, c.body, rs) }),
		}
		// Through the middleware, which allocates for its own work (the
		// body read, the request with its match).
		req := httptest.NewRequest(c.method, c.target, nil)
		req.Header.Set("Content-Type", "application/json")
		var w discardWriter
		through := func(h http.Handler) float64 {
			return testing.AllocsPerRun(20, func() {
				req.Body = io.NopCloser(bytes.NewReader(c.body))
				w.status = 0
				h.ServeHTTP(&w, req)
			})
		}
		withRules, withoutRules := through(rules), through(noRules)
		require.Equal(t, http.StatusNoContent, w.status)
		t.Logf("%s, %d bytes: the middleware allocates %.0f times with the body rules, %.0f without", c.op, len(c.body), withRules, withoutRules)
		if raceBuild {
			require.Less(t, allocs[0], 8.0, "allocations per call on %d bytes", len(c.body))
			require.Less(t, allocs[1], 8.0, "allocations per call on %d bytes, with the body rules", len(c.body))
			require.Less(t, withRules, withoutRules+8, "the middleware's allocations with the body rules, %s", c.op)
			continue
		}
		require.Zero(t, allocs[0], "allocations per call on %d bytes", len(c.body))
		require.Zero(t, allocs[1], "allocations per call on %d bytes, with the body rules", len(c.body))
		require.Equal(t, withoutRules, withRules, "the middleware's allocations with the body rules and without, %s on %d bytes", c.op, len(c.body))
	}
}

// TestViolationsAreCapped: 500 bad items cost MaxViolations violations,
// and the error says how many more there are.
func TestViolationsAreCapped(t *testing.T) {
	v, err := New()
	require.NoError(t, err)
	var b strings.Builder
	b.WriteString(`{"url":"https://example.com/x","enabled_events":[`)
	for i := range 500 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"entity":"","extra":1}`)
	}
	b.WriteString(`]}`)
	err = v.Request("webhooks.create", []byte(b.String()))
	var e *Error
	require.ErrorAs(t, err, &e)
	require.Len(t, e.Violations, MaxViolations)
	require.Equal(t, 1000-MaxViolations, e.Omitted)
	require.Contains(t, e.Error(), "and 900 more")
}
