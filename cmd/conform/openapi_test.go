package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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

func TestOpenAPICommandVersions(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		wantCode int
		want     string // the document's openapi field, when it prints one
	}{
		{"default is 3.1", []string{"openapi"}, exitOK, "3.1.0"},
		{"3.1", []string{"openapi", "--version", "3.1"}, exitOK, "3.1.0"},
		{"3.0", []string{"openapi", "--version", "3.0"}, exitOK, "3.0.3"},
		{"2.0 is a usage error", []string{"openapi", "--version", "2.0"}, exitUsage, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := execute(context.Background(), tt.args, strings.NewReader(""), &out, &errOut)
			require.Equal(t, tt.wantCode, code, "%s: exit code; stderr %s", tt.name, errOut.String())
			if tt.want == "" {
				assert.Empty(t, out.String(), "%s: nothing printed", tt.name)
				assert.Contains(t, errOut.String(), `unknown version "2.0"`, tt.name)
				return
			}
			var doc struct {
				OpenAPI string `json:"openapi"`
			}
			require.NoError(t, json.Unmarshal(out.Bytes(), &doc), tt.name)
			assert.Equal(t, tt.want, doc.OpenAPI, tt.name)
		})
	}
}
