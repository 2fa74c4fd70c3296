package steps

import (
	"context"
	"net/url"
)

// disputeSteps is the vocabulary of disputes.feature: disputes, evidence and adjustments.
func disputeSteps() []stepDef {
	return []stepDef{
		step(`the dispute opened on the sale appears in the dispute list`, func(s *scenario) any { return s.waitDispute }),
		step(`I fetch the dispute`, func(s *scenario) any { return s.fetchDispute }),
		step(`the dispute reaches the state "([^"]*)"`, func(s *scenario) any { return s.disputeReaches }),
		step(`I fetch a dispute that does not exist`, func(s *scenario) any { return s.fetchMissingDispute }),
		step(`I list the disputes`, func(s *scenario) any { return s.listDisputes }),
		step(`I list the disputes with "([^"]*)"`, func(s *scenario) any { return s.listDisputesQuery }),
		step(`I upload "([^"]*)" as evidence for the dispute`, func(s *scenario) any { return s.uploadEvidence }),
		step(`I upload "([^"]*)" as evidence for a dispute that does not exist`, func(s *scenario) any { return s.uploadEvidenceMissing }),
		step(`I list the evidence of the dispute`, func(s *scenario) any { return s.listEvidence }),
		step(`I list the evidence of the dispute with "([^"]*)"`, func(s *scenario) any { return s.listEvidenceQuery }),
		step(`I list the evidence of a dispute that does not exist`, func(s *scenario) any { return s.listEvidenceMissing }),
		step(`I fetch the evidence`, func(s *scenario) any { return s.fetchEvidence }),
		step(`I fetch evidence that does not exist`, func(s *scenario) any { return s.fetchMissingEvidence }),
		step(`I list the adjustment transfers of the dispute`, func(s *scenario) any { return s.listAdjustments }),
		step(`I list the adjustment transfers of a dispute that does not exist`, func(s *scenario) any { return s.listAdjustmentsMissing }),
	}
}

// waitDispute polls GET /disputes until a dispute names the sale as its transfer.
func (s *scenario) waitDispute(ctx context.Context) error {
	sale, err := s.id("sale")
	if err != nil {
		return err
	}
	return s.poll(ctx, "a dispute on sale "+sale, func() error {
		ex, err := s.send(ctx, "GET", withQuery("/disputes", url.Values{"limit": {"100"}}), nil, s.user)
		if err != nil {
			return err
		}
		if err := s.checkSuccess(ex); err != nil {
			return err
		}
		items, _ := lookup(ex.doc, "_embedded.disputes")
		list, _ := items.([]any)
		for _, it := range list {
			if tr, _ := lookupString(it, "transfer"); tr == sale {
				id, _ := lookupString(it, "id")
				s.ids["dispute"], s.docs["dispute"] = id, it
				return nil
			}
		}
		return errNotYet
	})
}

func (s *scenario) fetchDispute(ctx context.Context) error {
	return s.fetch(ctx, "dispute", "/disputes")
}

func (s *scenario) fetchMissingDispute(ctx context.Context) error {
	_, err := s.send(ctx, "GET", "/disputes/"+placeholderID("dispute"), nil, s.user)
	return err
}

func (s *scenario) listDisputes(ctx context.Context) error {
	_, err := s.send(ctx, "GET", "/disputes", nil, s.user)
	return err
}

// listDisputesQuery lists the disputes with a raw query ("limit=1").
func (s *scenario) listDisputesQuery(ctx context.Context, query string) error {
	_, err := s.send(ctx, "GET", withRawQuery("/disputes", query), nil, s.user)
	return err
}

func (s *scenario) postEvidence(ctx context.Context, dispute, name string) error {
	s.sent["file name"] = name
	_, err := s.create(ctx, "evidence", "POST", "/disputes/"+dispute+"/evidence", &filePart{name: name, data: []byte("%PDF-1.4 conform evidence\n")})
	return err
}

func (s *scenario) uploadEvidence(ctx context.Context, name string) error {
	id, err := s.id("dispute")
	if err != nil {
		return err
	}
	return s.postEvidence(ctx, id, name)
}

func (s *scenario) uploadEvidenceMissing(ctx context.Context, name string) error {
	return s.postEvidence(ctx, placeholderID("dispute"), name)
}

func (s *scenario) listEvidence(ctx context.Context) error {
	id, err := s.id("dispute")
	if err != nil {
		return err
	}
	_, err = s.send(ctx, "GET", "/disputes/"+id+"/evidence", nil, s.user)
	return err
}

// listEvidenceQuery lists the dispute's evidence with a raw query ("offset=2&limit=2").
func (s *scenario) listEvidenceQuery(ctx context.Context, query string) error {
	id, err := s.id("dispute")
	if err != nil {
		return err
	}
	_, err = s.send(ctx, "GET", withRawQuery("/disputes/"+id+"/evidence", query), nil, s.user)
	return err
}

func (s *scenario) listEvidenceMissing(ctx context.Context) error {
	_, err := s.send(ctx, "GET", "/disputes/"+placeholderID("dispute")+"/evidence", nil, s.user)
	return err
}

func (s *scenario) fetchEvidence(ctx context.Context) error {
	d, err := s.id("dispute")
	if err != nil {
		return err
	}
	return s.fetch(ctx, "evidence", "/disputes/"+d+"/evidence")
}

func (s *scenario) fetchMissingEvidence(ctx context.Context) error {
	d, err := s.id("dispute")
	if err != nil {
		return err
	}
	_, err = s.send(ctx, "GET", "/disputes/"+d+"/evidence/"+placeholderID("evidence"), nil, s.user)
	return err
}

func (s *scenario) listAdjustments(ctx context.Context) error {
	id, err := s.id("dispute")
	if err != nil {
		return err
	}
	_, err = s.send(ctx, "GET", "/disputes/"+id+"/adjustment_transfers", nil, s.user)
	return err
}

func (s *scenario) listAdjustmentsMissing(ctx context.Context) error {
	_, err := s.send(ctx, "GET", "/disputes/"+placeholderID("dispute")+"/adjustment_transfers", nil, s.user)
	return err
}

// disputeReaches polls the dispute until its state is want.
func (s *scenario) disputeReaches(ctx context.Context, want string) error {
	return s.poll(ctx, "the dispute to reach "+want, func() error {
		if err := s.fetchDispute(ctx); err != nil {
			return err
		}
		if err := s.checkSuccess(s.last); err != nil {
			return err
		}
		if got, _ := lookupString(s.last.doc, "state"); got != want {
			return errNotYet
		}
		return nil
	})
}
