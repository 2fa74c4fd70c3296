package validate

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDepthIsBounded: a body nested deeper than MaxDepth is refused with
// one violation at the value that opens level MaxDepth+1, the same by
// Request, Validate, DecodeRequest, Decode and the middleware (422), and
// nothing after that value is read; a syntax error before it is still a
// malformed body.
func TestDepthIsBounded(t *testing.T) {
	v, err := New()
	require.NoError(t, err)
	const hook = `{"url":"https://example.com/hook",`
	arrays := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	objects := func(n int, key string) string {
		return strings.Repeat(`{"`+key+`":`, n) + "1" + strings.Repeat("}", n)
	}
	tests := []struct {
		name    string
		body    string
		pointer string // of the depth violation; "" when not refused for depth
		bad     bool   // a malformed body (400)
	}{
		{"100,000 nested arrays in tags", hook + `"tags":{"a":` + arrays(100000) + `}}`,
			"/tags/a" + strings.Repeat("/0", MaxDepth-2), false},
		{"never closed", hook + `"tags":{"a":` + strings.Repeat("[", 100000),
			"/tags/a" + strings.Repeat("/0", MaxDepth-2), false},
		{"after other elements", hook + `"tags":{"a":[1,"x",{},` + arrays(MaxDepth) + `]}}`,
			"/tags/a/3" + strings.Repeat("/0", MaxDepth-3), false},
		{"objects under an unknown member, escaped names", hook + `"x~/":` + objects(1000, "a/b") + `}`,
			"/x~0~1" + strings.Repeat("/a~1b", MaxDepth-1), false},
		{"the body itself", arrays(1000), "", true}, // not an object: refused at its first byte
		{"syntax error before", `{"url":"https://example.com/hook",,"tags":{"a":` + arrays(1000) + `}}`, "", true},
		{"at the bound", hook + `"tags":{"a":` + arrays(MaxDepth-2) + `}}`, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := []byte(tt.body)
			want := []Violation{{Pointer: tt.pointer, Rule: RuleDepth, Message: depthMessage}}
			_, decodeErr := v.DecodeRequest("webhooks.create", body)
			_, treeErr := v.Decode(body)
			doors := map[string]error{
				"Request":       v.Request("webhooks.create", body),
				"Validate":      v.Validate("webhook_create", body),
				"DecodeRequest": decodeErr,
			}
			switch {
			case tt.name == "the body itself":
				// Decode takes any document: the refusal is its depth.
				var e *Error
				require.ErrorAs(t, treeErr, &e)
				assert.Equal(t, strings.Repeat("/0", MaxDepth), e.Violations[0].Pointer)
			case tt.pointer != "" || tt.bad:
				doors["Decode"] = treeErr
			}
			for door, err := range doors {
				var e *Error
				switch {
				case tt.bad:
					assert.ErrorIs(t, err, ErrMalformed, door)
				case tt.pointer == "":
					require.ErrorAs(t, err, &e, door)
					for _, got := range e.Violations {
						assert.NotEqual(t, RuleDepth, got.Rule, door)
					}
				default:
					require.ErrorAs(t, err, &e, door)
					assert.Equal(t, CodeInvalidField, e.Code, door)
					assert.Equal(t, want, e.Violations, door)
				}
			}
			if tt.pointer == "" && !tt.bad {
				assert.NoError(t, treeErr, "Decode of a body at the bound")
			}

			var rendered error
			h := Middleware(v, WithErrorRenderer(func(w http.ResponseWriter, r *http.Request, err error) {
				rendered = err
				WriteError(w, r, err)
			}))(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) }))
			req := httptest.NewRequest(http.MethodPost, "/webhooks", strings.NewReader(tt.body))
			req.Header.Set("Content-Type", "application/json")
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			var e *Error
			require.ErrorAs(t, rendered, &e)
			switch {
			case tt.bad:
				assert.Equal(t, http.StatusBadRequest, rec.Code)
			case tt.pointer == "":
				assert.Equal(t, http.StatusUnprocessableEntity, rec.Code)
				assert.False(t, errors.Is(rendered, ErrMalformed))
			default:
				assert.Equal(t, http.StatusUnprocessableEntity, rec.Code)
				assert.Equal(t, want, e.Violations)
				assert.Contains(t, rec.Body.String(), depthMessage)
			}
		})
	}
}

// TestTooDeepCostsLittle: refusing a body nested far past MaxDepth reads
// no further than the bound and allocates little, where encoding/json's
// reading of 100,000 levels cost 389 KB a call.
func TestTooDeepCostsLittle(t *testing.T) {
	v, err := New()
	require.NoError(t, err)
	body := tooDeepBody()
	allocs := testing.AllocsPerRun(20, func() { _ = v.Request("webhooks.create", body) })
	t.Logf("%d bytes nested 100,000 deep: %.0f allocations per call", len(body), allocs)
	bound := 4.0
	if raceBuild {
		bound = 16 // the race detector's sync.Pool drops buffers at random
	}
	require.LessOrEqual(t, allocs, bound)
}
