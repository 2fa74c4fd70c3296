package steps

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"time"

	"github.com/cucumber/godog"

	"github.com/conform-kit/conform/validate/judging"
)

// disputeSteps is the vocabulary of disputes.feature: disputes, evidence and adjustments.
func disputeSteps() []stepDef {
	return []stepDef{
		step(`the dispute opened on the sale appears in the dispute list`, func(s *scenario) any { return s.waitDispute }),
		step(`a fresh dispute opened on the sale appears in the dispute list`, func(s *scenario) any { return s.waitFreshDispute }),
		step(`the dispute's amount is the sale's amount`, func(s *scenario) any { return s.disputeAmountIsSale }),
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

// waitDispute polls GET /disputes until a dispute names the sale as its
// transfer. Sandbox triggers are assumed (dispute_trigger_amount): when the
// profile declares none, or the trigger opens no dispute (a WARN), the
// dispute fixture stands in.
func (s *scenario) waitDispute(ctx context.Context) error {
	err := s.awaitTriggeredDispute(ctx)
	var noDispute *errNoDispute
	if !errors.As(err, &noDispute) {
		return err
	}
	if noDispute.declared {
		if err := s.assume("dispute_trigger_amount", strconv.FormatInt(s.amounts["sale"], 10), "no dispute", map[string]any{"dispute_trigger_amount": 0},
			fmt.Errorf("a sale of %d cents opened no dispute within %s; the dispute fixture stands in", s.amounts["sale"], s.suite.cfg.WaitTimeout)); err != nil {
			return err
		}
	}
	delete(s.ids, "dispute")
	_, err = s.needFixture("dispute")
	return err
}

// waitFreshDispute is waitDispute for scenarios that need a dispute of their
// own: without a trigger they are skipped, and a trigger that opens no
// dispute warns and stops them.
func (s *scenario) waitFreshDispute(ctx context.Context) error {
	err := s.awaitTriggeredDispute(ctx)
	var noDispute *errNoDispute
	if !errors.As(err, &noDispute) {
		return err
	}
	if !noDispute.declared {
		return &skipDeclared{key: "dispute_trigger_amount", value: "0 (no dispute trigger): the scenario needs a dispute of its own"}
	}
	if err := s.assume("dispute_trigger_amount", strconv.FormatInt(s.amounts["sale"], 10), "no dispute", map[string]any{"dispute_trigger_amount": 0},
		fmt.Errorf("a sale of %d cents opened no dispute within %s", s.amounts["sale"], s.suite.cfg.WaitTimeout)); err != nil {
		return err
	}
	return fmt.Errorf("%w: the scenario needs a dispute of its own", godog.ErrSkip)
}

// errNoDispute: no dispute on the sale; declared when the profile has a trigger.
type errNoDispute struct{ declared bool }

func (e *errNoDispute) Error() string { return "no dispute on the sale" }

// disputeAmountIsSale: the dispute's amount is the disputed sale's (assumed: resource_values).
func (s *scenario) disputeAmountIsSale() error {
	ex, v, _, err := s.field("amount")
	if err != nil || s.declaresUnchecked(keyResourceValues) {
		return err
	}
	if got, ok := asInt(v); !ok || got != s.amounts["sale"] {
		return s.assume(keyResourceValues, strconv.FormatInt(s.amounts["sale"], 10), render(v), map[string]any{keyResourceValues: judging.Unchecked},
			s.failf(ex, "dispute amount %s, want the sale's %d", render(v), s.amounts["sale"]))
	}
	return nil
}

// awaitTriggeredDispute polls the dispute list for a dispute on the sale;
// *errNoDispute when there is none (at once when the profile declares no trigger).
func (s *scenario) awaitTriggeredDispute(ctx context.Context) error {
	sale, err := s.id("sale")
	if err != nil {
		return err
	}
	if amount, ok := s.suite.profile.DisputeTrigger(); !ok || s.amounts["sale"] != amount {
		return &errNoDispute{declared: false}
	}
	found := false
	deadline := time.Now().Add(s.suite.cfg.WaitTimeout)
	err = s.pollUntil(ctx, deadline, func() error {
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
				found = true
				return nil
			}
		}
		return errNotYet
	})
	if err == nil && !found {
		return &errNoDispute{declared: true}
	}
	return err
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
