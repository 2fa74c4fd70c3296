// Package suite connects the explorer to the conformance suite: the
// explorer's target from the suite's config, and the observation of a
// target's choices by a run of the suite. The explorer imports neither the
// suite nor its HTTP and Gherkin libraries; the CLI wires them here.
package suite

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/conform-kit/conform/steps"
	"github.com/conform-kit/conform/steps/explore"
)

// Target is the explorer's target of a suite config: its URL, users,
// fixtures, profile and webhook receiver.
func Target(cfg steps.Config) explore.Target {
	user := func(c *steps.Credential) *explore.User {
		if c == nil {
			return nil
		}
		return &explore.User{Username: c.Username, Password: c.Password}
	}
	return explore.Target{
		URL: cfg.Target,
		Users: explore.Users{Platform: user(cfg.Credentials.Platform), Merchant: user(cfg.Credentials.Merchant),
			OtherApplication: user(cfg.Credentials.OtherApplication)},
		Fixtures: cfg.Fixtures.Placeholders(),
		Profile:  cfg.Profile,
		Receiver: explore.Receiver{Listen: cfg.WebhookReceiver.Listen, PublicURL: cfg.WebhookReceiver.PublicURL},
	}
}

// Observer runs the suite against cfg's target and returns the profile
// conform run --write-profile would write for it.
func Observer(cfg steps.Config) explore.Observer {
	return func(ctx context.Context, workers int) (json.RawMessage, error) {
		sum, err := steps.Run(ctx, cfg, steps.Options{Concurrency: workers})
		if err != nil {
			return nil, fmt.Errorf("suite: run: %w", err)
		}
		var w bytes.Buffer
		if err := steps.WriteProfile(&w, sum); err != nil {
			return nil, fmt.Errorf("suite: write profile: %w", err)
		}
		return w.Bytes(), nil
	}
}

// Model is the explorer's model of a server seeded in the suite's config
// form: a fresh one for every sequence.
func Model(m func() (http.Handler, steps.Config, func(), error)) explore.Model {
	return func() (http.Handler, explore.Target, func(), error) {
		h, cfg, release, err := m()
		if err != nil {
			return nil, explore.Target{}, nil, err
		}
		return h, Target(cfg), release, nil
	}
}
