package explore_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/conform-kit/conform/reference"
	"github.com/conform-kit/conform/reference/faults"
	"github.com/conform-kit/conform/steps"
	"github.com/conform-kit/conform/steps/explore"
	"github.com/conform-kit/conform/steps/explore/suite"
)

// configOf is the suite's config for a reference's seeded users and fixtures.
func configOf(url string, s reference.Seeded) steps.Config {
	cred := func(c reference.Credential) *steps.Credential {
		return &steps.Credential{Username: c.Username, Password: c.Password}
	}
	ids := s.Fixtures
	return steps.Config{
		Target: url,
		Credentials: steps.Credentials{Platform: cred(s.Credentials.Platform), Merchant: cred(s.Credentials.Merchant),
			OtherApplication: cred(s.Credentials.OtherApplication)},
		Fixtures: steps.Fixtures{BuyerIdentity: ids.BuyerIdentity, Merchant: ids.Merchant, MerchantIdentity: ids.MerchantIdentity,
			PlainMerchant: ids.PlainMerchant, PlainMerchantIdentity: ids.PlainMerchantIdentity, SubscriptionSchedule: ids.SubscriptionSchedule,
			SubscriptionAmount: ids.SubscriptionAmount, Dispute: ids.Dispute, BalanceTransfer: ids.BalanceTransfer},
		WebhookReceiver: steps.ReceiverConfig{Listen: "127.0.0.1:0"},
	}
}

// model is the bundled reference, fresh for every sequence.
func model() (http.Handler, explore.Target, func(), error) { return suite.Model(seededModel)() }

// seededModel is a fresh bundled reference and its seeded users and
// fixtures in the suite's config form.
func seededModel() (http.Handler, steps.Config, func(), error) {
	srv, err := reference.New(reference.Config{BaseURL: "http://model.explore.invalid", ReviewDelay: time.Hour, RetryScale: 0.0001, Seed: 1})
	if err != nil {
		return nil, steps.Config{}, nil, err
	}
	return srv, configOf("http://model.explore.invalid", srv.Seeded()), func() { _ = srv.Close() }, nil
}

// serveFaults serves the reference with the named faults (none: conformant).
func serveFaults(t testing.TB, names ...string) steps.Config {
	t.Helper()
	ref, h, err := faults.Serve(reference.Config{ReviewDelay: 20 * time.Millisecond, RetryScale: 0.0001}, names)
	require.NoError(t, err, "serve faults %v", names)
	srv := httptest.NewServer(h)
	t.Cleanup(func() {
		srv.Close()
		_ = ref.Close()
	})
	return configOf(srv.URL, ref.Seeded())
}

// explore runs an exploration of cfg with a request budget.
func exploreRun(t testing.TB, cfg steps.Config, seed uint64, budget int, strict bool) explore.Result {
	t.Helper()
	res, err := explore.Run(context.Background(), explore.Options{Target: suite.Target(cfg), Model: model, Seed: seed, Budget: budget, Strict: strict, ShrinkRuns: 150})
	require.NoError(t, err)
	return res
}
