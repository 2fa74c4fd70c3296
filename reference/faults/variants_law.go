package faults

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"github.com/conform-kit/conform/validate"
)

// Variants whose choice is to take request bodies the reference refuses for
// a rule the spec does not state (profile key request_rules: the assumed
// rules of judging.json's request schemas).

// lawVariants take what only the reference's own request rules refuse.
func lawVariants() []Variant {
	return []Variant{
		{
			Name: "unknown-fields-ignored", Tags: "@errors,@authorizations,@transfers,@payment_instruments,@webhooks",
			Choice:  "a member a request body's table does not list is ignored, not refused (no sentence of the spec refuses unknown fields)",
			Profile: `{"request_rules": "unchecked"}`,
			build:   parts(wrapOnly(ignoringUnknownFields)),
		},
	}
}

// ignoringUnknownFields drops from a JSON request body every member its
// request schema does not know (the additionalProperties violations the
// validator reports, at any depth) before the reference reads it, so the
// body is judged by its other rules alone, as by a server that ignores
// what it does not know.
func ignoringUnknownFields(next http.Handler, _ faultDeps) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if in := peekJSON(r); in != nil && dropUnknown(r, in) {
			replaceBody(r, in)
		}
		next.ServeHTTP(w, r)
	})
}

// dropUnknown deletes the members of in its operation's request schema
// does not know; it reports whether it deleted any.
func dropUnknown(r *http.Request, in map[string]any) bool {
	v, err := validate.Default()
	if err != nil {
		return false
	}
	op, _, err := v.Lookup(r.Method, r.URL.Path)
	if err != nil || !op.HasJSONBody() || op.Request == "" {
		return false
	}
	raw, err := json.Marshal(in)
	if err != nil {
		return false
	}
	var ve *validate.Error
	if !errors.As(v.Validate(op.Request, raw), &ve) {
		return false
	}
	dropped := false
	for _, vi := range ve.Violations {
		if vi.In != validate.InBody || vi.Rule != "additionalProperties" {
			continue
		}
		dropped = deleteAt(in, vi.Pointer) || dropped
	}
	return dropped
}

// deleteAt deletes the member a JSON pointer names in doc (objects and
// arrays on the way); it reports whether it did.
func deleteAt(doc any, pointer string) bool {
	segs := strings.Split(strings.TrimPrefix(pointer, "/"), "/")
	for i, seg := range segs {
		segs[i] = strings.ReplaceAll(strings.ReplaceAll(seg, "~1", "/"), "~0", "~")
	}
	node := doc
	for _, seg := range segs[:len(segs)-1] {
		switch n := node.(type) {
		case map[string]any:
			node = n[seg]
		case []any:
			i, ok := indexOf(seg, len(n))
			if !ok {
				return false
			}
			node = n[i]
		default:
			return false
		}
	}
	m, ok := node.(map[string]any)
	if !ok {
		return false
	}
	if _, ok := m[segs[len(segs)-1]]; !ok {
		return false
	}
	delete(m, segs[len(segs)-1])
	return true
}

// indexOf reads an array index below n.
func indexOf(seg string, n int) (int, bool) {
	i := 0
	for _, c := range seg {
		if c < '0' || c > '9' {
			return 0, false
		}
		i = i*10 + int(c-'0')
		if i >= n {
			return 0, false
		}
	}
	return i, seg != ""
}
