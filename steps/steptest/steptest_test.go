package steptest_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/conform-kit/conform/steps"
	"github.com/conform-kit/conform/steps/steptest"
)

// TestEnabledWebhooks: the enabled webhooks are counted over every page,
// as the platform user.
func TestEnabledWebhooks(t *testing.T) {
	for _, tc := range []struct {
		name           string
		total, enabled int
	}{
		{"none", 0, 0},
		{"one page", 7, 3},
		{"a full first page", 20, 20},
		{"three pages", 45, 15},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if user, pass, _ := r.BasicAuth(); user != "platform" || pass != "secret" {
					w.WriteHeader(http.StatusUnauthorized)
					return
				}
				limit, _ := strconv.Atoi(r.URL.Query().Get("limit"))
				offset, _ := strconv.Atoi(r.URL.Query().Get("offset"))
				hooks := []map[string]any{}
				for i := offset; i < min(offset+limit, tc.total); i++ {
					hooks = append(hooks, map[string]any{"enabled": i%3 == 0 || tc.enabled == tc.total})
				}
				_ = json.NewEncoder(w).Encode(map[string]any{"_embedded": map[string]any{"webhooks": hooks}})
			}))
			defer srv.Close()
			cfg := steps.Config{Target: srv.URL, Credentials: steps.Credentials{Platform: &steps.Credential{Username: "platform", Password: "secret"}}}
			assert.Equal(t, tc.enabled, steptest.EnabledWebhooks(t, cfg))
		})
	}
}
