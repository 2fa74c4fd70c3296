package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// writeFile writes content to a file of the test's directory.
func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(path, []byte(content), 0o600))
	return path
}

func TestProfileShow(t *testing.T) {
	code, out, errOut := run(t, "", "profile", "show")
	require.Equal(t, exitOK, code, errOut)
	golden(t, "profile_show.golden", out)
	for _, key := range []string{"refusals", "error_field_form", "accept_unserved", "list_max_limit", "observed_once"} {
		assert.Contains(t, out, "\n"+key+"\n  default: ", "show lists %s with its default", key)
	}
	code, out, _ = run(t, "", "profile", "show", "accept_unserved")
	require.Equal(t, exitOK, code)
	assert.Contains(t, out, `example: {"accept_unserved": "ignore"}`)
	assert.Contains(t, out, "values:  refuse, ignore")
	code, _, errOut = run(t, "", "profile", "show", "acept_unserved")
	assert.Equal(t, exitUsage, code, "an unknown key is a usage error")
	assert.Contains(t, errOut, `did you mean "accept_unserved"?`)
}

func TestProfileCheck(t *testing.T) {
	tests := []struct {
		name, profile string
		wantCode      int
		want          []string
	}{
		{"valid", `{"refusals": {"not_acceptable": {"status": [406, 415]}}, "error_field_form": "dotted", "accept_unserved": "ignore"}`, exitOK, []string{"a valid profile"}},
		{"a misspelt key", `{"create_statu": 200}`, exitFailed, []string{`unknown key "create_statu"; did you mean "create_status"?`}},
		{"a misspelt value", `{"list_over_max": "clampd"}`, exitFailed, []string{`list_over_max: "clampd" is not one of refuse, clamp; did you mean "clamp"?`}},
		{"a misspelt kind", `{"refusals": {"not_foud": {"status": 401}}}`, exitFailed, []string{`refusals: unknown kind "not_foud"; did you mean "not_found"?`}},
		{"a value out of range", `{"timestamp_precision": 12}`, exitFailed, []string{"timestamp_precision: 12 is not 0 (any) to 9 digits"}},
		{"every problem at once", `{"create_statu": 200, "error_field_form": "dots"}`, exitFailed, []string{`did you mean "create_status"?`, `did you mean "dotted"?`}},
		{"a key the kit does not judge", `{"webhook_retry_minutes": [1, 5]}`, exitFailed, []string{"webhook_retry_minutes is not a profile key"}},
		{"not an object", `[1]`, exitFailed, []string{"not a JSON object of profile keys"}},
	}
	for _, tc := range tests {
		path := writeFile(t, "p.json", tc.profile)
		code, out, errOut := run(t, "", "profile", "check", path)
		assert.Equal(t, tc.wantCode, code, "%s: %s%s", tc.name, out, errOut)
		for _, w := range tc.want {
			assert.Contains(t, out, w, tc.name)
		}
	}
	code, _, _ := run(t, "", "profile", "check", filepath.Join(t.TempDir(), "missing.json"))
	assert.Equal(t, exitUsage, code, "a missing file is a usage error")
}

func TestProfileDiff(t *testing.T) {
	a := writeFile(t, "a.json", `{"create_status": 200, "refusals": {"not_found": {"status": 404}}}`)
	b := writeFile(t, "b.json", `{"create_status": 201, "refusals": {"unprocessable": {"status": 409}}, "accept_unserved": "ignore"}`)
	code, out, errOut := run(t, "", "profile", "diff", a, b)
	require.Equal(t, exitFailed, code, "profiles that differ: %s", errOut)
	assert.Equal(t, "create_status: 200 → 201\n"+
		`refusals.unprocessable: {"codes":["UNPROCESSABLE_ENTITY"],"status":422} → {"codes":["UNPROCESSABLE_ENTITY"],"status":409}`+"\n"+
		`accept_unserved: "refuse" → "ignore"`+"\n", out, "one line per key, a map-valued key by entry, in table order")
	code, out, _ = run(t, "", "profile", "diff", a, a)
	assert.Equal(t, exitOK, code)
	assert.Contains(t, out, "declare the same choices")
	bad := writeFile(t, "bad.json", `{"create_statu": 200}`)
	code, _, errOut = run(t, "", "profile", "diff", a, bad)
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errOut, "conform profile check")
}
