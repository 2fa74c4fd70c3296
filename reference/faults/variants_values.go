package faults

import (
	"bytes"
	"net/http"
	"regexp"
	"strings"
	"time"

	"github.com/conform-kit/conform/reference"
)

// Variants whose choice is a value a resource shows where the spec gives no
// rule: the precision of timestamps, updated_at on create, an
// authorization's expiry and the placeholder of a processor's api_key.

// valueVariants show other timestamps, expiries and placeholders.
func valueVariants() []Variant {
	return []Variant{
		{
			Name: "timestamps-ms", Tags: "@transfers", Choice: "timestamps with millisecond precision",
			Profile: `{"timestamp_precision": 3}`,
			build: func() variantParts {
				return variantParts{
					wrap: wrapOnly(millisecondTimestamps)(),
					config: func(cfg *reference.Config) {
						now := cfg.Now
						if now == nil {
							now = time.Now
						}
						cfg.Now = func() time.Time { return now().Truncate(time.Millisecond) }
					},
				}
			},
		},
		{
			Name: "api-key-redacted", Tags: "@merchants", Choice: `returns processor_details.api_key as "<REDACTED>"`,
			Profile: `{"api_key_literal": "<REDACTED>"}`,
			build:   parts(wrapOnly(redactAPIKey)),
		},
		{
			Name: "expiry-24h", Tags: "@authorizations", Choice: "authorizations expire 24 hours after creation",
			Profile: `{"authorization_expiry_hours": 24}`,
			build:   parts(wrapOnly(expiry24h)),
		},
		{
			Name: "updated-after-created", Tags: "@transfers", Choice: "a resource's updated_at is a millisecond after its created_at on create",
			Profile: `{"resource_values": "unchecked"}`,
			build:   parts(wrapOnly(updatedAfterCreated)),
		},
	}
}

// msTimestamp matches a timestamp whose microseconds are whole milliseconds.
var msTimestamp = regexp.MustCompile(`(T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3})000Z`)

// millisecondTimestamps writes the timestamps of every JSON response with
// three fractional digits; the variant truncates the clock to whole
// milliseconds, so the three zeros it drops carry nothing.
func millisecondTimestamps(next http.Handler, _ faultDeps) http.Handler {
	return onJSON(next, func(_ *http.Request, _ *faultRecorder, body []byte) []byte {
		return msTimestamp.ReplaceAll(body, []byte("${1}Z"))
	})
}

// updatedAfterCreated moves an updated_at equal to its created_at a
// millisecond later, in a response and in each of its list items.
func updatedAfterCreated(next http.Handler, _ faultDeps) http.Handler {
	return rewriteResponse(func(x *faultExchange) bool {
		changed := false
		visit := func(m map[string]any) {
			created, _ := m["created_at"].(string)
			if updated, _ := m["updated_at"].(string); created == "" || updated != created {
				return
			}
			if t, err := time.Parse(time.RFC3339Nano, created); err == nil {
				m["updated_at"] = t.Add(time.Millisecond).UTC().Format("2006-01-02T15:04:05.000000Z")
				changed = true
			}
		}
		eachResource(x.out, visit)
		return changed
	})(next, faultDeps{})
}

// expiry24h moves an authorization's expires_at to 24 hours after its
// created_at, in a response and in each of its list items.
func expiry24h(next http.Handler, _ faultDeps) http.Handler {
	return rewriteResponse(func(x *faultExchange) bool {
		changed := false
		visit := func(m map[string]any) {
			created, _ := m["created_at"].(string)
			if _, ok := m["expires_at"].(string); !ok || created == "" {
				return
			}
			if t, err := time.Parse(time.RFC3339Nano, created); err == nil {
				m["expires_at"] = t.Add(24 * time.Hour).UTC().Format("2006-01-02T15:04:05.000000Z")
				changed = true
			}
		}
		if id, _ := x.out["id"].(string); strings.HasPrefix(id, "AU") {
			visit(x.out)
		}
		for _, it := range listItems(x.out) {
			if m, ok := it.(map[string]any); ok {
				visit(m)
			}
		}
		return changed
	}, "authorizations.create", "authorizations.capture", "authorizations.get")(next, faultDeps{})
}

// redactAPIKey shows the reference's "<API_KEY>" placeholder as "<REDACTED>".
func redactAPIKey(next http.Handler, _ faultDeps) http.Handler {
	return onJSON(next, func(_ *http.Request, _ *faultRecorder, body []byte) []byte {
		body = bytes.ReplaceAll(body, []byte(`"<API_KEY>"`), []byte(`"<REDACTED>"`))
		return bytes.ReplaceAll(body, []byte(`"\u003cAPI_KEY\u003e"`), []byte(`"<REDACTED>"`))
	})
}
