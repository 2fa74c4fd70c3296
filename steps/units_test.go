package steps

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"math/big"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cucumber/godog"
	messages "github.com/cucumber/messages/go/v21"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/conform-kit/conform/features"
	"github.com/conform-kit/conform/steps/report"
	"github.com/conform-kit/conform/validate"
	"github.com/conform-kit/conform/validate/judging"
)

func TestApplyEnvOverridesFile(t *testing.T) {
	file := Config{Target: "http://file", Credentials: Credentials{Platform: &Credential{Username: "USfile", Password: "pw-file"}}}
	env := map[string]string{
		"CONFORM_TARGET":           "http://env",
		"CONFORM_PASSWORD":         "pw-env",
		"CONFORM_FIXTURE_MERCHANT": "MUenv",
		"CONFORM_WAIT_TIMEOUT":     "90s",
	}
	got, err := ApplyEnv(file, func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	if err != nil {
		t.Fatalf("ApplyEnv: %v", err)
	}
	tests := []struct{ name, got, want string }{
		{"target", got.Target, "http://env"},
		{"user kept from file", got.Credentials.Platform.Username, "USfile"},
		{"password from env", got.Credentials.Platform.Password, "pw-env"},
		{"fixture from env", got.Fixtures.Merchant, "MUenv"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("ApplyEnv %s = %q, want %q", tt.name, tt.got, tt.want)
		}
	}
	if got.WaitTimeout != 90*time.Second {
		t.Errorf("ApplyEnv wait timeout = %s, want 90s", got.WaitTimeout)
	}
	if _, err := ApplyEnv(file, func(k string) (string, bool) { return "soon", k == "CONFORM_TIMEOUT" }); !errors.Is(err, ErrConfig) {
		t.Errorf("ApplyEnv(CONFORM_TIMEOUT=soon) = %v, want ErrConfig", err)
	}
	if file.Credentials.Platform.Password != "pw-file" {
		t.Errorf("ApplyEnv changed the caller's credential")
	}
}

// TestSettingsAgreeWithConfigFile: each CONFORM_* variable sets the same field
// as its config-file key, and every field of the config file has a variable.
func TestSettingsAgreeWithConfigFile(t *testing.T) {
	seen := map[string]bool{}
	for _, s := range Settings() {
		t.Run(s.Env, func(t *testing.T) {
			if s.Key == "" {
				return
			}
			seen[s.Key] = true
			value := "value-of-" + strings.ToLower(s.Env)
			fromEnv, err := ApplyEnv(Config{}, func(k string) (string, bool) { return value, k == s.Env })
			if err != nil {
				t.Fatalf("ApplyEnv(%s): %v", s.Env, err)
			}
			doc := any(value)
			parts := strings.Split(s.Key, ".")
			for i := len(parts) - 1; i >= 0; i-- {
				doc = map[string]any{parts[i]: doc}
			}
			raw, err := json.Marshal(doc)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(t.TempDir(), "conform.json")
			if err := os.WriteFile(path, raw, 0o600); err != nil {
				t.Fatal(err)
			}
			fromFile, err := LoadConfigFile(path)
			if err != nil {
				t.Fatalf("LoadConfigFile(%s): %v", raw, err)
			}
			if !reflect.DeepEqual(fromEnv, fromFile) || reflect.DeepEqual(fromEnv, Config{}) {
				t.Errorf("%s=%q gives %+v; the file %s gives %+v", s.Env, value, fromEnv, raw, fromFile)
			}
		})
	}
	full, err := json.Marshal(Config{
		Credentials: Credentials{Platform: &Credential{"u", "p"}, Merchant: &Credential{"u", "p"}, OtherApplication: &Credential{"u", "p"}},
		Fixtures:    Fixtures{"a", "b", "c", "d", "e", "f", "g", "h", "i"}, WebhookReceiver: ReceiverConfig{"l", "u"},
	})
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(full, &doc); err != nil {
		t.Fatal(err)
	}
	var walk func(prefix string, v any)
	walk = func(prefix string, v any) {
		m, ok := v.(map[string]any)
		if !ok {
			if !seen[prefix] {
				t.Errorf("config-file key %s has no CONFORM_* variable", prefix)
			}
			return
		}
		for k, sub := range m {
			walk(strings.TrimPrefix(prefix+"."+k, "."), sub)
		}
	}
	walk("", doc)
}

func TestLoadConfigFile(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name, body string
		wantErr    bool
		wantAt     string // the position the error names, "file.json:line:col"
	}{
		{"full", `{"target":"http://x","credentials":{"platform":{"username":"US1","password":"p"}},"fixtures":{"merchant":"MU1"},"webhook_receiver":{"listen":"127.0.0.1:0"}}`, false, ""},
		{"empty object", `{}`, false, ""},
		{"unknown key", `{"targte":"http://x"}`, true, ""},
		{"not json", `target=http://x`, true, "not json.json:1:2:"},
		{"missing comma", "{\n  \"target\": \"http://x\",\n  \"credentials\": {\"platform\": {\"username\": \"a\" \"password\": \"b\"}}\n}", true, "missing comma.json:3:48:"},
		{"wrong type", "{\n  \"target\": 5\n}", true, "wrong type.json:2:13:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, tt.name+".json")
			if err := os.WriteFile(path, []byte(tt.body), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := LoadConfigFile(path)
			if (err != nil) != tt.wantErr || (err != nil && !errors.Is(err, ErrConfig)) {
				t.Errorf("LoadConfigFile(%s) = %v, want error %t wrapping ErrConfig", tt.body, err, tt.wantErr)
			}
			if tt.wantAt != "" && (err == nil || !strings.Contains(err.Error(), tt.wantAt)) {
				t.Errorf("LoadConfigFile(%s) = %v, want the position %s", tt.body, err, tt.wantAt)
			}
		})
	}
}

func TestVerifySignature(t *testing.T) {
	body := []byte(`{"id":"EV1"}`)
	mac := hmac.New(sha256.New, []byte("secret"))
	mac.Write([]byte("1700000000:"))
	mac.Write(body)
	good := "timestamp=1700000000, sig=" + hex.EncodeToString(mac.Sum(nil))
	tests := []struct {
		name, header, secret string
		ok                   bool
	}{
		{"valid", good, "secret", true},
		{"wrong secret", good, "other", false},
		{"no header", "", "secret", false},
		{"no sig", "timestamp=1700000000", "secret", false},
		{"other timestamp", strings.Replace(good, "1700000000", "1700000001", 1), "secret", false},
	}
	for _, tt := range tests {
		if err := verifySignature("Finix-Signature", tt.header, tt.secret, body); (err == nil) != tt.ok {
			t.Errorf("verifySignature(%s) = %v, want ok %t", tt.name, err, tt.ok)
		}
	}
}

// TestSignatureHeaderOf: a delivery that lacks the declared header is
// searched for a header whose value verifies in the declared scheme.
func TestSignatureHeaderOf(t *testing.T) {
	body := []byte(`{"id":"EV1"}`)
	mac := hmac.New(sha256.New, []byte("secret"))
	mac.Write([]byte("1700000000:"))
	mac.Write(body)
	good := "timestamp=1700000000, sig=" + hex.EncodeToString(mac.Sum(nil))
	tests := []struct {
		name   string
		header http.Header
		want   string
	}{
		{"renamed", http.Header{"Content-Type": {"application/json"}, "X-Payments-Signature": {good}}, "X-Payments-Signature"},
		{"second value", http.Header{"X-Sig": {"v2=00", good}}, "X-Sig"},
		{"another scheme", http.Header{"X-Signature": {"v2=" + hex.EncodeToString(mac.Sum(nil))}}, ""},
		{"another secret", http.Header{"X-Payments-Signature": {strings.Replace(good, "sig=", "sig=0", 1)}}, ""},
		{"no headers", http.Header{}, ""},
	}
	for _, tt := range tests {
		got, ok := signatureHeaderOf(delivery{header: tt.header, body: body}, "secret")
		if got != tt.want || ok != (tt.want != "") {
			t.Errorf("signatureHeaderOf(%s) = %q, %t; want %q", tt.name, got, ok, tt.want)
		}
	}
}

// TestIntersectExtensions: two observations of the extensions offered merge
// to what neither found missing.
func TestIntersectExtensions(t *testing.T) {
	tests := []struct{ a, b, want string }{
		{`["transfers.get","authorizations.get"]`, `["authorizations.get","balance_transfers.list"]`, `["authorizations.get"]`},
		{`["transfers.get"]`, `["authorizations.get"]`, `[]`},
		{`[]`, `["transfers.get"]`, `[]`},
		{`["transfers.get"]`, `["transfers.get"]`, `["transfers.get"]`},
	}
	for _, tt := range tests {
		if got := string(intersectLists(json.RawMessage(tt.a), json.RawMessage(tt.b))); got != tt.want {
			t.Errorf("intersectLists(%s, %s) = %s, want %s", tt.a, tt.b, got, tt.want)
		}
	}
}

// TestNotOffered: only an extension answered as an unknown route is not
// offered; a 404 the step asked for is a refusal like any other.
func TestNotOffered(t *testing.T) {
	v, err := validate.New()
	if err != nil {
		t.Fatal(err)
	}
	ext, _ := v.Operation("authorizations.get")
	spec, _ := v.Operation("transfers.create")
	tests := []struct {
		name   string
		op     validate.Operation
		status int
		kind   string
		want   bool
	}{
		{"extension 405", ext, 405, "", true},
		{"extension 404", ext, 404, judging.RefusalUnauthenticated, true},
		{"extension 404 asked for", ext, 404, judging.RefusalNotFound, false},
		{"extension 401", ext, 401, judging.RefusalUnauthenticated, false},
		{"spec operation 405", spec, 405, "", false},
	}
	for _, tt := range tests {
		ex := &exchange{op: tt.op, hasOp: true, status: tt.status}
		if got := notOffered(ex, tt.kind); got != tt.want {
			t.Errorf("notOffered(%s) = %t, want %t", tt.name, got, tt.want)
		}
	}
}

func TestMaskHidesSecrets(t *testing.T) {
	s := &scenario{secrets: []string{"s3cret-password"}}
	in := []byte(`{"number":"4895142232120006","security_code":"7391","nested":{"secret_signing_key":"abc"},"note":"s3cret-password"}`)
	out := s.mask(in)
	for _, secret := range []string{"4895142232120006", "7391", `"abc"`, "s3cret-password"} {
		if strings.Contains(out, secret) {
			t.Errorf("mask(%s) = %s, still contains %s", in, out, secret)
		}
	}
}

func TestLookupAndSetPath(t *testing.T) {
	doc := map[string]any{"a": map[string]any{"b": []any{map[string]any{"c": "x"}}}}
	setPath(doc, "a.b.0.c", "y")
	if v, ok := lookup(doc, "a.b.0.c"); !ok || v != "y" {
		t.Errorf("lookup(a.b.0.c) = %v, %t after setPath, want y", v, ok)
	}
	deletePath(doc, "a.b.0.c")
	if _, ok := lookup(doc, "a.b.0.c"); ok {
		t.Errorf("lookup(a.b.0.c) found a deleted path")
	}
	if got := filler("address.postal_code", 8); got != "12345678" {
		t.Errorf("filler(postal_code, 8) = %q", got)
	}
}

func TestClausesNameSpecSections(t *testing.T) {
	tests := []struct {
		tags []string
		want string
	}{
		{nil, ""},
		{[]string{"@transfers", "@assumed"}, ""},
		{[]string{"@authorizations", "@spec-4.1", "@spec-7"}, " [§4.1 §7]"},
	}
	for _, tt := range tests {
		if got := clauses(tt.tags); got != tt.want {
			t.Errorf("clauses(%q) = %q, want %q", tt.tags, got, tt.want)
		}
	}
}

// TestReceiverDiagnosis: webhooks registered but no delivery at all is a
// diagnostic of the run; one delivery is not.
func TestReceiverDiagnosis(t *testing.T) {
	r, err := newReceiver(ReceiverConfig{Listen: "127.0.0.1:0", PublicURL: "http://tunnel.example"})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if notes := r.diagnose(); len(notes) != 0 {
		t.Errorf("no webhook registered: diagnose() = %v, want nothing", notes)
	}
	_, url, ch := r.register()
	notes := r.diagnose()
	if len(notes) != 1 || !strings.Contains(notes[0], "0 webhook deliveries arrived") || !strings.Contains(notes[0], "webhook_receiver.public_url") || !strings.Contains(notes[0], "http://tunnel.example") {
		t.Fatalf("registered, nothing delivered: diagnose() = %v, want the public_url hint", notes)
	}
	local := strings.Replace(url, "http://tunnel.example", "http://"+r.ln.Addr().String(), 1)
	resp, err := http.Post(local, "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	select {
	case <-ch:
	case <-time.After(5 * time.Second):
		t.Fatal("the delivery did not reach its route")
	}
	if notes := r.diagnose(); len(notes) != 0 {
		t.Errorf("one delivery arrived: diagnose() = %v, want nothing", notes)
	}
}

// TestReportCheckReadsTheTypedCheck: a report check is filled from the
// check the kit judged (its basis, key, expected and observed values, the
// exchange of its failure and the violations of the error behind it), never
// from the wording of its message.
func TestReportCheckReadsTheTypedCheck(t *testing.T) {
	ex := &exchange{method: "GET", path: "/transfers/TR1", url: "http://target/transfers/TR1", user: "platform", status: 200, body: []byte(`{"amount": -1}`)}
	cause := &validate.Error{Code: validate.CodeInvalidResponse, Violations: []validate.Violation{
		{Pointer: "/amount", Rule: "minimum", Message: "must be >= 0"},
		{Pointer: "/currency", Rule: "pattern", Message: "does not match"},
	}}
	tests := []struct {
		name          string
		check         func(s *scenario) Check
		kind, clause  string
		clauses       []string
		key, expected string
		message       string
		pointers      []string
		wantsExchange bool
	}{
		{"schema check: pointers from the *validate.Error, text without evidence",
			func(s *scenario) Check {
				return Check{Basis: judging.Basis{Clauses: []string{"4.3", "2.1"}}, Err: s.failCause(ex, cause, "worded any way at all")}
			}, report.KindNormative, "4.3", []string{"4.3", "2.1"}, "", "", "GET /transfers/TR1 as platform: worded any way at all", []string{"/amount", "/currency"}, true},
		{"assumed check: key, expected and observed from the check",
			func(s *scenario) Check {
				return Check{Basis: judging.Basis{Assumed: "refusals", Clauses: []string{"7"}}, Key: "refusals.not_found", Expected: "404 NOT_FOUND", Observed: "410",
					Err: s.failf(ex, "no § in this text")}
			}, report.KindAssumed, "7", []string{"7"}, "refusals.not_found", "404 NOT_FOUND", "GET /transfers/TR1 as platform: no § in this text", nil, true},
		{"a message naming another section does not change the clause",
			func(*scenario) Check {
				return Check{Basis: judging.Basis{Clauses: []string{"2.12"}}, Err: errors.New("see §7 and /amount (minimum): x")}
			}, report.KindNormative, "2.12", []string{"2.12"}, "", "", "see §7 and /amount (minimum): x", nil, false},
		{"invariant named from the basis",
			func(*scenario) Check {
				return Check{Basis: judging.Basis{Invariants: []string{"secrets"}}, Err: errors.New("card number in the answer")}
			}, report.KindNormative, "", nil, "", "", "invariant secrets: card number in the answer", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &scenario{suite: &suite{}}
			c := tt.check(s)
			c.Message = c.Err.Error()
			rc := s.reportCheck(c)
			assert.Equal(t, tt.kind, rc.Kind, "kind")
			assert.Equal(t, tt.clause, rc.Clause, "clause")
			assert.Equal(t, tt.clauses, rc.Clauses, "clauses")
			assert.Equal(t, tt.key, rc.ProfileKey, "profile key")
			assert.Equal(t, tt.expected, rc.Expected, "expected")
			assert.Equal(t, tt.message, rc.Message, "message")
			assert.Equal(t, tt.pointers, rc.Pointers, "pointers")
			if tt.wantsExchange {
				require.NotNil(t, rc.Exchange, "exchange")
				assert.Equal(t, 200, rc.Exchange.Status, "exchange status")
				assert.Contains(t, rc.Curl, "http://target/transfers/TR1", "curl")
			} else {
				assert.Nil(t, rc.Exchange, "exchange")
			}
		})
	}
}

// TestFeatureMarkersNameTheirBasis: every scenario names at least one spec
// section of judging.json (its normative checks cite them), every @assumed
// scenario names exactly one profile key with @profile-<key>, and every step
// marked "(assumed: <key>)" names a profile key.
func TestFeatureMarkersNameTheirBasis(t *testing.T) {
	v, err := judging.Default()
	if err != nil {
		t.Fatal(err)
	}
	j := v.Table()
	keys := map[string]bool{}
	for _, k := range j.Profile {
		keys[k.Key] = true
	}
	feats, err := godog.TestSuite{Options: &godog.Options{FS: features.FS, Paths: []string{"."}}}.RetrieveFeatures()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range feats {
		for _, p := range f.Pickles {
			var clauses, profiles []string
			assumed := false
			for _, tag := range p.Tags {
				switch {
				case strings.HasPrefix(tag.Name, specTagPrefix):
					clauses = append(clauses, strings.TrimPrefix(tag.Name, specTagPrefix))
				case strings.HasPrefix(tag.Name, profileTagPrefix):
					profiles = append(profiles, strings.TrimPrefix(tag.Name, profileTagPrefix))
				case tag.Name == "@assumed":
					assumed = true
				}
			}
			if len(clauses) == 0 {
				t.Errorf("%s: %q names no spec section (@spec-N)", p.Uri, p.Name)
			}
			for _, c := range clauses {
				if _, ok := j.Clauses[c]; !ok {
					t.Errorf("%s: %q: @spec-%s is not a section of judging.json", p.Uri, p.Name, c)
				}
			}
			if assumed != (len(profiles) == 1) {
				t.Errorf("%s: %q: @assumed with profile keys %v, want @assumed with exactly one @profile-<key>", p.Uri, p.Name, profiles)
			}
			for _, k := range profiles {
				if !keys[k] {
					t.Errorf("%s: %q: @profile-%s is not a profile key", p.Uri, p.Name, k)
				}
			}
			for _, st := range p.Steps {
				if strings.Contains(st.Text, "(assumed") {
					if k := stepKeyOf(st.Text); !keys[k] {
						t.Errorf("%s: %q: step %q names no profile key", p.Uri, p.Name, st.Text)
					}
				}
			}
		}
	}
}

// TestAssumedRulesTaggedAsTheData: a scenario that has a request refused
// for breaking an assumed rule of judging.json (a field the spec does not
// say is required: required at /merchant of the enrollment create, §4.5)
// is @assumed under the rule's profile key, as the proxy and the
// exploration judge the same violation. The scenario is found by its spec
// sections (the schema row's) and its step refusing the rule's field (the
// suite also judges every body refused or taken by judging.BodyBasis).
func TestAssumedRulesTaggedAsTheData(t *testing.T) {
	j, err := judging.Default()
	require.NoError(t, err)
	feats, err := godog.TestSuite{Options: &godog.Options{FS: features.FS, Paths: []string{"."}}}.RetrieveFeatures()
	require.NoError(t, err)
	rules, tagged := 0, 0
	for name, row := range j.Table().Schemas {
		for _, r := range row.AssumedRules {
			if r.Rule != "required" {
				continue
			}
			rules++
			found := 0
			for _, f := range feats {
				for _, p := range f.Pickles {
					var clauses, profiles []string
					for _, tag := range p.Tags {
						if c, ok := strings.CutPrefix(tag.Name, specTagPrefix); ok {
							clauses = append(clauses, c)
						}
						if k, ok := strings.CutPrefix(tag.Name, profileTagPrefix); ok {
							profiles = append(profiles, k)
						}
					}
					refuses := false
					for _, st := range p.Steps {
						for _, ptr := range r.Pointers {
							refuses = refuses || strings.HasSuffix(st.Text, `the request is refused as an invalid field "`+ptr+`"`)
						}
					}
					if !refuses || !slices.ContainsFunc(clauses, func(c string) bool { return slices.Contains(row.Clauses, c) }) {
						continue
					}
					found++
					assert.Equal(t, []string{r.Assumed}, profiles, "%s: %q refuses %s of %s, an assumed rule of judging.json", p.Uri, p.Name, r, name)
				}
			}
			tagged += found
		}
	}
	assert.Positive(t, rules, "required rules in judging.json")
	assert.Positive(t, tagged, "scenarios refusing a field an assumed rule requires (the enrollment's merchant, §4.5)")
}

// TestRefusalClauses: a failed refusal cites the scenario's sections the
// kind of refusal is normative by, not every section of the kind's row.
func TestRefusalClauses(t *testing.T) {
	invalidField := []string{"4.1", "4.2", "4.3", "4.9", "7", "8"}
	for _, c := range []struct {
		name           string
		kind, scenario []string
		want           []string
	}{
		{"the scenario's sections the kind shares", invalidField, []string{"4.1", "2.1"}, []string{"4.1"}},
		{"the scenario's sections when it shares none", invalidField, []string{"2.1"}, []string{"2.1"}},
		{"the kind's when the scenario names none", invalidField, nil, invalidField},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := refusalClauses(c.kind, c.scenario); !reflect.DeepEqual(got, c.want) {
				t.Errorf("refusalClauses(%v, %v) = %v, want %v", c.kind, c.scenario, got, c.want)
			}
		})
	}
}

// TestListOrderedTiesAtShownPrecision: items shown at different times must
// be in order; items shown at the same time are not judged by id, as the
// target may order them by a finer time than it shows.
func TestListOrderedTiesAtShownPrecision(t *testing.T) {
	jd, err := judging.Default()
	if err != nil {
		t.Fatal(err)
	}
	item := func(id, at string) any { return map[string]any{"id": id, "created_at": at} }
	for _, c := range []struct {
		name    string
		which   string
		items   []any
		wantErr bool
	}{
		{"newest first", "newest", []any{item("TRb", "2026-01-01T00:00:02.000Z"), item("TRa", "2026-01-01T00:00:01.000Z")}, false},
		{"oldest first out of order", "oldest", []any{item("TRb", "2026-01-01T00:00:02.000Z"), item("TRa", "2026-01-01T00:00:01.000Z")}, true},
		{"newest first out of order", "newest", []any{item("TRa", "2026-01-01T00:00:01.000Z"), item("TRb", "2026-01-01T00:00:02.000Z")}, true},
		{"a tie as shown in either id order", "newest", []any{item("TRa", "2026-01-01T00:00:01.000Z"), item("TRb", "2026-01-01T00:00:01.000Z")}, false},
		{"a tie as shown, oldest first", "oldest", []any{item("TRb", "2026-01-01T00:00:01.000Z"), item("TRa", "2026-01-01T00:00:01.000Z")}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := &scenario{suite: &suite{v: jd.Validator(), j: jd, profile: jd.DefaultProfile()}, clauses: []string{"2.12"},
				last: &exchange{method: "GET", path: "/transfers", status: 200, doc: map[string]any{"_embedded": map[string]any{"transfers": c.items}}}}
			if err := s.listOrdered(c.which); (err != nil) != c.wantErr {
				t.Errorf("listOrdered(%s) = %v, want an error: %v", c.which, err, c.wantErr)
			}
		})
	}
}

// TestListSortedBy: the items are in the order of the sort values, each
// in turn, the next judged only where an amount ties.
func TestListSortedBy(t *testing.T) {
	jd, err := judging.Default()
	if err != nil {
		t.Fatal(err)
	}
	item := func(id string, amount int64, at string) any {
		return map[string]any{"id": id, "amount": json.Number(big.NewInt(amount).String()), "created_at": at}
	}
	const t1, t2 = "2026-01-01T00:00:01.000Z", "2026-01-01T00:00:02.000Z"
	for _, c := range []struct {
		name, order string
		items       []any
		wantErr     bool
	}{
		{"amount descending", "amount,desc", []any{item("TRa", 5, t1), item("TRb", 3, t2)}, false},
		{"amount descending out of order", "amount,desc", []any{item("TRa", 3, t1), item("TRb", 5, t2)}, true},
		{"an amount tie by the second value", "amount,asc then created_at,desc", []any{item("TRb", 3, t2), item("TRa", 3, t1)}, false},
		{"an amount tie out of the second value's order", "amount,asc then created_at,desc", []any{item("TRa", 3, t1), item("TRb", 3, t2)}, true},
		{"a single value's tie is not judged", "amount,asc", []any{item("TRa", 3, t1), item("TRb", 3, t2)}, false},
		{"a timestamp tie says nothing of the next value", "created_at,asc then amount,asc", []any{item("TRa", 5, t1), item("TRb", 3, t1)}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := &scenario{suite: &suite{v: jd.Validator(), j: jd, profile: jd.DefaultProfile()}, clauses: []string{"2.12"},
				last: &exchange{method: "GET", path: "/transfers", status: 200, doc: map[string]any{"_embedded": map[string]any{"transfers": c.items}}}}
			if err := s.listSortedBy(c.order); (err != nil) != c.wantErr {
				t.Errorf("listSortedBy(%s) = %v, want an error: %v", c.order, err, c.wantErr)
			}
		})
	}
}

// TestForbiddenRestsOnTheSpecOrOnARole: §5 item 6 leaves open which roles
// may call which endpoints (a silence of judging.json governing roles), so
// a scenario that expects a refusal as forbidden is normative only for the
// one rule the spec states (§4.4, §5 item 3: only ROLE_PLATFORM updates a
// merchant's flags); any other is @assumed under a key of that silence.
func TestForbiddenRestsOnTheSpecOrOnARole(t *testing.T) {
	j, err := judging.Default()
	require.NoError(t, err)
	var keys []string
	for _, s := range j.Silences() {
		if s.Governs.Roles {
			keys = append(keys, s.Keys...)
		}
	}
	require.NotEmpty(t, keys, "the silence of §5 item 6")
	feats, err := godog.TestSuite{Options: &godog.Options{FS: features.FS, Paths: []string{"."}}}.RetrieveFeatures()
	require.NoError(t, err)
	seen := 0
	for _, f := range feats {
		for _, p := range f.Pickles {
			forbidden, updatesMerchant := false, false
			for _, st := range p.Steps {
				forbidden = forbidden || strings.HasSuffix(st.Text, "the request is refused as forbidden")
				updatesMerchant = updatesMerchant || strings.HasSuffix(st.Text, "processing to true on the merchant") || strings.HasSuffix(st.Text, "processing to false on the merchant")
			}
			if !forbidden {
				continue
			}
			seen++
			var profiles []string
			assumed := false
			for _, tag := range p.Tags {
				assumed = assumed || tag.Name == "@assumed"
				if k, ok := strings.CutPrefix(tag.Name, profileTagPrefix); ok {
					profiles = append(profiles, k)
				}
			}
			if updatesMerchant {
				continue // §4.4, §5 item 3
			}
			assert.True(t, assumed && len(profiles) == 1 && slices.Contains(keys, profiles[0]),
				"%s: %q expects forbidden for an operation §5 item 6 leaves open: tag it @assumed @profile-%s", p.Uri, p.Name, keys[0])
		}
	}
	assert.Positive(t, seen, "scenarios expecting forbidden")
}

// TestEveryNormativeScenarioSaysItsSentence: a scenario not tagged
// @assumed (on itself or on the Examples of each of its rows) carries a
// description, the spec's words its checks rest on, starting with its
// section ("§N.N: ...") or the safety invariant it keeps ("Invariant
// <name>: ..."); a FAIL prints it (features/README.md).
func TestEveryNormativeScenarioSaysItsSentence(t *testing.T) {
	feats, err := godog.TestSuite{Options: &godog.Options{FS: features.FS, Paths: []string{"."}}}.RetrieveFeatures()
	require.NoError(t, err)
	type astScenario struct{ name, says string }
	scenarios, normative := 0, 0
	for _, f := range feats {
		byID := map[string]astScenario{}
		var collect func(children []*messages.FeatureChild)
		collect = func(children []*messages.FeatureChild) {
			for _, ch := range children {
				switch {
				case ch.Scenario != nil:
					byID[ch.Scenario.Id] = astScenario{ch.Scenario.Name, strings.TrimSpace(ch.Scenario.Description)}
				case ch.Rule != nil:
					var ruleChildren []*messages.FeatureChild
					for _, rc := range ch.Rule.Children {
						ruleChildren = append(ruleChildren, &messages.FeatureChild{Scenario: rc.Scenario})
					}
					collect(ruleChildren)
				}
			}
		}
		require.NotNil(t, f.Feature, "%s: no feature", f.Uri)
		collect(f.Feature.Children)
		scenarios += len(byID)
		seen := map[string]bool{}
		for _, p := range f.Pickles {
			if slices.ContainsFunc(p.Tags, func(tag *messages.PickleTag) bool { return tag.Name == "@assumed" }) {
				continue
			}
			require.NotEmpty(t, p.AstNodeIds, "%s: %q has no AST node", f.Uri, p.Name)
			sc, ok := byID[p.AstNodeIds[0]]
			require.True(t, ok, "%s: %q: its scenario is not in the feature's AST", f.Uri, p.Name)
			if seen[p.AstNodeIds[0]] {
				continue
			}
			seen[p.AstNodeIds[0]] = true
			normative++
			if sc.says == "" {
				t.Errorf("%s: scenario %q is normative (not @assumed) and has no description: give it the spec's sentence (§N.N: ...)", f.Uri, sc.name)
				continue
			}
			if !strings.HasPrefix(sc.says, "§") && !strings.HasPrefix(sc.says, "Invariant ") {
				t.Errorf("%s: scenario %q: its description %q does not start with its section (§N.N: ...) or \"Invariant <name>: \"", f.Uri, sc.name, sc.says)
			}
		}
	}
	assert.Positive(t, scenarios, "scenarios in the embedded features")
	assert.Positive(t, normative, "normative scenarios in the embedded features")
}
