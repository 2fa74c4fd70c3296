package steps

import "context"

// balanceTransferSteps is the vocabulary of balance_transfers.feature.
func balanceTransferSteps() []stepDef {
	return []stepDef{
		step(`I fetch the balance transfer`, func(s *scenario) any { return s.fetchBalanceTransfer }),
		step(`I fetch a balance transfer that does not exist`, func(s *scenario) any { return s.fetchMissingBalanceTransfer }),
		step(`I create a balance transfer of (\d+) cents`, func(s *scenario) any { return s.createBalanceTransfer }),
		step(`I list the balance transfers`, func(s *scenario) any { return s.listBalanceTransfers }),
	}
}

func (s *scenario) fetchBalanceTransfer(ctx context.Context) error {
	return s.fetch(ctx, "balance transfer", "/balance_transfers")
}

func (s *scenario) fetchMissingBalanceTransfer(ctx context.Context) error {
	_, err := s.send(ctx, "GET", "/balance_transfers/"+placeholderID("balance transfer"), nil, s.user)
	return err
}

func (s *scenario) createBalanceTransfer(ctx context.Context, amount int64) error {
	body := map[string]any{
		"amount": amount, "currency": "USD", "description": "conform balance transfer",
		"source": "OPERATING_ACCOUNT", "destination": "FOR_BENEFIT_OF_ACCOUNT", "tags": s.runTags(),
	}
	_, err := s.create(ctx, "balance transfer", "POST", "/balance_transfers", body)
	return err
}

func (s *scenario) listBalanceTransfers(ctx context.Context) error {
	_, err := s.send(ctx, "GET", "/balance_transfers", nil, s.user)
	return err
}
