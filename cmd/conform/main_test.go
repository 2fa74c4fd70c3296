package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/conform-kit/conform/reference"
	"github.com/conform-kit/conform/reference/faults"
	"github.com/conform-kit/conform/steps"
	"github.com/conform-kit/conform/validate/judging"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// run executes conform with args and returns the exit code, stdout and stderr.
func run(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := execute(context.Background(), args, strings.NewReader(stdin), &out, &errOut)
	return code, out.String(), errOut.String()
}

// golden compares got with testdata/name, rewriting it under -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden file (run go test -update to create it): %v", err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s (go test -update rewrites it)\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

func TestHelpText(t *testing.T) {
	for _, cmd := range []string{"", "run", "serve", "validate", "schemas", "faults", "version", "profile"} {
		name := cmd
		if name == "" {
			name = "root"
		}
		t.Run(name, func(t *testing.T) {
			args := append(strings.Fields(cmd), "--help")
			code, out, errOut := run(t, "", args...)
			if code != exitOK {
				t.Fatalf("conform %s --help: exit %d, want 0; stderr: %s", cmd, code, errOut)
			}
			golden(t, "help_"+name+".golden", out)
		})
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		stdin    string
		wantCode int
		golden   string // compared with stdout when set
		wantErr  string // substring of stderr when set
	}{
		{name: "valid file", args: []string{"--request", "transfers.create", "testdata/sale_valid.json"}, wantCode: exitOK, golden: "validate_valid.golden"},
		{name: "invalid file lists every violation", args: []string{"--request", "transfers.create", "testdata/sale_invalid.json"}, wantCode: exitFailed, golden: "validate_invalid.golden"},
		{name: "invalid as json", args: []string{"--request", "transfers.create", "--format", "json", "testdata/sale_invalid.json"}, wantCode: exitFailed, golden: "validate_invalid_json.golden"},
		{name: "stdin with dash", args: []string{"--request", "transfers.create", "-"}, stdin: `{"amount": 1}`, wantCode: exitFailed},
		{name: "stdin by default", args: []string{"--request", "transfers.create"}, stdin: `{"source":"PIe2YvpcjvoVJ6PzoRPBK137","merchant":"MUeDVrf2ahuKc9Eg5TeZugvs","amount":1,"currency":"USD"}`, wantCode: exitOK},
		{name: "resource schema", args: []string{"--resource", "authorization", "-"}, stdin: `{}`, wantCode: exitFailed},
		{name: "unknown operation", args: []string{"--request", "nope.create", "testdata/sale_valid.json"}, wantCode: exitUsage, wantErr: `unknown operation "nope.create"`},
		{name: "operation without JSON body", args: []string{"--request", "disputes.get", "testdata/sale_valid.json"}, wantCode: exitUsage, wantErr: "takes no JSON body"},
		{name: "unknown resource", args: []string{"--resource", "nope", "testdata/sale_valid.json"}, wantCode: exitUsage, wantErr: "nope"},
		{name: "unreadable file", args: []string{"--request", "transfers.create", "testdata/missing.json"}, wantCode: exitUsage, wantErr: "missing.json"},
		{name: "not JSON", args: []string{"--request", "transfers.create", "testdata/not_json.json"}, wantCode: exitUsage, wantErr: "not_json.json"},
		{name: "neither flag", args: []string{"testdata/sale_valid.json"}, wantCode: exitUsage, wantErr: "exactly one of --request or --resource"},
		{name: "both flags", args: []string{"--request", "transfers.create", "--resource", "transfer", "-"}, wantCode: exitUsage, wantErr: "exactly one"},
		{name: "bad format", args: []string{"--request", "transfers.create", "--format", "yaml", "-"}, wantCode: exitUsage, wantErr: "--format"},
		{name: "unknown flag", args: []string{"--nope"}, wantCode: exitUsage, wantErr: "unknown flag"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := run(t, tt.stdin, append([]string{"validate"}, tt.args...)...)
			if code != tt.wantCode {
				t.Fatalf("conform validate %v: exit %d, want %d\nstdout: %s\nstderr: %s", tt.args, code, tt.wantCode, out, errOut)
			}
			if tt.golden != "" {
				golden(t, tt.golden, out)
			}
			if tt.wantErr != "" && !strings.Contains(errOut, tt.wantErr) {
				t.Errorf("stderr = %q, want it to contain %q", errOut, tt.wantErr)
			}
		})
	}
}

func TestSchemasListsEveryOperation(t *testing.T) {
	code, out, errOut := run(t, "", "schemas")
	if code != exitOK {
		t.Fatalf("conform schemas: exit %d; stderr: %s", code, errOut)
	}
	for _, want := range []string{"authorizations.capture", "PUT", "/authorizations/{id}", "webhooks.update", "files.get", "POST|GET", "SCHEMAS", "authorization_create"} {
		if !strings.Contains(out, want) {
			t.Errorf("conform schemas output lacks %q", want)
		}
	}
	code, out, _ = run(t, "", "schemas", "show", "transfer_create")
	if code != exitOK || !json.Valid([]byte(out)) || !strings.Contains(out, "2020-12") {
		t.Errorf("conform schemas show transfer_create: exit %d, output not a 2020-12 schema: %.200s", code, out)
	}
	if code, _, errOut := run(t, "", "schemas", "show", "nope"); code != exitUsage || !strings.Contains(errOut, `unknown schema "nope"`) {
		t.Errorf("conform schemas show nope: exit %d, stderr %q; want 2 naming the schema", code, errOut)
	}
}

func TestVersion(t *testing.T) {
	code, out, _ := run(t, "", "version")
	if code != exitOK || !strings.HasPrefix(out, "conform ") {
		t.Errorf("conform version: exit %d, output %q", code, out)
	}
}

func TestServeWritesFixturesAndStops(t *testing.T) {
	dir := t.TempDir()
	fixtures := filepath.Join(dir, "conform.json")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan int, 1)
	var out, errOut bytes.Buffer
	go func() {
		done <- execute(ctx, []string{"serve", "--addr", "127.0.0.1:0", "--fixtures", fixtures, "--review-delay", "10ms"},
			strings.NewReader(""), &out, &errOut)
	}()

	cfg := waitForFixtures(t, fixtures, done)
	req, err := http.NewRequest(http.MethodGet, cfg.Target+"/merchants/"+cfg.Fixtures["merchant"], nil)
	if err != nil {
		t.Fatal(err)
	}
	req.SetBasicAuth(cfg.Credentials["platform"].Username, cfg.Credentials["platform"].Password)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET the seeded merchant from the served reference: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("GET /merchants/%s: status %d, want 200", cfg.Fixtures["merchant"], resp.StatusCode)
	}

	cancel()
	select {
	case code := <-done:
		if code != exitOK {
			t.Errorf("conform serve exited %d after cancel, want 0; stderr: %s", code, errOut.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("conform serve did not stop within 10s of its context being cancelled")
	}
}

func TestServeRefusesBusyAddress(t *testing.T) {
	code, _, errOut := run(t, "", "serve", "--addr", "256.0.0.1:1")
	if code != exitUsage || !strings.Contains(errOut, "listen on 256.0.0.1:1") {
		t.Errorf("conform serve on a bad address: exit %d, stderr %q; want 2 naming the address", code, errOut)
	}
}

func TestServeRefusesUnknownFault(t *testing.T) {
	code, _, errOut := run(t, "", "serve", "--addr", "127.0.0.1:0", "--fault", "no-such-fault")
	if code != exitUsage || !strings.Contains(errOut, "no-such-fault") {
		t.Errorf("conform serve --fault no-such-fault: exit %d, stderr %q; want 2 naming the fault", code, errOut)
	}
}

type fixtureFile struct {
	Target      string `json:"target"`
	Credentials map[string]struct {
		Username string `json:"username"`
		Password string `json:"password"`
	} `json:"credentials"`
	Fixtures map[string]string `json:"fixtures"`
}

// waitForFixtures polls for the fixtures file serve writes, failing if serve exits first.
func waitForFixtures(t *testing.T, path string, done <-chan int) fixtureFile {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		if b, err := os.ReadFile(path); err == nil && json.Valid(b) {
			var f fixtureFile
			if err := json.Unmarshal(b, &f); err != nil {
				t.Fatalf("fixtures file %s: %v", path, err)
			}
			if f.Target == "" || f.Fixtures["merchant"] == "" || f.Credentials["platform"].Username == "" {
				t.Fatalf("fixtures file lacks target, merchant or platform credentials: %s", b)
			}
			return f
		}
		if time.Now().After(deadline) {
			t.Fatalf("conform serve wrote no fixtures file to %s within 10s", path)
		}
		select {
		case code := <-done:
			t.Fatalf("conform serve exited %d before writing its fixtures", code)
		case <-tick.C:
		}
	}
}

// TestREADMESettingsTable: the settings table of steps/README.md (running the
// suite) lists every setting of steps.Settings, as settingsTable renders it.
func TestREADMESettingsTable(t *testing.T) {
	readme, err := os.ReadFile("../../steps/README.md")
	if err != nil {
		t.Fatal(err)
	}
	if want := settingsTable(); !strings.Contains(string(readme), want) {
		t.Errorf("steps/README.md's settings table differs from steps.Settings; its rows should read:\n%s", want)
	}
}

// TestSuiteConfigFillsEverySetting: the config made from what the reference
// seeded sets every config-file key of steps.Settings but the optional public URL.
func TestSuiteConfigFillsEverySetting(t *testing.T) {
	ref, err := reference.New(reference.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer ref.Close()
	raw, err := json.Marshal(suiteConfig("http://127.0.0.1:1", ref.Seeded()))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	for _, s := range steps.Settings() {
		if s.Key == "" || s.Key == "webhook_receiver.public_url" {
			continue
		}
		var v any = doc
		for _, part := range strings.Split(s.Key, ".") {
			m, _ := v.(map[string]any)
			v = m[part]
		}
		if str, _ := v.(string); str == "" {
			t.Errorf("suiteConfig leaves %s (%s) empty: %s", s.Key, s.Env, raw)
		}
	}
}

// TestFaultsListsTheCatalog: conform faults prints every fault of the catalog
// with its capability, expected verdict and clause, and --json the same entries.
func TestFaultsListsTheCatalog(t *testing.T) {
	catalog := faults.Catalog()
	code, out, errOut := run(t, "", "faults")
	if code != exitOK {
		t.Fatalf("conform faults: exit %d; stderr %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != len(catalog)+2 || lines[len(lines)-1] != fmt.Sprintf("%d faults", len(catalog)) {
		t.Fatalf("conform faults printed %d lines, want a header, %d faults and a count:\n%s", len(lines), len(catalog), out)
	}
	for i, f := range catalog {
		if got := strings.Fields(lines[i+1]); len(got) < 4 || got[0] != f.Name || got[1] != f.Capability || got[2] != f.Expect || !strings.HasSuffix(lines[i+1], f.Breaks) {
			t.Errorf("line %d = %q, want %s %s %s %s", i+1, lines[i+1], f.Name, f.Capability, f.Expect, f.Breaks)
		}
	}

	code, out, errOut = run(t, "", "faults", "--json")
	if code != exitOK {
		t.Fatalf("conform faults --json: exit %d; stderr %s", code, errOut)
	}
	var entries []struct {
		Name     string   `json:"name"`
		Expect   string   `json:"expect"`
		Tags     string   `json:"tags"`
		Catchers []string `json:"catchers"`
	}
	if err := json.Unmarshal([]byte(out), &entries); err != nil {
		t.Fatalf("conform faults --json is not a JSON array: %v", err)
	}
	if len(entries) != len(catalog) {
		t.Fatalf("conform faults --json: %d entries, want %d", len(entries), len(catalog))
	}
	for i, f := range catalog {
		if e := entries[i]; e.Name != f.Name || e.Expect != f.Expect || e.Tags != f.Tags || len(e.Catchers) != len(f.Catchers) {
			t.Errorf("entry %d = %+v, want %s %s %q with %d catchers", i, e, f.Name, f.Expect, f.Tags, len(f.Catchers))
		}
	}
}

// TestFaultsListsTheVariantsAsJSON: conform faults --variants --json prints
// every conformant variant with its profile as an object, ready to merge.
func TestFaultsListsTheVariantsAsJSON(t *testing.T) {
	catalog := faults.Variants()
	code, out, errOut := run(t, "", "faults", "--variants", "--json")
	if code != exitOK {
		t.Fatalf("conform faults --variants --json: exit %d; stderr %s", code, errOut)
	}
	var entries []struct {
		Name    string                     `json:"name"`
		Choice  string                     `json:"choice"`
		Profile map[string]json.RawMessage `json:"profile"`
		Tags    string                     `json:"tags"`
	}
	if err := json.Unmarshal([]byte(out), &entries); err != nil {
		t.Fatalf("conform faults --variants --json is not a JSON array of objects: %v\n%s", err, out)
	}
	if len(entries) != len(catalog) {
		t.Fatalf("conform faults --variants --json: %d entries, want %d", len(entries), len(catalog))
	}
	for i, v := range catalog {
		if e := entries[i]; e.Name != v.Name || e.Choice != v.Choice || e.Tags != v.Tags || len(e.Profile) == 0 {
			t.Errorf("entry %d = %+v, want %s %q %q with a profile", i, e, v.Name, v.Choice, v.Tags)
		}
	}
}

// TestServeWithFaultServesItBroken: serve --fault puts the named fault in front
// of the reference: GET /webhooks without credentials, refused 401 by the
// reference, is answered 200.
func TestServeWithFaultServesItBroken(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want int
	}{
		{"no fault", nil, http.StatusUnauthorized},
		{"unauthenticated-accepted-on-one-operation", []string{"--fault", "unauthenticated-accepted-on-one-operation"}, http.StatusOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fixtures := filepath.Join(t.TempDir(), "conform.json")
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan int, 1)
			var out, errOut bytes.Buffer
			go func() {
				args := append([]string{"serve", "--addr", "127.0.0.1:0", "--fixtures", fixtures}, tc.args...)
				done <- execute(ctx, args, strings.NewReader(""), &out, &errOut)
			}()
			defer func() {
				cancel()
				select { // done is already drained when serve exited early
				case <-done:
				case <-time.After(10 * time.Second):
				}
			}()
			cfg := waitForFixtures(t, fixtures, done)
			resp, err := http.Get(cfg.Target + "/webhooks")
			if err != nil {
				t.Fatalf("GET /webhooks: %v", err)
			}
			resp.Body.Close()
			if resp.StatusCode != tc.want {
				t.Errorf("GET /webhooks without credentials: status %d, want %d", resp.StatusCode, tc.want)
			}
		})
	}
}

// TestRunProfileFlags: --profile is read before anything runs (a key the
// kit does not know is a usage error naming it), and --write-profile writes
// the choices observed: against the reference, none (an empty profile).
func TestRunProfileFlags(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"create_stat": 200}`), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := run(t, "", "run", "--target", "http://127.0.0.1:9", "--profile", bad)
	if code != exitUsage || !strings.Contains(errOut, "create_stat") {
		t.Fatalf("conform run --profile with an unknown key: exit %d, stderr %q, want %d naming the key\nstdout: %s", code, errOut, exitUsage, out)
	}
	written := filepath.Join(dir, "observed.json")
	code, _, errOut = run(t, "", "run", "--tags", "@merchants", "--concurrency", "2", "--write-profile", written)
	if code != exitOK {
		t.Fatalf("conform run --write-profile against the reference: exit %d; stderr: %s", code, errOut)
	}
	got, err := os.ReadFile(written)
	if err != nil {
		t.Fatalf("the observed profile was not written: %v", err)
	}
	if strings.TrimSpace(string(got)) != "{}" {
		t.Errorf("observed profile of the reference = %s, want {} (its choices are the defaults)", got)
	}
}

// TestREADMEProfileTable: the table of profile keys in steps/README.md (Target
// profiles) is the profile table of schemas/judging.json, key by key, with its
// defaults and examples.
func TestREADMEProfileTable(t *testing.T) {
	readme, err := os.ReadFile("../../steps/README.md")
	if err != nil {
		t.Fatal(err)
	}
	v, err := judging.Default()
	if err != nil {
		t.Fatal(err)
	}
	var want strings.Builder
	for _, k := range v.Table().Profile {
		def := "`" + readableJSON(k.Default) + "`"
		switch k.Key {
		case "refusals":
			def = "the refusals table"
		case "extensions":
			def = "every extension"
		}
		fmt.Fprintf(&want, "| `%s` | %s | `%s` | %s |\n", k.Key, def, strings.ReplaceAll(readableJSON(k.Example), "|", `\|`), strings.ReplaceAll(k.Description, "|", `\|`))
	}
	if !strings.Contains(string(readme), want.String()) {
		t.Errorf("steps/README.md's profile table differs from schemas/judging.json; its rows should read:\n%s", want.String())
	}
}

// readableJSON renders a JSON value compactly with a space after every
// comma and colon between elements.
func readableJSON(raw json.RawMessage) string {
	var val any
	if err := json.Unmarshal(raw, &val); err != nil {
		return string(raw)
	}
	var render func(v any) string
	render = func(v any) string {
		switch x := v.(type) {
		case map[string]any:
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			parts := make([]string, 0, len(keys))
			for _, k := range keys {
				kb, _ := json.Marshal(k)
				parts = append(parts, string(kb)+": "+render(x[k]))
			}
			return "{" + strings.Join(parts, ", ") + "}"
		case []any:
			parts := make([]string, 0, len(x))
			for _, e := range x {
				parts = append(parts, render(e))
			}
			return "[" + strings.Join(parts, ", ") + "]"
		}
		b, _ := json.Marshal(v)
		return strings.NewReplacer(`\u003c`, "<", `\u003e`, ">").Replace(string(b))
	}
	return render(val)
}

// TestServeSuggestsTheNearestName: a misspelt --fault or --variant is
// refused (exit 2) on one line with the nearest names and the command that
// lists them all, not every name of the catalog; the error is an
// *UnknownNameError.
func TestServeSuggestsTheNearestName(t *testing.T) {
	tests := []struct {
		args []string
		want string
		near []string
	}{
		{[]string{"--fault", "bin-wrng"}, `unknown fault "bin-wrng"; did you mean bin-wrong? (conform faults lists all`, []string{"bin-wrong"}},
		{[]string{"--fault", "card-number-echoed,security-code-echoe"}, `unknown fault "security-code-echoe"; did you mean security-code-echoed?`, []string{"security-code-echoed"}},
		{[]string{"--variant", "ids-base58-2"}, `unknown variant "ids-base58-2"; did you mean ids-base58-21? (conform faults --variants lists them)`, []string{"ids-base58-21"}},
		{[]string{"--fault", "zzzzzzzzzzzzzzzz"}, `unknown fault "zzzzzzzzzzzzzzzz" (conform faults lists all`, nil},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			code, _, errOut := run(t, "", append([]string{"serve", "--addr", "127.0.0.1:0"}, tt.args...)...)
			assert.Equal(t, exitUsage, code)
			assert.Contains(t, errOut, tt.want)
			assert.Equal(t, 1, strings.Count(errOut, "\n"), "one line: %q", errOut)
			assert.Less(t, len(errOut), 300, "not the whole catalog: %q", errOut)

			var faultNames, variantNames []string
			if tt.args[0] == "--fault" {
				faultNames = strings.Split(tt.args[1], ",")
			} else {
				variantNames = strings.Split(tt.args[1], ",")
			}
			var unknown *UnknownNameError
			require.ErrorAs(t, checkCatalogNames(faultNames, variantNames), &unknown)
			assert.Equal(t, tt.near, unknown.Near)
		})
	}
}
