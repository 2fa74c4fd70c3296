package faults

import (
	"bytes"
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"sync"
)

// Variants whose choice is about files: the display name that makes the
// review reject a file (the spec's sandbox leaves it open) and the name of
// the display name field.

// fileVariants review and show files otherwise.
func fileVariants() []Variant {
	return []Variant{
		{
			Name: "file-reject-deny", Tags: "@files", Choice: `the file review rejects a display name containing "deny", not "reject"`,
			Profile: `{"file_reject_trigger": "deny"}`,
			build:   denyTrigger,
		},
		{
			Name: "file-name-field", Tags: "@files", Choice: "files show their display name as \"name\"",
			Profile: `{"file_payloads": "unchecked"}`,
			build:   parts(wrapOnly(fileNameField)),
		},
	}
}

// rejectWord is the reference's file reject trigger, matched case-insensitively.
var rejectWord = regexp.MustCompile(`(?i)reject`)

// denyTrigger makes "deny" the file reject trigger instead of "reject": a
// file create's display name is renamed on the way in (a name with "deny"
// gains "reject", one with "reject" loses it) and back in every response
// and delivery, deliveries signed again.
func denyTrigger() variantParts {
	var mu sync.Mutex
	names := map[string]string{} // JSON of the name the reference holds → JSON of the client's
	rs := &resigner{}
	restore := func(b []byte) []byte {
		mu.Lock()
		defer mu.Unlock()
		for held, orig := range names {
			b = bytes.ReplaceAll(b, []byte(held), []byte(orig))
		}
		return b
	}
	return variantParts{
		wrap: func(next http.Handler, _ faultDeps) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if matchAny(r, "files.create") {
					in := peekJSON(r)
					if name, ok := in["display_name"].(string); ok {
						held := rejectWord.ReplaceAllString(name, "rej-ect")
						if strings.Contains(strings.ToLower(name), "deny") {
							held = "reject " + held
						}
						if held != name {
							hq, _ := json.Marshal(held)
							oq, _ := json.Marshal(name)
							mu.Lock()
							names[string(hq)] = string(oq)
							mu.Unlock()
							in["display_name"] = held
							replaceBody(r, in)
						}
					}
				}
				onJSON(next, func(_ *http.Request, _ *faultRecorder, body []byte) []byte {
					rs.note(body)
					return restore(body)
				}).ServeHTTP(w, r)
			})
		},
		transport: func(base http.RoundTripper) http.RoundTripper {
			return rewriteDelivery(base, func(req *http.Request, body []byte) ([]byte, error) {
				out := restore(body)
				if !bytes.Equal(out, body) {
					rs.resign(req, body, out)
				}
				return out, nil
			})
		},
	}
}

// fileNameField renames a file's display_name to name, in a response and
// in each of its list items.
func fileNameField(next http.Handler, _ faultDeps) http.Handler {
	return rewriteResponse(func(x *faultExchange) bool {
		changed := false
		visit := func(m map[string]any) {
			id, _ := m["id"].(string)
			if name, ok := m["display_name"]; ok && strings.HasPrefix(id, "FILE_") {
				delete(m, "display_name")
				m["name"], changed = name, true
			}
		}
		eachResource(x.out, visit)
		return changed
	})(next, faultDeps{})
}
