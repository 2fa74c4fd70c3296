package proxy_test

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/conform-kit/conform/validate/judging"
	"github.com/conform-kit/conform/validate/proxy"
)

const goodError = `{"total":1,"_embedded":{"errors":[{"code":"NOT_FOUND","logref":{"logref":"x"},"message":"m",` +
	`"_links":{"self":{"href":"http://h/x"},"source":{"href":"http://h/x"}}}]}}`

// target is a fake service: a proper 404 envelope for transfers, a bare
// text 404 for authorizations, and for webhooks a 201 whose body lacks
// every required field. It records what it received.
type target struct {
	mu      sync.Mutex
	got     []string // method path body authorization
	gotHost string
	url     string // the target's own base URL
}

func (t *target) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	t.mu.Lock()
	t.got = append(t.got, r.Method+" "+r.URL.RequestURI()+" "+string(b)+" "+r.Header.Get("Authorization"))
	t.gotHost = r.Host
	t.mu.Unlock()
	switch {
	case strings.HasPrefix(r.URL.Path, "/transfers/"):
		w.Header().Set("Content-Type", "application/hal+json")
		w.WriteHeader(404)
		_, _ = io.WriteString(w, goodError)
	case strings.HasPrefix(r.URL.Path, "/authorizations/"):
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(404)
		_, _ = io.WriteString(w, "not found")
	default:
		w.Header().Set("Content-Type", "application/hal+json")
		w.WriteHeader(201)
		_, _ = io.WriteString(w, `{"id":"WH0123456789abcdefghijkl"}`)
	}
}

func setup(t testing.TB) (*proxy.Proxy, *httptest.Server, *target, *bytes.Buffer) {
	t.Helper()
	v, err := judging.Default()
	if err != nil {
		t.Fatal(err)
	}
	tg := &target{}
	backend := httptest.NewServer(tg)
	t.Cleanup(backend.Close)
	tg.url = backend.URL
	u, _ := url.Parse(backend.URL)
	var log bytes.Buffer
	p := proxy.New(proxy.Config{Target: u, Judge: v, Log: &syncWriter{w: &log}})
	front := httptest.NewServer(p)
	t.Cleanup(front.Close)
	return p, front, tg, &log
}

type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(b)
}

func TestProxyRoundTrip(t *testing.T) {
	p, front, tg, log := setup(t)
	tests := []struct {
		name       string
		method     string
		path       string
		body       string
		wantStatus int
		wantCount  int
		wantSev    map[string]int // severity → count
	}{
		{"clean exchange", "GET", "/transfers/TR0123456789abcdefghijkl", "", 404, 0, nil},
		{"response without the envelope", "GET", "/authorizations/AU0123456789abcdefghijkl", "", 404, 2, map[string]int{"normative": 2}},
		{"bad request and bad response", "POST", "/authorizations", `{"amount":"x"}`, 201, -1, map[string]int{"normative": -1}},
		{"on the declared webhook route, §4.9's url rule and §2.10's answer are normative", "POST", "/webhooks", `{"url":"ftp://x"}`, 201, -1, map[string]int{"normative": -1}},
		{"another method on a webhook's path: §4.9 shows no method", "PATCH", "/webhooks/WH0123456789abcdefghijkl", `{"enabled":false}`, 201, -1, map[string]int{"normative": 0, "assumed": 1}},
		{"unknown route", "GET", "/nope", "", 201, 1, map[string]int{"normative": 1}},
		{"list bounds are assumed", "GET", "/webhooks?limit=1000", "", 201, -1, map[string]int{"assumed": 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest(tt.method, front.URL+tt.path, strings.NewReader(tt.body))
			req.Header.Set("Content-Type", "application/json")
			req.SetBasicAuth("US0123456789abcdefghijkl", "topsecret")
			resp, err := front.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tt.wantStatus {
				t.Fatalf("status %d, want %d (body %s)", resp.StatusCode, tt.wantStatus, body)
			}
			header := resp.Header.Get(proxy.HeaderViolations)
			if tt.wantCount == 0 {
				if header != "" {
					t.Errorf("violations on a clean exchange: %s", header)
				}
				return
			}
			var vs []proxy.Violation
			if err := json.Unmarshal([]byte(header), &vs); err != nil {
				t.Fatalf("%s is not a JSON array: %v: %q", proxy.HeaderViolations, err, header)
			}
			count, _ := strconv.Atoi(resp.Header.Get(proxy.HeaderCount))
			if count != len(vs) || (tt.wantCount > 0 && count != tt.wantCount) {
				t.Errorf("count header %d, %d listed, want %d: %+v", count, len(vs), tt.wantCount, vs)
			}
			sev := map[string]int{}
			for _, v := range vs {
				sev[string(v.Severity)]++
				if v.Where != "request" && v.Where != "response" || v.Message == "" || (v.Severity == proxy.Assumed) != (v.Key != "") {
					t.Errorf("malformed violation %+v", v)
				}
			}
			for s, n := range tt.wantSev {
				if (n < 0 && sev[s] == 0) || (n >= 0 && sev[s] != n) {
					t.Errorf("%s violations: %d, want %d: %+v", s, sev[s], n, vs)
				}
			}
		})
	}
	// Forwarded untouched: body, query and credentials reach the target, addressed to its own Host.
	want := "POST /webhooks {\"url\":\"ftp://x\"} Basic " // credentials follow
	tg.mu.Lock()
	defer tg.mu.Unlock()
	found := false
	for _, g := range tg.got {
		if strings.HasPrefix(g, want) {
			found = true
		}
	}
	if !found || tg.gotHost != strings.TrimPrefix(tg.url, "http://") {
		t.Errorf("target got %q (Host %q), want the request untouched", tg.got, tg.gotHost)
	}
	// One NDJSON line per exchange with violations, secrets masked.
	lines := 0
	sc := bufio.NewScanner(bytes.NewReader(log.Bytes()))
	for sc.Scan() {
		lines++
		var l map[string]any
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("log line is not JSON: %q", sc.Text())
		}
		if h, _ := l["request_headers"].(map[string]any); h["Authorization"] != "Basic ***" {
			t.Errorf("Authorization logged as %v, want masked", h["Authorization"])
		}
	}
	if lines != 6 || strings.Contains(log.String(), "topsecret") || strings.Contains(log.String(), "VVMwMTIz") {
		t.Errorf("log has %d lines (want 6) or leaks the secret:\n%s", lines, log)
	}
	// Summary by operation.
	got := map[string]proxy.OperationSummary{}
	for _, s := range p.Summary() {
		got[s.Operation] = s
	}
	if s := got["authorizations.get"]; s.Exchanges != 1 || s.WithViolations != 1 || s.Normative != 2 {
		t.Errorf("summary of authorizations.get = %+v", s)
	}
	if s := got["transfers.get"]; s.Exchanges != 1 || s.WithViolations != 0 {
		t.Errorf("summary of transfers.get = %+v", s)
	}
	if !p.SawNormative() {
		t.Error("SawNormative = false after normative violations")
	}
}

func TestHeaderIsCapped(t *testing.T) {
	_, front, _, _ := setup(t)
	// 400 unknown fields: 400 violations, far more than 8 KB.
	var b strings.Builder
	b.WriteString(`{"url":"http://x.test"`)
	for i := range 400 {
		b.WriteString(`,"field_number_` + strconv.Itoa(i) + `":1`)
	}
	b.WriteString("}")
	resp, err := front.Client().Post(front.URL+"/webhooks", "application/json", strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	header := resp.Header.Get(proxy.HeaderViolations)
	var vs []proxy.Violation
	if err := json.Unmarshal([]byte(header), &vs); err != nil {
		t.Fatal(err)
	}
	count, _ := strconv.Atoi(resp.Header.Get(proxy.HeaderCount))
	if len(header) > proxy.MaxHeaderBytes || len(vs) >= count || count < 400 {
		t.Errorf("header %d bytes with %d listed of %d, want ≤ %d bytes and a larger count", len(header), len(vs), count, proxy.MaxHeaderBytes)
	}
}

// TestSeverityFromJudging shows that severity and profile key come from the
// contract's data and the declared profile: a payload judging.json assumes
// as a whole is assumed under its key, a schema the spec shows is
// normative, the exact success status is assumed under create_status or
// success_status, and a declared profile moves what is checked.
func TestSeverityFromJudging(t *testing.T) {
	v, err := judging.Default()
	if err != nil {
		t.Fatal(err)
	}
	declare := func(profile string) *judging.Profile {
		p, err := v.DecodeProfile([]byte(profile))
		if err != nil {
			t.Fatal(err)
		}
		return &p
	}
	tests := []struct {
		name    string
		profile *judging.Profile
		method  string
		path    string
		body    string
		status  int      // the target's answer, with body {}
		ctype   string   // the answer's Content-Type; "": application/hal+json
		want    []string // distinct "where severity key" of the violations, sorted
	}{
		{"file payload is assumed", nil, "POST", "/files/FILE_0123456789abcdefghijkl", "", 200, "",
			[]string{"response assumed file_payloads"}},
		{"file payload declared unchecked", declare(`{"file_payloads":"unchecked"}`), "POST", "/files/FILE_0123456789abcdefghijkl", "", 200, "",
			nil},
		{"list schema is normative, exact status assumed", nil, "GET", "/webhooks", "", 201, "",
			[]string{"response assumed success_status", "response normative "}},
		{"create status is assumed", nil, "POST", "/authorizations", `{}`, 200, "",
			[]string{"request normative ", "response assumed create_status", "response normative "}},
		{"declared create status is checked instead", declare(`{"create_status":200}`), "POST", "/authorizations", `{}`, 200, "",
			[]string{"request normative ", "response normative "}},
		{"limit over the declared maximum", declare(`{"list_max_limit":500}`), "GET", "/webhooks?limit=1000", "", 200, "",
			[]string{"request assumed list_max_limit", "response normative "}},
		{"exact media type is assumed", nil, "GET", "/webhooks", "", 200, "application/json; charset=utf-8",
			[]string{"response assumed response_content_type", "response normative "}},
		{"declared media type is checked instead", declare(`{"response_content_type":"application/json"}`), "GET", "/webhooks", "", 200, "application/json; charset=utf-8",
			[]string{"response normative "}},
		{"limit within the declared maximum", declare(`{"list_max_limit":500}`), "GET", "/webhooks?limit=300", "", 200, "",
			[]string{"response normative "}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", cmp.Or(tt.ctype, "application/hal+json"))
				w.WriteHeader(tt.status)
				_, _ = io.WriteString(w, `{}`)
			}))
			defer backend.Close()
			u, _ := url.Parse(backend.URL)
			var log bytes.Buffer
			front := httptest.NewServer(proxy.New(proxy.Config{Target: u, Judge: v, Profile: tt.profile, Log: &syncWriter{w: &log}}))
			defer front.Close()
			_, vs := violationsOf(t, front, tt.method, tt.path, tt.body)
			var got []string
			for _, v := range vs {
				got = append(got, v.Where+" "+string(v.Severity)+" "+v.Key)
			}
			slices.Sort(got)
			got = slices.Compact(got)
			if !slices.Equal(got, tt.want) {
				t.Errorf("violations judged %q, want %q: %+v", got, tt.want, vs)
			}
			// The log carries the same key.
			if len(tt.want) > 0 {
				var line struct{ Violations []proxy.Violation }
				if err := json.Unmarshal(log.Bytes(), &line); err != nil || !slices.Equal(line.Violations, vs) {
					t.Errorf("log line %s (%v), want the header's violations", log.Bytes(), err)
				}
			} else if log.Len() != 0 {
				t.Errorf("log line for a clean exchange: %s", log.Bytes())
			}
		})
	}
}

// BenchmarkOverhead sends the same request directly to the target and
// through the proxy, in interleaved rounds, and reports the median time each
// way and the median added by the proxy (run with -benchtime 1x; it times
// its own rounds).
func BenchmarkOverhead(b *testing.B) {
	_, front, _, _ := setup(b)
	directSrv := httptest.NewServer(&target{})
	defer directSrv.Close()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}
	send := func(base string) time.Duration {
		start := time.Now()
		resp, err := client.Get(base + "/transfers/TR0123456789abcdefghijkl")
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return time.Since(start)
	}
	for range 50 { // warm both connection pools
		send(directSrv.URL)
		send(front.URL)
	}
	const rounds = 2001
	var direct, proxied, added []time.Duration
	for i := range rounds {
		var d, p time.Duration
		if i%2 == 0 {
			d, p = send(directSrv.URL), send(front.URL)
		} else {
			p, d = send(front.URL), send(directSrv.URL)
		}
		direct, proxied, added = append(direct, d), append(proxied, p), append(added, p-d)
	}
	med := func(xs []time.Duration) float64 {
		slices.Sort(xs)
		return float64(xs[len(xs)/2].Microseconds())
	}
	b.ReportMetric(med(direct), "µs-direct/median")
	b.ReportMetric(med(proxied), "µs-proxied/median")
	b.ReportMetric(med(added), "µs-added/median")
}

// TestAssumedRuleOfANormativeSchema: §4.5 does not say which fields of an
// enrollment are required, nor which an update may change, so a client's
// enrollment without merchant, or update naming one, breaks only the
// reference's rule (judging.json's assumed rules of
// subscription_enrollment_create and _update), as does a sale past
// 2^63−1 (amounts are cents with no largest one), a negative one or an
// unknown field (no sentence refuses them): assumed under request_rules,
// nothing when the profile declares that key unchecked; every violation of
// a rule the spec states stays normative.
func TestAssumedRuleOfANormativeSchema(t *testing.T) {
	v, err := judging.Default()
	if err != nil {
		t.Fatal(err)
	}
	unchecked, err := v.DecodeProfile([]byte(`{"request_rules":"unchecked"}`))
	if err != nil {
		t.Fatal(err)
	}
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/hal+json")
		w.WriteHeader(422)
		_, _ = io.WriteString(w, goodError)
	}))
	t.Cleanup(backend.Close)
	u, _ := url.Parse(backend.URL)
	const (
		create = "POST /subscription/subscription_schedules/SUBSCHEDULE_0123456789abcdefghijkl/subscription_enrollments"
		update = "PUT /subscription/subscription_enrollments/SUBENROLLMENT_0123456789abcdefghijkl"
		sale   = "POST /transfers"
	)
	tests := []struct {
		name    string
		profile *judging.Profile
		route   string
		body    string
		want    []string // "severity key pointer" of each violation, sorted
	}{
		{"without merchant: the reference's rule", nil, create, `{"nickname":"n"}`,
			[]string{"assumed request_rules /merchant"}},
		{"without merchant, request_rules unchecked", &unchecked, create, `{"nickname":"n"}`,
			nil},
		{"with merchant", nil, create, `{"merchant":"MU0123456789abcdefghijkl","nickname":"n"}`,
			nil},
		{"a field of the wrong type stays normative", nil, create, `{"merchant":"MU0123456789abcdefghijkl","nickname":5}`,
			[]string{"normative  /nickname"}},
		{"each violation by its own basis", nil, create, `{"nickname":5}`,
			[]string{"assumed request_rules /merchant", "normative  /nickname"}},
		{"unchecked drops only the assumed one", &unchecked, create, `{"nickname":5}`,
			[]string{"normative  /nickname"}},
		{"an unknown field: no sentence refuses it", nil, create, `{"merchant":"MU0123456789abcdefghijkl","color":"red"}`,
			[]string{"assumed request_rules /color"}},
		{"an update of a field §4.5 does not show", nil, update, `{"merchant":"MU0123456789abcdefghijkl"}`,
			[]string{"assumed request_rules /merchant"}},
		{"the same, request_rules unchecked", &unchecked, update, `{"merchant":"MU0123456789abcdefghijkl"}`,
			nil},
		{"an update's tags of the wrong type: the update's fields are not shown", nil, update, `{"tags":{"x":1}}`,
			[]string{"assumed request_rules /tags/x"}},
		{"a sale past 2^63−1: the reference's representation", nil, sale,
			`{"source":"PI0123456789abcdefghijkl","merchant":"MU0123456789abcdefghijkl","amount":9223372036854775808,"currency":"USD"}`,
			[]string{"assumed request_rules /amount"}},
		{"the same, request_rules unchecked", &unchecked, sale,
			`{"source":"PI0123456789abcdefghijkl","merchant":"MU0123456789abcdefghijkl","amount":9223372036854775808,"currency":"USD"}`,
			nil},
		{"a negative sale: the spec does not say not negative", nil, sale,
			`{"source":"PI0123456789abcdefghijkl","merchant":"MU0123456789abcdefghijkl","amount":-1,"currency":"USD"}`,
			[]string{"assumed request_rules /amount"}},
		{"a sale's item of quantity 0 stays normative (§8 greater than 0)", &unchecked, sale,
			`{"source":"PI0123456789abcdefghijkl","merchant":"MU0123456789abcdefghijkl","amount":1,"currency":"USD","additional_purchase_data":{"customer_reference_number":"c","customs_duty_amount":0,"discount_amount":0,"shipping_amount":0,"item_data":[{"amount_excluding_sales_tax":1,"amount_including_sales_tax":1,"commodity_code":"123","cost_per_unit":1,"item_description":"d","item_discount_amount":0,"merchant_product_code":"m","quantity":0,"unit_of_measure":"EA"}]}}`,
			[]string{"normative  /additional_purchase_data/item_data/0/quantity"}},
		{"an extension's body with an unknown field: request_rules, not extensions", nil, "POST /subscription/subscription_schedules",
			`{"line_item_type":"FEE","nickname":"n","subscription_type":"PERIODIC_MONTHLY","period_offset":{"day":1,"month":null},"color":"red"}`,
			[]string{"assumed request_rules /color"}},
		{"a sale without a merchant stays normative", &unchecked, sale,
			`{"source":"PI0123456789abcdefghijkl","amount":1,"currency":"USD"}`,
			[]string{"normative  /merchant"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := proxy.New(proxy.Config{Target: u, Judge: v, Profile: tt.profile})
			front := httptest.NewServer(p)
			defer front.Close()
			method, path, _ := strings.Cut(tt.route, " ")
			resp, vs := violationsOf(t, front, method, path, tt.body)
			if resp.StatusCode != 422 {
				t.Fatalf("status %d, want the target's 422", resp.StatusCode)
			}
			var got []string
			for _, v := range vs {
				if v.Where != "request" {
					t.Errorf("a violation of the target's answer: %+v", v)
				}
				got = append(got, string(v.Severity)+" "+v.Key+" "+v.Pointer)
			}
			slices.Sort(got)
			if !slices.Equal(got, tt.want) {
				t.Errorf("violations %q, want %q: %+v", got, tt.want, vs)
			}
			if p.SawNormative() != slices.ContainsFunc(tt.want, func(s string) bool { return strings.HasPrefix(s, "normative") }) {
				t.Errorf("SawNormative = %v with violations %q", p.SawNormative(), got)
			}
		})
	}
}

// TestListQueryRestsOnNoSentence: §4.10 names offset, limit and sort and §8
// says the maximum page size is not shown (a silence of judging.json that
// governs the list parameters), so no refused value of them is a
// normative violation: a limit past the maximum is list_max_limit, a
// limit of 0, a negative offset or an unknown sort field request_rules.
func TestListQueryRestsOnNoSentence(t *testing.T) {
	j, err := judging.Default()
	if err != nil {
		t.Fatal(err)
	}
	var params []string
	for _, s := range j.Silences() {
		params = append(params, s.Governs.Query...)
	}
	if len(params) == 0 {
		t.Fatal("no silence governs the list parameters")
	}
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/hal+json")
		w.WriteHeader(422)
		_, _ = io.WriteString(w, goodError)
	}))
	t.Cleanup(backend.Close)
	u, _ := url.Parse(backend.URL)
	for _, q := range []string{"limit=1000", "limit=0", "limit=x", "offset=-1", "offset=x", "sort=colour,asc", "sort=created_at,sideways"} {
		t.Run(q, func(t *testing.T) {
			name, _, _ := strings.Cut(q, "=")
			if !slices.Contains(params, name) {
				t.Fatalf("%s: no silence governs it", name)
			}
			p := proxy.New(proxy.Config{Target: u, Judge: j})
			front := httptest.NewServer(p)
			defer front.Close()
			_, vs := violationsOf(t, front, "GET", "/webhooks?"+q, "")
			seen := false
			for _, v := range vs {
				if v.Where == "request" {
					seen = true
					if v.Severity != proxy.Assumed {
						t.Errorf("%s: %+v is normative; §4.10 and §8 give no bound", q, v)
					}
				}
			}
			if !seen {
				t.Errorf("%s: no violation of the request reported: %+v", q, vs)
			}
		})
	}
}

// violationsOf sends a request through p (served by front) and returns the
// violations its header reports.
func violationsOf(t *testing.T, front *httptest.Server, method, path, body string) (*http.Response, []proxy.Violation) {
	t.Helper()
	req, _ := http.NewRequest(method, front.URL+path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	resp, err := front.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	var vs []proxy.Violation
	if h := resp.Header.Get(proxy.HeaderViolations); h != "" {
		if err := json.Unmarshal([]byte(h), &vs); err != nil {
			t.Fatal(err)
		}
	}
	return resp, vs
}
