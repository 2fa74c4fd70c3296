package main

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/conform-kit/conform/steps"
)

// startSandbox runs conform serve with --fixtures and returns the path of
// the config file it wrote and that config.
func startSandbox(t *testing.T, args ...string) (string, steps.Config) {
	t.Helper()
	path, cfg := serveFixtures(t, args...)
	require.NotNil(t, cfg.Sandbox, "the fixtures file names the sandbox")
	require.NotEmpty(t, cfg.Sandbox.AdminToken)
	return path, cfg
}

// serveFixtures runs conform serve with --fixtures and args and returns the
// path of the config file it wrote and that config.
func serveFixtures(t *testing.T, args ...string) (string, steps.Config) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	path := filepath.Join(t.TempDir(), "conform.json")
	done := make(chan int, 1)
	go func() {
		done <- execute(ctx, append([]string{"serve", "--addr", "127.0.0.1:0", "--review-delay", "20ms", "--fixtures", path}, args...),
			strings.NewReader(""), &strings.Builder{}, &strings.Builder{})
	}()
	waitForFixtures(t, path, done)
	t.Cleanup(func() {
		cancel()
		<-done
	})
	cfg, err := steps.LoadConfigFile(path)
	require.NoError(t, err)
	return path, cfg
}

// admin sends an admin request with token.
func admin(t *testing.T, method, url, token string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	require.NoError(t, err)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// getAs sends a GET of the API as cred; the caller closes the body.
func getAs(t *testing.T, url string, cred *steps.Credential) *http.Response {
	t.Helper()
	req, err := http.NewRequest("GET", url, nil)
	require.NoError(t, err)
	req.SetBasicAuth(cred.Username, cred.Password)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	return resp
}

// get is a GET of the API as cred; it returns the status.
func get(t *testing.T, url string, cred *steps.Credential) int {
	t.Helper()
	resp := getAs(t, url, cred)
	resp.Body.Close()
	return resp.StatusCode
}

// TestSandboxAdminMintsAndDropsNamespaces: minting needs the admin token,
// answers a config in the shape conform run reads whose users work, and a
// drop makes them 401.
func TestSandboxAdminMintsAndDropsNamespaces(t *testing.T) {
	_, cfg := startSandbox(t, "--max-namespaces", "1")
	base := cfg.Target + namespacesPath
	for _, token := range []string{"", "wrong", cfg.Credentials.Platform.Password} {
		resp := admin(t, "POST", base, token)
		assert.Equal(t, 401, resp.StatusCode, "token %q", token)
		assert.Contains(t, resp.Header.Get("Content-Type"), "hal+json", "the refusal is the envelope")
	}
	resp := admin(t, "POST", base, cfg.Sandbox.AdminToken)
	require.Equal(t, 201, resp.StatusCode)
	var ns steps.Config
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&ns))
	require.NotNil(t, ns.Sandbox)
	assert.Empty(t, ns.Sandbox.AdminToken, "a namespace's config carries no admin token")
	assert.NotEqual(t, cfg.Credentials.Platform.Username, ns.Credentials.Platform.Username)
	dispute := cfg.Target + "/disputes/" + ns.Fixtures.Dispute
	assert.Equal(t, 200, get(t, dispute, ns.Credentials.Platform))
	assert.Equal(t, 404, get(t, dispute, cfg.Credentials.Platform), "the seeded application does not see the namespace")

	odd := admin(t, "GET", base, cfg.Sandbox.AdminToken)
	assert.Equal(t, 405, odd.StatusCode, "GET of the admin route")
	assert.Equal(t, "POST", odd.Header.Get("Allow"), "GET of the admin route names the method it takes")
	assert.Contains(t, odd.Header.Get("Content-Type"), "hal+json", "GET of the admin route is in the envelope")
	full := admin(t, "POST", base, cfg.Sandbox.AdminToken)
	assert.Equal(t, 429, full.StatusCode, "past --max-namespaces")

	assert.Equal(t, 204, admin(t, "DELETE", base+"/"+ns.Sandbox.Namespace, cfg.Sandbox.AdminToken).StatusCode)
	assert.Equal(t, 401, get(t, dispute, ns.Credentials.Platform), "a dropped namespace's user")
	assert.Equal(t, 404, admin(t, "DELETE", base+"/"+ns.Sandbox.Namespace, cfg.Sandbox.AdminToken).StatusCode)
	assert.Equal(t, 405, admin(t, "PUT", base+"/"+ns.Sandbox.Namespace, cfg.Sandbox.AdminToken).StatusCode, "PUT of a namespace")
}

var namespaceLine = regexp.MustCompile(`sandbox namespace (NS[0-9A-Za-z]+)`)

// TestRunTakesANamespaceOfTheSandbox: conform run against the sandbox of
// its config runs in a fresh namespace and drops it at the end (so a second
// drop is 404), leaving the seeded application untouched; --keep-namespace
// keeps it and writes a config whose users still work.
func TestRunTakesANamespaceOfTheSandbox(t *testing.T) {
	path, cfg := startSandbox(t)
	disputes := cfg.Target + "/disputes?limit=100"
	seededBefore := get(t, disputes, cfg.Credentials.Platform)

	code, out, errOut := run(t, "", "run", "--target", cfg.Target, "--config", path, "--tags", "@disputes")
	require.Equal(t, exitOK, code, "%s\n%s", out, errOut)
	m := namespaceLine.FindStringSubmatch(errOut)
	require.NotNil(t, m, "the run names its namespace: %s", errOut)
	assert.Contains(t, errOut, "dropped at the end")
	assert.Equal(t, 404, admin(t, "DELETE", cfg.Target+namespacesPath+"/"+m[1], cfg.Sandbox.AdminToken).StatusCode, "the run dropped its namespace")
	assert.Equal(t, seededBefore, get(t, disputes, cfg.Credentials.Platform))

	kept := filepath.Join(t.TempDir(), "ns.json")
	code, out, errOut = run(t, "", "run", "--target", cfg.Target, "--config", path, "--tags", "@balance_transfers", "--keep-namespace", kept)
	require.Equal(t, exitOK, code, "%s\n%s", out, errOut)
	nsCfg, err := steps.LoadConfigFile(kept)
	require.NoError(t, err)
	assert.Equal(t, 200, get(t, cfg.Target+"/balance_transfers", nsCfg.Credentials.Platform), "the kept namespace's user")
	info, err := os.Stat(kept)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), info.Mode().Perm())
	assert.Equal(t, 204, admin(t, "DELETE", cfg.Target+namespacesPath+"/"+nsCfg.Sandbox.Namespace, cfg.Sandbox.AdminToken).StatusCode)
}

// TestExploreTakesANamespaceOfTheSandbox: conform explore against the
// sandbox of its config explores in a fresh namespace and drops it, so what
// it makes never lands in the seeded application.
func TestExploreTakesANamespaceOfTheSandbox(t *testing.T) {
	path, cfg := startSandbox(t)
	webhooks := cfg.Target + "/webhooks?limit=1"
	before := pageCount(t, webhooks, cfg.Credentials.Platform)
	code, out, errOut := run(t, "", "explore", "--target", cfg.Target, "--config", path, "--budget", "60", "--seed", "3")
	require.Equal(t, exitOK, code, "%s\n%s", out, errOut)
	m := namespaceLine.FindStringSubmatch(errOut)
	require.NotNil(t, m, "the exploration names its namespace: %s", errOut)
	assert.Contains(t, errOut, "dropped at the end")
	assert.Equal(t, 404, admin(t, "DELETE", cfg.Target+namespacesPath+"/"+m[1], cfg.Sandbox.AdminToken).StatusCode, "the exploration dropped its namespace")
	assert.Equal(t, before, pageCount(t, webhooks, cfg.Credentials.Platform), "webhooks of the seeded application")
	assert.Contains(t, out, "0 FAIL, 0 WARN (replay: --seed 3 ", "the exploration of the reference in its namespace finds nothing")
}

// pageCount is the page.count of a list read as cred.
func pageCount(t *testing.T, url string, cred *steps.Credential) int {
	t.Helper()
	resp := getAs(t, url, cred)
	defer resp.Body.Close()
	require.Equal(t, 200, resp.StatusCode, "GET %s", url)
	var list struct {
		Page struct {
			Count int `json:"count"`
		} `json:"page"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&list))
	return list.Page.Count
}

// TestVariantServesNoNamespaces: a variant rewrites the seeded reference's
// answers (here its ids), which a namespace minted beside it would not
// share, so serve --variant offers no sandbox and a run against it keeps to
// the seeded application: no FAIL (the namespace's raw ids failed 9
// scenarios against the combined variants).
func TestVariantServesNoNamespaces(t *testing.T) {
	path, cfg := serveFixtures(t, "--variant", "ids-base58-21")
	assert.Nil(t, cfg.Sandbox, "a variant's fixtures file names no sandbox")
	code, out, errOut := run(t, "", "run", "--target", cfg.Target, "--config", path, "--tags", "@authorizations,@subscriptions")
	assert.Equal(t, exitOK, code, "%s\n%s", out, errOut)
	assert.NotContains(t, errOut, "sandbox namespace")
	assert.Equal(t, 404, admin(t, "POST", cfg.Target+namespacesPath, "x").StatusCode, "no admin route on a variant")
}

// TestRunNeverSendsTheAdminTokenElsewhere: with the sandbox's config but
// another --target, the run takes no namespace and no request carries the
// token.
func TestRunNeverSendsTheAdminTokenElsewhere(t *testing.T) {
	path, cfg := startSandbox(t)
	var mu sync.Mutex
	var seen []string
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Method+" "+r.URL.Path+" "+r.Header.Get("Authorization"))
		mu.Unlock()
		http.NotFound(w, r)
	}))
	defer other.Close()
	code, _, errOut := run(t, "", "run", "--target", other.URL, "--config", path, "--tags", "@disputes")
	assert.Equal(t, exitUsage, code, "the other target is not this API")
	assert.NotContains(t, errOut, "namespace")
	mu.Lock()
	defer mu.Unlock()
	require.NotEmpty(t, seen)
	for _, s := range seen {
		assert.NotContains(t, s, cfg.Sandbox.AdminToken)
		assert.NotContains(t, s, namespacesPath)
	}
}

// TestRunExplainsARefusedAdminToken: a config file whose admin token the
// sandbox does not hold (one written by a conform serve since restarted)
// ends the run with exit 2 and one line saying what happened and what to
// do, not a raw 401; the client's error is an *AdminTokenRefusedError.
func TestRunExplainsARefusedAdminToken(t *testing.T) {
	_, cfg := startSandbox(t)
	stale := cfg
	sb := *cfg.Sandbox
	sb.AdminToken = strings.Repeat("0", 64)
	stale.Sandbox = &sb
	path := filepath.Join(t.TempDir(), "stale.json")
	require.NoError(t, writeJSONFile(path, stale))

	tests := []struct {
		name string
		args []string
	}{
		{"run", []string{"run", "--target", cfg.Target, "--config", path, "--tags", "@disputes"}},
		{"explore", []string{"explore", "--target", cfg.Target, "--config", path, "--budget", "10"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, errOut := run(t, "", tt.args...)
			assert.Equal(t, exitUsage, code, errOut)
			assert.Equal(t, 1, strings.Count(errOut, "\n"), "one line: %q", errOut)
			assert.Contains(t, errOut, "refused the admin token of the config file")
			assert.Contains(t, errOut, "use the fixtures file the running conform serve --fixtures wrote")
			assert.NotContains(t, errOut, `"errors"`, "not the raw answer")
		})
	}

	client, ok := sandboxFor(stale)
	require.True(t, ok)
	_, err := client.mint(context.Background())
	var refused *AdminTokenRefusedError
	require.ErrorAs(t, err, &refused)
	assert.Equal(t, cfg.Sandbox.URL, refused.URL)
	_, err = client.mint(context.Background())
	var status *sandboxStatusError
	assert.False(t, errors.As(err, &status), "the 401 is explained, not passed on")
}
