package main

import (
	"github.com/conform-kit/conform/reference"
	"github.com/conform-kit/conform/steps"
)

// suiteConfig is the suite's config for a reference serving at target: the
// users and resource ids it seeded, and the receiver's default listen address.
// It is the one place where what the reference seeded becomes what the suite
// reads, for "conform run" against the bundled reference and for the file
// "conform serve --fixtures" writes.
func suiteConfig(target string, seeded reference.Seeded) steps.Config {
	cred := func(c reference.Credential) *steps.Credential {
		return &steps.Credential{Username: c.Username, Password: c.Password}
	}
	ids := seeded.Fixtures
	return steps.Config{
		Target: target,
		Credentials: steps.Credentials{
			Platform:         cred(seeded.Credentials.Platform),
			Merchant:         cred(seeded.Credentials.Merchant),
			OtherApplication: cred(seeded.Credentials.OtherApplication),
		},
		Fixtures: steps.Fixtures{
			BuyerIdentity:         ids.BuyerIdentity,
			Merchant:              ids.Merchant,
			MerchantIdentity:      ids.MerchantIdentity,
			PlainMerchant:         ids.PlainMerchant,
			PlainMerchantIdentity: ids.PlainMerchantIdentity,
			SubscriptionSchedule:  ids.SubscriptionSchedule,
			SubscriptionAmount:    ids.SubscriptionAmount,
			Dispute:               ids.Dispute,
			BalanceTransfer:       ids.BalanceTransfer,
		},
		WebhookReceiver: steps.ReceiverConfig{Listen: "127.0.0.1:0"},
	}
}
