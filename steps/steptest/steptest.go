// Package steptest holds what the tests of the suite (steps) and of
// conform explore (steps/explore) both ask of a target: reads made
// outside any run, to check what a run left behind.
package steptest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/conform-kit/conform/steps"
)

// pageSize is the page the webhook list is read with.
const pageSize = 20

// EnabledWebhooks counts the enabled webhooks of the platform user's
// application on cfg's target, paging through the whole list.
func EnabledWebhooks(t testing.TB, cfg steps.Config) int {
	t.Helper()
	enabled := 0
	for offset := 0; ; offset += pageSize {
		req, err := http.NewRequest(http.MethodGet, fmt.Sprintf("%s/webhooks?limit=%d&offset=%d", cfg.Target, pageSize, offset), nil)
		require.NoError(t, err)
		req.SetBasicAuth(cfg.Credentials.Platform.Username, cfg.Credentials.Platform.Password)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		var page struct {
			Embedded struct {
				Webhooks []struct {
					Enabled bool `json:"enabled"`
				} `json:"webhooks"`
			} `json:"_embedded"`
		}
		err = json.NewDecoder(resp.Body).Decode(&page)
		_ = resp.Body.Close()
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, resp.StatusCode)
		for _, w := range page.Embedded.Webhooks {
			if w.Enabled {
				enabled++
			}
		}
		if len(page.Embedded.Webhooks) < pageSize {
			return enabled
		}
	}
}
