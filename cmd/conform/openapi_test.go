package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestOpenAPICommand(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := execute(context.Background(), []string{"openapi", "--help"}, strings.NewReader(""), &out, &errOut); code != exitOK {
		t.Fatalf("openapi --help: exit %d; %s", code, errOut.String())
	}
	golden(t, "help_openapi.golden", out.String())

	out.Reset()
	if code := execute(context.Background(), []string{"openapi"}, strings.NewReader(""), &out, &errOut); code != exitOK {
		t.Fatalf("openapi: exit %d; %s", code, errOut.String())
	}
	var doc struct {
		OpenAPI string         `json:"openapi"`
		Paths   map[string]any `json:"paths"`
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil || doc.OpenAPI != "3.1.0" || doc.Paths["/transfers"] == nil {
		t.Fatalf("openapi printed %.200s (err %v), want an OpenAPI 3.1.0 document with /transfers", out.String(), err)
	}

	file := filepath.Join(t.TempDir(), "openapi.json")
	if code := execute(context.Background(), []string{"openapi", "--out", file}, strings.NewReader(""), &out, &errOut); code != exitOK {
		t.Fatalf("openapi --out: exit %d; %s", code, errOut.String())
	}
	written, err := os.ReadFile(file)
	if err != nil || !bytes.Equal(written, out.Bytes()) {
		t.Errorf("--out wrote %d bytes (err %v), want the %d bytes printed", len(written), err, out.Len())
	}
}
