package steps_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/conform-kit/conform/steps"
)

// TestRunLeavesItsWebhooksDisabled: a run disables every webhook it made,
// also on a target that updates webhooks on a route the run has not been
// told of (PUT answered 405, Allow: GET, PATCH). A webhook left enabled
// receives every later event of its application at a closed receiver, and
// run after run those deliveries piled up until the target answered past
// the client's timeout.
func TestRunLeavesItsWebhooksDisabled(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the webhook features twice")
	}
	for _, variant := range []string{"", "webhook-update-patch"} {
		name := variant
		if name == "" {
			name = "reference"
		}
		t.Run(name, func(t *testing.T) {
			var cfg steps.Config
			if variant == "" {
				cfg = startReference(t)
			} else {
				cfg = startVariant(t, variant)
			}
			before := enabledWebhooks(t, cfg)
			sum, err := steps.Run(context.Background(), cfg, steps.Options{Concurrency: 4, Tags: "@webhooks"})
			require.NoError(t, err)
			require.Positive(t, sum.Counts[steps.Pass]+sum.Counts[steps.Warn], sum.Line())
			assert.Zero(t, sum.Counts[steps.Fail]+sum.Counts[steps.Error], sum.Line())
			assert.Equal(t, before, enabledWebhooks(t, cfg), "enabled webhooks before and after the run")
		})
	}
}

// enabledWebhooks counts the enabled webhooks of the platform user's
// application, paging through the whole list.
func enabledWebhooks(t *testing.T, cfg steps.Config) int {
	t.Helper()
	enabled := 0
	for offset := 0; ; offset += 20 {
		req, err := http.NewRequest(http.MethodGet, fmt.Sprintf("%s/webhooks?limit=20&offset=%d", cfg.Target, offset), nil)
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
		if len(page.Embedded.Webhooks) < 20 {
			return enabled
		}
	}
}
