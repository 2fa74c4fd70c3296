package steps_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/conform-kit/conform/steps"
	"github.com/conform-kit/conform/steps/steptest"
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
			before := steptest.EnabledWebhooks(t, cfg)
			sum, err := steps.Run(context.Background(), cfg, steps.Options{Concurrency: 4, Tags: "@webhooks"})
			require.NoError(t, err)
			require.Positive(t, sum.Counts[steps.Pass]+sum.Counts[steps.Warn], sum.Line())
			assert.Zero(t, sum.Counts[steps.Fail]+sum.Counts[steps.Error], sum.Line())
			assert.Equal(t, before, steptest.EnabledWebhooks(t, cfg), "enabled webhooks before and after the run")
		})
	}
}
