package explore_test

import (
	"context"
	"encoding/json"
	"maps"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/conform-kit/conform/reference"
	"github.com/conform-kit/conform/reference/faults"
	"github.com/conform-kit/conform/steps/explore"
	"github.com/conform-kit/conform/steps/report"
)

// TestVariantsNeverFailExplored: every conformant variant, explored not
// strict, gives 0 FAIL; with its profile declared, 0 WARN too.
func TestVariantsNeverFailExplored(t *testing.T) {
	variants := faults.Variants()
	if raceDetector {
		// Three variants under the race detector; make test runs all of them again without it.
		variants = variants[:3]
	}
	for _, v := range variants {
		t.Run(v.Name, func(t *testing.T) {
			t.Parallel()
			ref, h, seeded, err := faults.ServeVariants(reference.Config{ReviewDelay: 20 * time.Millisecond, RetryScale: 0.0001}, v.Name)
			require.NoError(t, err)
			srv := httptest.NewServer(h)
			t.Cleanup(func() {
				srv.Close()
				_ = ref.Close()
			})
			cfg := configOf(srv.URL, seeded)
			for _, declared := range []bool{false, true} {
				c := cfg
				if declared {
					c.Profile = []byte(v.Profile)
				}
				res, err := explore.Run(context.Background(), explore.Options{Target: c, Model: model, Seed: 5, Budget: 250, ShrinkRuns: 40})
				require.NoError(t, err)
				for _, f := range res.Findings {
					if f.Outcome == report.Fail || declared {
						t.Errorf("variant %s (%s), profile declared %t: %s %s [%s] %s\n%s", v.Name, v.Choice, declared, f.Outcome, f.Check, f.Clause(), f.Message, f.Gherkin)
					}
				}
				assert.Zero(t, res.Count(report.Fail), "variant %s FAIL", v.Name)
			}
		})
	}
}

// combinedVariants is steps' combination of conformant variants (a server
// differing from the reference in many assumed choices at once), in the
// order whose wrappers compose.
var combinedVariants = []string{
	"multi-capture", "capture-fee-authorization-bound", "cards-any-length", "no-reference-rules",
	"idempotency-replay-409", "expiry-24h", "merchant-role-no-charges", "no-sandbox-triggers",
	"create-200", "capture-202", "validation-400",
	"vnd-api-json-only", "authorization-merchant-field", "amount-update-top-level", "webhook-update-patch", "no-extensions",
	"plain-json", "event-layout-and-signature", "api-key-redacted", "signing-key-whsec", "list-max-50-clamped",
	"timestamps-ms", "ids-base58-21",
}

// TestCombinedVariantsNeverFailExplored: the variants served together,
// explored not strict, give 0 FAIL; with their profiles declared together, 0 WARN.
func TestCombinedVariantsNeverFailExplored(t *testing.T) {
	ref, h, seeded, err := faults.ServeVariants(reference.Config{ReviewDelay: 20 * time.Millisecond, RetryScale: 0.0001}, combinedVariants...)
	require.NoError(t, err)
	srv := httptest.NewServer(h)
	t.Cleanup(func() {
		srv.Close()
		_ = ref.Close()
	})
	profile := map[string]json.RawMessage{}
	for _, name := range combinedVariants {
		v, ok := faults.VariantByName(name)
		require.True(t, ok, "variant %s", name)
		var declares map[string]json.RawMessage
		require.NoError(t, json.Unmarshal([]byte(v.Profile), &declares), "profile of %s", name)
		maps.Copy(profile, declares)
	}
	data, err := json.Marshal(profile)
	require.NoError(t, err)
	budget := 2000
	if raceDetector {
		budget = 400
	}
	for _, declared := range []bool{false, true} {
		cfg := configOf(srv.URL, seeded)
		if declared {
			cfg.Profile = data
		}
		res, err := explore.Run(context.Background(), explore.Options{Target: cfg, Model: model, Seed: 8, Budget: budget, ShrinkRuns: 40})
		require.NoError(t, err)
		for _, f := range res.Findings {
			if f.Outcome == report.Fail || declared {
				t.Errorf("combined variants, profile declared %t: %s %s [%s] %s\n%s", declared, f.Outcome, f.Check, f.Clause(), f.Message, f.Gherkin)
			}
		}
	}
}
