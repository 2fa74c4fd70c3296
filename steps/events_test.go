package steps_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/conform-kit/conform/reference"
	"github.com/conform-kit/conform/reference/faults"
	"github.com/conform-kit/conform/steps"
)

// TestEventFieldsJudgeTheType: a target whose events carry their type and
// resource elsewhere (event-layout-and-signature: {"event":
// "transfer.created", "data": resource}) declares where (event_layout
// fields, event_fields) and its events are judged there: every webhook
// scenario passes, and the same target delivering the other type
// (event-type-swapped) warns under event_layout in each scenario that waits
// for a sale's or an authorization's created event, where with
// event_layout unchecked nothing would.
func TestEventFieldsJudgeTheType(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the webhook features twice")
	}
	v, ok := faults.VariantByName("event-layout-and-signature")
	require.True(t, ok)
	eventScenarios := []string{
		"a webhook receives a signed created event when a sale is made",
		"a webhook enabled only for authorization events receives them",
		"a webhook with basic authentication receives events with that Authorization header and never shows its password",
	}
	tests := []struct {
		name   string
		faults []string
		want   steps.Outcome
	}{
		{"the variant, declared", nil, steps.Pass},
		{"the variant delivering the other type", []string{"event-type-swapped"}, steps.Warn},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			client, err := faults.Client(nil, tt.faults)
			require.NoError(t, err)
			ref, h, seeded, err := faults.ServeVariants(reference.Config{ReviewDelay: 20 * time.Millisecond, RetryScale: 0.0001, WebhookClient: client}, v.Name)
			require.NoError(t, err)
			srv := httptest.NewServer(h)
			t.Cleanup(func() {
				srv.Close()
				_ = ref.Close()
			})
			cfg := referenceConfig(srv.URL, seeded)
			cfg.WaitTimeout = 10 * time.Second
			cfg.Profile = json.RawMessage(v.Profile)
			sum, err := steps.Run(context.Background(), cfg, steps.Options{Tags: "@webhooks", Concurrency: 4})
			require.NoError(t, err)
			assert.Zero(t, sum.Counts[steps.Fail]+sum.Counts[steps.Error]+sum.Counts[steps.Skip], "%s: %s", sum.Line(), faultReport(sum))
			outcomes := map[string]steps.ScenarioResult{}
			for _, r := range sum.Results {
				outcomes[r.Name] = r
			}
			for _, name := range eventScenarios {
				r, ok := outcomes[name]
				require.True(t, ok, "scenario %q did not run", name)
				assert.Equal(t, tt.want, r.Outcome, "%s: %s", name, faultReport(sum))
				for _, c := range r.Judged() {
					if !c.Basis.Normative() && c.Err != nil {
						assert.Equal(t, "event_layout", c.Basis.Assumed, "%s: %+v", name, c)
					}
				}
			}
		})
	}
}
