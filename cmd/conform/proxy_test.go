package main

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestProxyCommand(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := execute(context.Background(), []string{"proxy", "--help"}, strings.NewReader(""), &out, &errOut); code != exitOK {
		t.Fatalf("proxy --help: exit %d", code)
	}
	golden(t, "help_proxy.golden", out.String())
	if code := execute(context.Background(), []string{"proxy", "--target", "ftp://x"}, strings.NewReader(""), &out, &errOut); code != exitUsage {
		t.Errorf("bad --target: exit %d, want %d", code, exitUsage)
	}
	badProfile := filepath.Join(t.TempDir(), "profile.json")
	if err := os.WriteFile(badProfile, []byte(`{"no_such_key":1}`), 0o600); err != nil {
		t.Fatal(err)
	}
	errOut.Reset()
	if code := execute(context.Background(), []string{"proxy", "--target", "http://x.test", "--profile", badProfile}, strings.NewReader(""), &out, &errOut); code != exitUsage || !strings.Contains(errOut.String(), "no_such_key") {
		t.Errorf("bad --profile: exit %d, want %d naming the key: %s", code, exitUsage, errOut.String())
	}

	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(404)
		_, _ = io.WriteString(w, "no envelope")
	}))
	defer backend.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	ctx, cancel := context.WithCancel(context.Background())
	codeCh := make(chan int, 1)
	var stdout, stderr bytes.Buffer
	go func() {
		codeCh <- execute(ctx, []string{"proxy", "--target", backend.URL, "--addr", addr, "--fail"}, strings.NewReader(""), &stdout, &stderr)
	}()
	var resp *http.Response
	deadline := time.Now().Add(10 * time.Second)
	for {
		resp, err = http.Get("http://" + addr + "/transfers/TR0123456789abcdefghijkl")
		if err == nil || time.Now().After(deadline) {
			break
		}
		runtimeGosched()
	}
	if err != nil {
		cancel()
		t.Fatalf("proxy never answered: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != 404 || resp.Header.Get("Conform-Violations") == "" {
		t.Errorf("status %d, violations %q; want the target's 404 with violations", resp.StatusCode, resp.Header.Get("Conform-Violations"))
	}
	cancel()
	if code := <-codeCh; code != exitFailed {
		t.Errorf("exit %d with --fail after a normative violation, want %d; stderr %s", code, exitFailed, stderr.String())
	}
	if !strings.Contains(stderr.String(), "transfers.get") {
		t.Errorf("summary lacks transfers.get:\n%s", stderr.String())
	}
}

// runtimeGosched yields while polling for the listener to come up.
func runtimeGosched() { runtime.Gosched() }
