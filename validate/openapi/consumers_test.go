package openapi

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The consumers the exports are fed to: tools that are not the project's
// dependencies, pinned. The npm ones are installed by make openapi-tools
// (testdata/consumers/package.json and its lockfile) into CONFORM_NPM_TOOLS
// (default <user cache>/conform/npm-tools); the generator runs with go run
// into a module of its own (testdata/consumers/client), so neither enters
// the project's go.mod.
const oapiCodegen = "github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen@v2.8.2"

// TestConsumersLoadTheExports feeds both exports to @redocly/cli lint
// (0 errors under its recommended rules), to @apidevtools/swagger-parser
// validate, and to oapi-codegen, whose generated client must compile with
// testdata/consumers/client/use.go beside it. Each consumer must also
// refuse one broken export, so that a consumer that accepts anything does
// not pass for one that checks. Outside CI a missing npm tool skips its
// part; under CI=true it fails.
func TestConsumersLoadTheExports(t *testing.T) {
	dir := t.TempDir()
	docs := map[string]string{}
	write := func(name string, doc []byte) {
		path := filepath.Join(dir, name+".json")
		require.NoError(t, os.WriteFile(path, doc, 0o644))
		docs[name] = path
	}
	write("3.1", export(t, OAS31))
	write("3.0", export(t, OAS30))
	write("3.1 with $ref siblings", broken(t, export(t, OAS31), func(schemas map[string]any) {
		list := schemas["transfer_list"].(map[string]any)
		list["$ref"] = list["allOf"].([]any)[0].(map[string]any)["$ref"]
		delete(list, "allOf")
	}))
	write("3.0 with an untyped nullable", broken(t, export(t, OAS30), func(schemas map[string]any) {
		schemas["common.nullable_id_transfer"] = map[string]any{"nullable": true,
			"allOf": []any{map[string]any{"$ref": "#/components/schemas/common.id_transfer"}}}
	}))
	write("3.0 with a 3.1 type list", broken(t, export(t, OAS30), func(schemas map[string]any) {
		schemas["common.nullable_string"] = map[string]any{"type": []any{"string", "null"}}
	}))

	tools := os.Getenv("CONFORM_NPM_TOOLS")
	if tools == "" {
		cache, err := os.UserCacheDir()
		require.NoError(t, err, "user cache dir")
		tools = filepath.Join(cache, "conform", "npm-tools")
	}
	consumers, err := filepath.Abs("testdata/consumers")
	require.NoError(t, err)

	tests := []struct {
		consumer string
		doc      string
		wantOK   bool
	}{
		{"redocly lint", "3.1", true},
		{"redocly lint", "3.0", true},
		{"redocly lint", "3.0 with an untyped nullable", false},
		{"swagger-parser validate", "3.1", true},
		{"swagger-parser validate", "3.0", true},
		{"swagger-parser validate", "3.0 with a 3.1 type list", false},
		{"oapi-codegen", "3.1", true},
		{"oapi-codegen", "3.0", true},
		{"oapi-codegen", "3.1 with $ref siblings", false},
	}
	for _, tt := range tests {
		t.Run(tt.consumer+"/"+tt.doc, func(t *testing.T) {
			var out []byte
			var err error
			switch tt.consumer {
			case "redocly lint":
				redocly := filepath.Join(tools, "node_modules", ".bin", "redocly")
				need(t, redocly)
				out, err = run(t, dir, []string{"REDOCLY_TELEMETRY=off", "REDOCLY_SUPPRESS_UPDATE_NOTICE=true"},
					redocly, "lint", "--config", filepath.Join(consumers, "redocly.yaml"), docs[tt.doc])
			case "swagger-parser validate":
				node, lookErr := exec.LookPath("node")
				if lookErr != nil {
					node = "node"
				}
				need(t, node)
				need(t, filepath.Join(tools, "node_modules", "@apidevtools", "swagger-parser"))
				out, err = run(t, dir, []string{"NODE_PATH=" + filepath.Join(tools, "node_modules")},
					node, filepath.Join(consumers, "validate.js"), docs[tt.doc])
			case "oapi-codegen":
				out, err = generateClient(t, filepath.Join(consumers, "client"), docs[tt.doc])
			}
			if tt.wantOK {
				require.NoError(t, err, "%s refuses the %s export:\n%s", tt.consumer, tt.doc, out)
			} else {
				require.Error(t, err, "%s accepts the %s export:\n%s", tt.consumer, tt.doc, out)
				t.Logf("%s refuses the %s export, as it must:\n%s", tt.consumer, tt.doc, tail(out, 600))
			}
		})
	}
}

func tail(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}

// need skips the test (fails it under CI=true) when a tool is missing.
func need(t *testing.T, path string) {
	t.Helper()
	if _, err := os.Stat(path); err == nil {
		return
	}
	msg := fmt.Sprintf("%s is missing: make openapi-tools installs the OpenAPI consumers (CONFORM_NPM_TOOLS names where)", path)
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
}

// broken is doc with its components changed by edit.
func broken(t *testing.T, doc []byte, edit func(schemas map[string]any)) []byte {
	t.Helper()
	var d map[string]any
	require.NoError(t, json.Unmarshal(doc, &d))
	edit(d["components"].(map[string]any)["schemas"].(map[string]any))
	out, err := json.MarshalIndent(d, "", "  ")
	require.NoError(t, err)
	return out
}

// generateClient copies the client module into a temporary folder,
// generates the client of doc into it with oapi-codegen and builds it.
func generateClient(t *testing.T, module, doc string) ([]byte, error) {
	t.Helper()
	dir := t.TempDir()
	for _, f := range []string{"go.mod", "go.sum", "codegen.yaml", "use.go"} {
		b, err := os.ReadFile(filepath.Join(module, f))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), b, 0o644))
	}
	if out, err := run(t, dir, []string{"GOWORK=off"}, "go", "run", oapiCodegen, "-config", "codegen.yaml", doc); err != nil {
		return out, err
	}
	return run(t, dir, []string{"GOWORK=off"}, "go", "build", "./...")
}

func run(t *testing.T, dir string, env []string, name string, args ...string) ([]byte, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return out, fmt.Errorf("%s %v: %w", name, args, err)
	}
	return out, nil
}
