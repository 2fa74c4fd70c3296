package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// startServe runs conform serve on a free loopback port with args and
// returns its fixtures, its exit code channel and its output buffers.
func startServe(t *testing.T, ctx context.Context, args ...string) (fixtureFile, <-chan int, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	fixtures := filepath.Join(t.TempDir(), "conform.json")
	done := make(chan int, 1)
	var out, errOut bytes.Buffer
	go func() {
		done <- execute(ctx, append([]string{"serve", "--addr", "127.0.0.1:0", "--fixtures", fixtures}, args...),
			strings.NewReader(""), &out, &errOut)
	}()
	return waitForFixtures(t, fixtures, done), done, &out, &errOut
}

// TestServeBannerHidesPasswords: standard output that is not a terminal
// (here a buffer, as a log file or a pipe) never receives a password.
func TestServeBannerHidesPasswords(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cfg, done, out, _ := startServe(t, ctx)
	cancel()
	if code := <-done; code != exitOK {
		t.Fatalf("exit %d", code)
	}
	banner := out.String()
	for role, c := range cfg.Credentials {
		if !strings.Contains(banner, c.Username) {
			t.Errorf("the banner does not name the %s user", role)
		}
		if strings.Contains(banner, c.Password) {
			t.Errorf("the banner prints the %s password to a non-terminal", role)
		}
	}
}

// TestServeExitsOneWhenGraceRunsOut: a request still reading its body when
// the shutdown grace ends is cut off, and serve says so with exit 1 (not
// the usage code 2).
func TestServeExitsOneWhenGraceRunsOut(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cfg, done, _, errOut := startServe(t, ctx, "--shutdown-grace", "50ms")
	conn, err := net.Dial("tcp", strings.TrimPrefix(cfg.Target, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	cred := cfg.Credentials["platform"]
	auth := base64.StdEncoding.EncodeToString([]byte(cred.Username + ":" + cred.Password))
	fmt.Fprintf(conn, "POST /transfers HTTP/1.1\r\nHost: x\r\nAuthorization: Basic %s\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"amount\":", auth)
	// The handler is now blocked reading the other 90 bytes; a second
	// request on another connection proves the server has read the headers.
	resp, err := http.Get(cfg.Target + "/disputes")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	cancel()
	select {
	case code := <-done:
		if code != exitFailed || !strings.Contains(errOut.String(), "shutdown grace") {
			t.Errorf("exit %d, stderr %q; want 1 naming the shutdown grace", code, errOut.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not stop within 10s")
	}
}

// TestServeAnswersOptionsAsteriskInEnvelope: net/http answers "OPTIONS *"
// itself unless told not to; serve lets the reference answer it.
func TestServeAnswersOptionsAsteriskInEnvelope(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cfg, done, _, _ := startServe(t, ctx)
	conn, err := net.Dial("tcp", strings.TrimPrefix(cfg.Target, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprint(conn, "OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n")
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest || resp.Header.Get("Content-Type") != "application/hal+json" {
		t.Errorf("OPTIONS *: status %d, content type %q; want 400 application/hal+json", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	cancel()
	<-done
}

func TestServeRefusesBadWebhookAllow(t *testing.T) {
	code, _, errOut := run(t, "", "serve", "--addr", "127.0.0.1:0", "--webhook-allow", "10.0.0.0/33")
	if code != exitUsage || !strings.Contains(errOut, "--webhook-allow") {
		t.Errorf("exit %d, stderr %q; want 2 naming --webhook-allow", code, errOut)
	}
}

func TestServeRefusesNegativeLimits(t *testing.T) {
	for _, flag := range []string{"--retain", "--retain-mib", "--quota-creates", "--quota-webhooks", "--quota-upload-mib", "--quota-tags", "--max-namespaces", "--body-budget-mib"} {
		code, _, errOut := run(t, "", "serve", "--addr", "127.0.0.1:0", flag, "-1")
		if code != exitUsage || !strings.Contains(errOut, flag) {
			t.Errorf("%s -1: exit %d, stderr %q; want 2 naming the flag", flag, code, errOut)
		}
	}
}

// TestLimitFlagsTurnOff: 0 on the command line is "no bound", -1 for the
// reference; the defaults pass through as given.
func TestLimitFlagsTurnOff(t *testing.T) {
	l := limitFlags{maxAge: 0, retain: 7, retainMiB: 1, creates: 0, webhooks: 3, uploadMiB: 0, tags: 9}
	got, err := l.limits()
	if err != nil {
		t.Fatal(err)
	}
	if got.MaxAge != -1 || got.MaxRetained != 7 || got.MaxBytes != 1<<20 || got.CreatesPerMinute != -1 || got.Webhooks != 3 || got.UploadBytes != -1 || got.Tags != 9 {
		t.Errorf("limits %+v", got)
	}
}

// TestServeClosesIdleConnections: a kept-alive connection that sends no
// further request is closed after --idle-timeout (a shared sandbox keeps no
// forgotten connection), while one that keeps asking is served.
func TestServeClosesIdleConnections(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cfg, done, _, _ := startServe(t, ctx, "--idle-timeout", "300ms")
	conn, err := net.Dial("tcp", strings.TrimPrefix(cfg.Target, "http://"))
	require.NoError(t, err)
	defer conn.Close()
	rd := bufio.NewReader(conn)
	// Kept alive while used: three requests on one connection. (No pause
	// between them: a pause shorter than the idle bound can overrun it on a
	// loaded machine, and what the test proves needs none.)
	for range 3 {
		fmt.Fprint(conn, "GET /disputes HTTP/1.1\r\nHost: x\r\n\r\n")
		resp, err := http.ReadResponse(rd, nil)
		require.NoError(t, err)
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	}
	// Then idle: the server closes it (EOF), long before the test's own
	// deadline would end the read (a timeout error, not EOF).
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(20*time.Second)))
	_, err = rd.ReadByte()
	assert.ErrorIs(t, err, io.EOF, "the idle connection is closed by the server, not by the test's deadline")
	cancel()
	<-done
}

// TestServeConnectionBounds: the sandbox's http.Server bounds every phase of
// a connection (none is left at net/http's "no limit"), and the idle bound
// is short enough for a sandbox many clients share.
func TestServeConnectionBounds(t *testing.T) {
	srv := sandboxHTTPServer(http.NotFoundHandler(), defaultIdleTimeout, defaultWriteTimeout)
	for name, d := range map[string]time.Duration{
		"read header": srv.ReadHeaderTimeout, "read": srv.ReadTimeout, "write": srv.WriteTimeout, "idle": srv.IdleTimeout,
	} {
		assert.Positive(t, d, name)
	}
	assert.LessOrEqual(t, srv.IdleTimeout, time.Minute)
	assert.True(t, srv.DisableGeneralOptionsHandler)
	for _, args := range [][]string{{"--idle-timeout", "0s"}, {"--write-timeout", "-1s"}} {
		code, _, errOut := run(t, "", append([]string{"serve", "--addr", "127.0.0.1:0"}, args...)...)
		assert.Equal(t, exitUsage, code, args)
		assert.Contains(t, errOut, args[0])
	}
}
