package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/conform-kit/conform/reference/pgtest"
	"github.com/conform-kit/conform/steps"
)

// The tests of conform serve --store postgres://… run real replicas: the
// built binary, started as processes on one throwaway database
// (reference/pgtest), so that one can be killed with SIGKILL. They run in
// make test; a machine without the PostgreSQL server fails them naming the
// package to install (pgtest), as every PostgreSQL test of the kit.

// TestExploreAcrossPostgresReplicas: conform explore through the second of
// two conform serve --store replicas on one database, with the first's
// config (its credentials and fixtures are the second's), finds nothing.
// It runs against a real PostgreSQL (reference/pgtest), as TestPostgres.
func TestExploreAcrossPostgresReplicas(t *testing.T) {
	cluster := pgtest.Start(t)
	dsn := cluster.NewDatabase(t, "explore")
	pathA, cfgA := serveFixtures(t, "--store", dsn)
	_, cfgB := serveFixtures(t, "--store", dsn)
	require.NotEqual(t, cfgA.Target, cfgB.Target)
	require.Equal(t, cfgA.Credentials, cfgB.Credentials, "one sandbox: one seed, the same credentials")
	require.Equal(t, cfgA.Fixtures, cfgB.Fixtures)

	code, out, errOut := run(t, "", "explore", "--target", cfgB.Target, "--config", pathA, "--budget", "1500", "--seed", "5")
	require.Equal(t, exitOK, code, "%s\n%s", out, errOut)
	assert.Contains(t, out, "0 FAIL, 0 WARN (replay: --seed 5 ")
}

// TestPostgresReplicasAreOneSandbox: two conform serve --store processes on
// one database write the same credentials and fixtures; a sale made through
// one reads back through the other; the whole suite run through the second
// with the first's config is green; the first, killed with SIGKILL and
// started again, still has the sale.
func TestPostgresReplicasAreOneSandbox(t *testing.T) {
	bin := conformBinary(t)
	dsn := pgtest.Start(t).NewDatabase(t, "one")
	a := startReplica(t, bin, dsn)
	b := startReplica(t, bin, dsn)
	require.NotEqual(t, a.cfg.Target, b.cfg.Target)
	assert.Equal(t, a.cfg.Credentials, b.cfg.Credentials, "one seed: the same credentials")
	assert.Equal(t, a.cfg.Fixtures, b.cfg.Fixtures, "one seed: the same fixtures")
	assert.NotEqual(t, a.cfg.Sandbox.AdminToken, b.cfg.Sandbox.AdminToken, "each replica has its own admin token")

	c := newAPI(t, a.cfg)
	card := c.card(a.cfg.Target)
	status, sale := c.do("POST", a.cfg.Target+"/transfers", map[string]any{"source": card, "merchant": a.cfg.Fixtures.Merchant, "amount": 4321, "currency": "USD"})
	require.Equal(t, 201, status, "%v", sale)
	status, read := c.do("GET", b.cfg.Target+"/transfers/"+str(sale["id"]), nil)
	require.Equal(t, 200, status, "a sale made through one replica, read through the other")
	assert.EqualValues(t, 4321, read["amount"])
	assert.Equal(t, sale["created_at"], read["created_at"])

	out := a.suite(t, b.cfg.Target, a.path, "--seed", "0")
	assert.NotContains(t, out, "sandbox namespace", "the first's config against the second: no namespace, the seeded applications")

	a.kill(t)
	again := startReplica(t, bin, dsn)
	assert.Equal(t, a.cfg.Credentials, again.cfg.Credentials)
	status, read = c.do("GET", again.cfg.Target+"/transfers/"+str(sale["id"]), nil)
	require.Equal(t, 200, status, "the sale after the first replica was killed and started again")
	assert.EqualValues(t, 4321, read["amount"])
}

// TestTwoSuiteRunsAtOnceOverPostgresReplicas: two conform run at once, each
// through its own replica with that replica's config, so each in a fresh
// namespace of the one database: both green, in two namespaces, both
// dropped at the end.
func TestTwoSuiteRunsAtOnceOverPostgresReplicas(t *testing.T) {
	bin := conformBinary(t)
	dsn := pgtest.Start(t).NewDatabase(t, "runs")
	replicas := []*replica{startReplica(t, bin, dsn), startReplica(t, bin, dsn)}
	outs := make([]string, len(replicas))
	var wg sync.WaitGroup
	for i, r := range replicas {
		wg.Add(1)
		go func() {
			defer wg.Done()
			outs[i] = r.suite(t, r.cfg.Target, r.path)
		}()
	}
	wg.Wait()
	var ns []string
	for i, out := range outs {
		m := namespaceLine.FindStringSubmatch(out)
		if assert.NotNil(t, m, "run %d took a namespace:\n%s", i, out) {
			ns = append(ns, m[1])
		}
	}
	require.Len(t, ns, 2)
	assert.NotEqual(t, ns[0], ns[1], "each run its own namespace")
	var held int
	require.NoError(t, queryRow(t, dsn, `SELECT count(*) FROM namespaces`).Scan(&held))
	assert.Zero(t, held, "both namespaces dropped at the end")
}

// TestPostgresRestartHonoursTheFixturesFile: the fixtures file a replica
// wrote keeps working after that replica is killed and started again on
// the same address (a run takes and drops a namespace with it), and on a
// replica started beside it; a token no replica handed out is still 401.
func TestPostgresRestartHonoursTheFixturesFile(t *testing.T) {
	bin := conformBinary(t)
	dsn := pgtest.Start(t).NewDatabase(t, "token")
	a := startReplica(t, bin, dsn)
	addr := strings.TrimPrefix(a.cfg.Target, "http://")
	a.kill(t)
	again := startReplica(t, bin, dsn, "--addr", addr)
	require.Equal(t, a.cfg.Target, again.cfg.Target, "started again on the same address")
	other := startReplica(t, bin, dsn)

	tests := []struct {
		name, target, token string
		want                int
	}{
		{"the restarted replica, the first file's token", again.cfg.Target, a.cfg.Sandbox.AdminToken, 201},
		{"another replica, the first file's token", other.cfg.Target, a.cfg.Sandbox.AdminToken, 201},
		{"the restarted replica, its own token", again.cfg.Target, again.cfg.Sandbox.AdminToken, 201},
		{"a token no replica handed out", again.cfg.Target, strings.Repeat("0", 64), 401},
		{"no token", other.cfg.Target, "", 401},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := admin(t, "POST", tt.target+namespacesPath, tt.token)
			resp.Body.Close()
			assert.Equal(t, tt.want, resp.StatusCode)
		})
	}

	code, out, errOut := run(t, "", "run", "--target", again.cfg.Target, "--config", a.path, "--tags", "@disputes")
	require.Equal(t, exitOK, code, "the first file through the restarted replica:\n%s\n%s", out, errOut)
	m := namespaceLine.FindStringSubmatch(errOut)
	require.NotNil(t, m, "the run took a namespace: %s", errOut)
	assert.Contains(t, errOut, "dropped at the end")
}

// TestPostgresRestartKeepsEverything: every replica stopped, then started
// again on the database: every resource listed before (in the seeded
// application and in a namespace) reads back and lists the same, and the
// namespace's users still authenticate.
func TestPostgresRestartKeepsEverything(t *testing.T) {
	bin := conformBinary(t)
	dsn := pgtest.Start(t).NewDatabase(t, "restart")
	a, b := startReplica(t, bin, dsn), startReplica(t, bin, dsn)

	resp := admin(t, "POST", a.cfg.Target+namespacesPath, a.cfg.Sandbox.AdminToken)
	require.Equal(t, 201, resp.StatusCode)
	var nsCfg steps.Config
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&nsCfg))

	// reads are the GETs made before the restart, with what they answered.
	type read struct {
		cfg  steps.Config
		path string
		body []byte
	}
	var reads []read
	for _, who := range []struct {
		cfg steps.Config
		via *replica
	}{{a.cfg, a}, {nsCfg, b}} {
		c := newAPI(t, who.cfg)
		target := who.via.cfg.Target
		paths := []string{"/payment_instruments/" + c.card(target)}
		create := func(path string, body map[string]any) {
			st, v := c.do("POST", target+path, body)
			require.Equal(t, 2, st/100, "POST %s: %d %v", path, st, v)
			paths = append(paths, path+"/"+str(v["id"]))
		}
		card := strings.TrimPrefix(paths[0], "/payment_instruments/")
		for i := range 3 {
			create("/transfers", map[string]any{"source": card, "merchant": who.cfg.Fixtures.Merchant, "amount": 1000 + 10*i, "currency": "USD"})
			create("/authorizations", map[string]any{"source": card, "merchant": who.cfg.Fixtures.Merchant, "amount": 2000 + 10*i, "currency": "USD"})
			create("/balance_transfers", map[string]any{"amount": 300 + i, "currency": "USD", "description": "x",
				"source": "OPERATING_ACCOUNT", "destination": "FOR_BENEFIT_OF_ACCOUNT", "processor_type": "LITLE_V1"})
		}
		create("/files", map[string]any{"display_name": "passport", "linked_to": who.cfg.Fixtures.Merchant, "type": "PASSPORT"})
		create("/webhooks", map[string]any{"url": "http://127.0.0.1:9/hook"})
		paths = append(paths, "/balance_transfers?limit=100", "/disputes?limit=100", "/files?limit=100", "/webhooks?limit=100",
			"/disputes/"+who.cfg.Fixtures.Dispute, "/merchants/"+who.cfg.Fixtures.Merchant,
			"/subscription/subscription_schedules/"+who.cfg.Fixtures.SubscriptionSchedule)
		for _, path := range paths {
			st, v := c.do("GET", target+path, nil)
			require.Equal(t, 200, st, "GET %s", path)
			reads = append(reads, read{who.cfg, path, canonicalPage(t, v)})
		}
	}

	a.stop(t)
	b.stop(t)
	again := startReplica(t, bin, dsn)
	for _, r := range reads {
		st, v := newAPI(t, r.cfg).do("GET", again.cfg.Target+r.path, nil)
		require.Equal(t, 200, st, "GET %s after the restart", r.path)
		assert.JSONEq(t, string(r.body), string(canonicalPage(t, v)), "GET %s after the restart", r.path)
	}
	var held int
	require.NoError(t, queryRow(t, dsn, `SELECT count(*) FROM namespaces`).Scan(&held))
	assert.Equal(t, 1, held, "the namespace is kept")
}

// canonicalPage is a response without its links (they name the replica's
// address, which changes with the restart).
func canonicalPage(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(stripLinks(v))
	require.NoError(t, err)
	return b
}

func stripLinks(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			if k == "_links" {
				continue
			}
			out[k] = stripLinks(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = stripLinks(e)
		}
		return out
	}
	return v
}

// conformBinary builds cmd/conform once per test binary and returns its path.
func conformBinary(t *testing.T) string {
	t.Helper()
	builtBinary.once.Do(func() {
		dir, err := os.MkdirTemp("", "conform-bin-")
		if err != nil {
			builtBinary.err = err
			return
		}
		builtBinary.dir = dir
		path := filepath.Join(dir, "conform")
		out, err := exec.Command("go", "build", "-o", path, ".").CombinedOutput()
		if err != nil {
			builtBinary.err = fmt.Errorf("go build: %w\n%s", err, out)
			return
		}
		builtBinary.path = path
	})
	require.NoError(t, builtBinary.err)
	return builtBinary.path
}

// builtBinary is the conform binary the replica tests run, built once and
// removed by TestMain.
var builtBinary struct {
	once sync.Once
	dir  string
	path string
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if builtBinary.dir != "" {
		os.RemoveAll(builtBinary.dir)
	}
	os.Exit(code)
}

// replica is one conform serve --store process.
type replica struct {
	cmd    *exec.Cmd
	path   string       // its fixtures file
	cfg    steps.Config // what it wrote there
	exited chan struct{}
	out    *syncBuffer // its standard output and error
}

// syncBuffer is a bytes.Buffer a process writes while a test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startReplica starts conform serve --store dsn on a free loopback port and
// waits for the fixtures file it writes once it serves. It is stopped (or
// killed) when the test ends, before the cluster.
func startReplica(t *testing.T, bin, dsn string, args ...string) *replica {
	t.Helper()
	r := &replica{path: filepath.Join(t.TempDir(), "conform.json"), exited: make(chan struct{}), out: &syncBuffer{}}
	r.cmd = exec.Command(bin, append([]string{"serve", "--addr", "127.0.0.1:0", "--review-delay", "20ms",
		"--store", dsn, "--fixtures", r.path}, args...)...)
	r.cmd.Stdout, r.cmd.Stderr = r.out, r.out
	require.NoError(t, r.cmd.Start())
	go func() {
		_ = r.cmd.Wait()
		close(r.exited)
	}()
	t.Cleanup(func() {
		select {
		case <-r.exited:
		default:
			_ = r.cmd.Process.Signal(os.Interrupt)
			select {
			case <-r.exited:
			case <-time.After(20 * time.Second):
				_ = r.cmd.Process.Kill()
				<-r.exited
			}
		}
	})
	deadline := time.After(60 * time.Second)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		if b, err := os.ReadFile(r.path); err == nil && json.Valid(b) {
			cfg, err := steps.LoadConfigFile(r.path)
			require.NoError(t, err)
			require.NotNil(t, cfg.Sandbox, "a replica is a sandbox")
			r.cfg = cfg
			return r
		}
		select {
		case <-r.exited:
			t.Fatalf("conform serve --store exited before writing its fixtures:\n%s", r.out)
		case <-deadline:
			t.Fatalf("conform serve --store wrote no fixtures within 60s:\n%s", r.out)
		case <-tick.C:
		}
	}
}

// kill ends the replica with SIGKILL: nothing of it runs after.
func (r *replica) kill(t *testing.T) {
	t.Helper()
	require.NoError(t, r.cmd.Process.Signal(syscall.SIGKILL))
	<-r.exited
}

// stop ends the replica as an operator does (SIGINT), which must exit 0.
func (r *replica) stop(t *testing.T) {
	t.Helper()
	require.NoError(t, r.cmd.Process.Signal(os.Interrupt))
	select {
	case <-r.exited:
	case <-time.After(30 * time.Second):
		t.Fatalf("conform serve did not stop within 30s:\n%s", r.out)
	}
	assert.Equal(t, 0, r.cmd.ProcessState.ExitCode(), "%s", r.out)
}

// suiteLine is a scenario's line in conform run --format pretty.
var suiteLine = regexp.MustCompile(`(?m)^(PASS|FAIL|WARN|ERROR|SKIP) `)

// suite runs the whole suite with the built binary against target with the
// config file config, and requires it green: exit 0, scenarios passed, none
// FAIL or ERROR. It returns the output.
func (r *replica) suite(t *testing.T, target, config string, args ...string) string {
	t.Helper()
	var out bytes.Buffer
	cmd := exec.Command(r.cmd.Path, append([]string{"run", "--target", target, "--config", config, "--format", "pretty"}, args...)...)
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	counts := map[string]int{}
	for _, m := range suiteLine.FindAllStringSubmatch(out.String(), -1) {
		counts[m[1]]++
	}
	assert.NoError(t, err, "conform run through %s:\n%s", target, out.String())
	assert.Greater(t, counts["PASS"], 200, "conform run through %s: scenarios passed", target)
	assert.Zero(t, counts["FAIL"]+counts["ERROR"], "conform run through %s: %v\n%s", target, counts, out.String())
	return out.String()
}

// api is a client of the API as a config's platform user.
type api struct {
	t    *testing.T
	cfg  steps.Config
	http *http.Client
}

func newAPI(t *testing.T, cfg steps.Config) *api {
	return &api{t: t, cfg: cfg, http: &http.Client{Timeout: 10 * time.Second}}
}

// send makes one request and returns its status and decoded body; err is
// a request that got no answer (the replica gone).
func (c *api) send(ctx context.Context, method, url string, body any) (int, map[string]any, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return 0, nil, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		return 0, nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/vnd.json+api")
	}
	req.SetBasicAuth(c.cfg.Credentials.Platform.Username, c.cfg.Credentials.Platform.Password)
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, nil, err
	}
	var v map[string]any
	if len(b) > 0 {
		if err := json.Unmarshal(b, &v); err != nil {
			return 0, nil, fmt.Errorf("%s %s: %d, not JSON: %w", method, url, resp.StatusCode, err)
		}
	}
	return resp.StatusCode, v, nil
}

// do is send that requires an answer.
func (c *api) do(method, url string, body any) (int, map[string]any) {
	c.t.Helper()
	st, v, err := c.send(context.Background(), method, url, body)
	require.NoError(c.t, err)
	return st, v
}

// card creates a card of the config's buyer through target.
func (c *api) card(target string) string {
	c.t.Helper()
	st, v := c.do("POST", target+"/payment_instruments", map[string]any{
		"type": "PAYMENT_CARD", "name": "Jane Buyer", "number": "4111111111111111",
		"expiration_month": 12, "expiration_year": 2030, "security_code": "737",
		"identity": c.cfg.Fixtures.BuyerIdentity, "address": map[string]any{"postal_code": "94110", "line1": "1 Main St"},
	})
	require.Equal(c.t, 201, st, "%v", v)
	return str(v["id"])
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

// queryRow runs one query on the database directly.
func queryRow(t *testing.T, dsn, sql string, args ...any) pgx.Row {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	conn, err := pgx.Connect(ctx, dsn)
	require.NoError(t, err)
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn.QueryRow(ctx, sql, args...)
}
