package validate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// BenchmarkMiddlewareRatios prints the middleware's cost on the three
// operations its body rules concern, as ratios to json.Unmarshal into any
// of the same bytes, measured in one run as BenchmarkRatios does: every
// round times each contender once, interleaved, and the table shows the
// median over rounds. The contenders: the middleware as configured by
// default (schema and body rules in one pass), the same with the rules
// applied by BodyRules after it (a second decode: how the middleware
// applied them before), the middleware WithoutBodyRules, and the body
// check alone with the rules and without (Request). Run it with
// -benchtime 1x; it times its own loops.
func BenchmarkMiddlewareRatios(b *testing.B) {
	v, err := New()
	if err != nil {
		b.Fatal(err)
	}
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) })
	rules := Middleware(v)(ok)
	noRules := Middleware(v, WithoutBodyRules())(ok)
	// The rules as the middleware applied them before: BodyRules decoding
	// the body that passed, after the check.
	decoded := Middleware(v, WithoutBodyRules())(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		m, _ := MatchFrom(r.Context())
		if err := BodyRules(m.Operation.ID, body); err != nil {
			WriteError(w, r, err)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	type contender struct {
		name string
		h    http.Handler // nil: json.Unmarshal into any, or the body check alone
		rule bool         // the body check alone: with the rules (else without)
	}
	contenders := []contender{{"unmarshal", nil, false}, {"rules in the pass", rules, false}, {"rules decoded (before)", decoded, false},
		{"without rules", noRules, false}, {"body check with rules", nil, true}, {"body check", nil, false}}
	cases := []struct {
		name, op, method, target string
		body                     []byte
	}{
		{"sale, minimal", "transfers.create", "POST", "/transfers", []byte(ratioMinimalSale)},
		{"sale, Level 3, 3 items", "transfers.create", "POST", "/transfers", BenchLevel3Sale(3)},
		{"sale, Level 3, 50 items", "transfers.create", "POST", "/transfers", BenchLevel3Sale(50)},
		{"authorization, Level 3, 3 items", "authorizations.create", "POST", "/authorizations", benchAuthorization(3)},
		{"capture, Level 3, 3 items", "authorizations.capture", "PUT", "/authorizations/AU0123456789abcdefghijkl", benchCapture(3)},
	}
	const rounds = 51
	var table strings.Builder
	table.WriteString("\n| operation, body | bytes | unmarshal | middleware: rules in the pass | rules decoded (before) | without rules | body check with rules | without |\n|---|---|---|---|---|---|---|---|\n")
	for _, c := range cases {
		req, err := http.NewRequest(c.method, c.target, nil)
		if err != nil {
			b.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		var w discardWriter
		pr, rs := v.bodies[v.tab.byID[c.op]], v.rules[v.tab.byID[c.op]]
		run := func(ct contender) {
			switch {
			case ct.h != nil:
			case ct.name == "unmarshal":
				var x any
				_ = json.Unmarshal(c.body, &x)
				return
			case ct.rule:
				_, _ = v.check(pr, c.body, rs)
				return
			default:
				_ = v.validate(pr, c.body)
				return
			}
			h := ct.h
			req.Body = io.NopCloser(bytes.NewReader(c.body))
			w.status = 0
			h.ServeHTTP(&w, req)
		}
		for _, ct := range contenders[1:4] {
			if run(ct); w.status != http.StatusNoContent {
				b.Fatalf("%s, %s: status %d, want 204", c.name, ct.name, w.status)
			}
		}
		if vs, err := v.check(pr, c.body, rs); err != nil || vs != nil || !rs.inPass {
			b.Fatalf("%s: %v %v, in the pass %v", c.name, vs, err, rs.inPass)
		}
		samples := make([][]float64, len(contenders))
		iters := make([]int, len(contenders))
		for i, ct := range contenders {
			iters[i] = calibrate(func() { run(ct) })
		}
		for r := range rounds {
			for k := range contenders {
				i := (r + k) % len(contenders) // each contender leads in turn
				start := time.Now()
				for range iters[i] {
					run(contenders[i])
				}
				samples[i] = append(samples[i], float64(time.Since(start).Nanoseconds())/float64(iters[i]))
			}
		}
		med := make([]float64, len(contenders))
		for i := range contenders {
			med[i] = median(samples[i])
		}
		fmt.Fprintf(&table, "| %s | %d | %.2f µs | %.2f× | %.2f× | %.2f× | %.2f× | %.2f× |\n", c.name, len(c.body), med[0]/1000,
			med[1]/med[0], med[2]/med[0], med[3]/med[0], med[4]/med[0], med[5]/med[0])
		b.ReportMetric(med[1]/med[0], "pass/"+strings.NewReplacer(" ", "", ",", "_").Replace(c.name))
		b.ReportMetric(med[2]/med[0], "decoded/"+strings.NewReplacer(" ", "", ",", "_").Replace(c.name))
	}
	b.Log(table.String())
}

// discardWriter is a ResponseWriter keeping only the status.
type discardWriter struct {
	header http.Header
	status int
}

func (w *discardWriter) Header() http.Header {
	if w.header == nil {
		w.header = make(http.Header)
	}
	return w.header
}

func (w *discardWriter) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
}

func (w *discardWriter) Write(b []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	return len(b), nil
}

// benchAuthorization is an authorization with Level 3 data of that many
// items (the sale's, without fee and with merchant_identity).
func benchAuthorization(items int) []byte {
	sale := string(BenchLevel3Sale(items))
	sale = strings.Replace(sale, `"merchant":"MU0123456789abcdefghijkl","amount":100000,"fee":100,`,
		`"merchant_identity":"ID0123456789abcdefghijkl","amount":100000,`, 1)
	return []byte(sale)
}

// benchCapture is a capture with Level 3 data of that many items.
func benchCapture(items int) []byte {
	sale := string(BenchLevel3Sale(items))
	_, purchase, _ := strings.Cut(sale, `"additional_purchase_data":`)
	return []byte(`{"capture_amount":5000,"fee":100,"additional_purchase_data":` + purchase)
}
