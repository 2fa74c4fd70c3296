package steps

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/cucumber/godog"

	"github.com/conform-kit/conform/validate/judging"
)

// controlRoute is the receiver path, under the scenario's token, of the
// control webhook; the webhook under test delivers to the token itself.
const controlRoute = "control"

// markerAmount is the amount of the marker sale that closes a silence check.
const markerAmount = 1401

// webhookSilenceSteps is the part of webhooks.feature that checks an event filter
// by the deliveries that must not arrive.
func webhookSilenceSteps() []stepDef {
	return []stepDef{
		step(`a control webhook pointing at the kit's receiver`, func(s *scenario) any { return s.aControlWebhook }),
		step(`a webhook pointing at the kit's receiver enabled only for "([a-z_]+)" events`, func(s *scenario) any { return s.aFilteredWebhook }),
		step(`the webhook gets neither the sale's event nor a later marker sale's, while the control webhook gets both`, func(s *scenario) any { return s.webhookStaysSilent }),
	}
}

// aControlWebhook creates an enabled webhook without a filter on its own
// receiver route: it receives every event, so its deliveries show how far
// the target has got.
func (s *scenario) aControlWebhook(ctx context.Context) error {
	body := map[string]any{"url": s.ensureHookURL() + "/" + controlRoute, "tags": s.runTags()}
	return s.given(ctx, "control webhook", "POST", "/webhooks", body)
}

// aFilteredWebhook creates the webhook under test with a non-empty
// enabled_events naming one entity (assumed: it filters by entity and type).
func (s *scenario) aFilteredWebhook(ctx context.Context, entity string) error {
	body := map[string]any{
		"url": s.ensureHookURL(), "tags": s.runTags(),
		"enabled_events": []any{map[string]any{"entity": entity, "types": []any{"created", "updated"}}},
	}
	ex, err := s.postWebhook(ctx, body)
	if err != nil {
		return err
	}
	if err := s.checkSuccess(ex); err != nil {
		return fmt.Errorf("setting up the filtered webhook: %w", err)
	}
	return nil
}

// webhookStaysSilent proves that the webhook under test received no event of
// the scenario's sale, without sleeping and without false failures.
//
// Absence cannot be observed directly, so the control webhook (enabled, no
// filter, on the same receiver) serves as a clock. The step waits until the
// control has received the sale's event, then makes a second, marker sale
// and waits until the control has received that too. Any delivery of either
// sale to the webhook under test read until then fails the check.
//
// When to stop waiting rests on the order of deliveries, which neither the
// spec (§6: retry behaviour "not shown") nor the kit's assumptions promise; so the
// check never judges order, it only stops on it. Decision: the kit counts on
// a target making the deliveries of one event to a host before those of an
// event published after it (the reference does: its deliveries to one host
// keep their publish order, reference/webhooks.go), and both webhooks point
// at the kit's one receiver, whose routes queue deliveries in arrival order.
// Then a delivery of the sale to the webhook under test arrives before the
// control's delivery of the marker, and a faulty target is caught every
// time. It is not the control's own delivery of the sale that bounds the
// wait: deliveries of one event to several webhooks go out together, in any
// order. A target that delivers in another order can only be missed (its
// stray delivery arrives after the check ended), never failed: a conforming
// target sends no such delivery at all.
// The control missing an event is a warning: which events a sale sends is an
// assumption of the kit, and without it the check proves nothing.
func (s *scenario) webhookStaysSilent(ctx context.Context) error {
	sale, err := s.id("sale")
	if err != nil {
		return err
	}
	if s.hookCh == nil {
		return &kitError{errUsage("the scenario has no webhook pointing at the receiver")}
	}
	if s.declaresUnchecked(keyResourceEvents) {
		// The control needs the sales' events the target does not promise.
		return &skipDeclared{key: keyResourceEvents, value: judging.Unchecked}
	}
	var stray []string
	if err := s.awaitControl(ctx, sale, &stray); err != nil {
		return err
	}
	if err := s.createSale(ctx, markerAmount); err != nil {
		return err
	}
	if err := s.checkSuccess(s.last); err != nil {
		return fmt.Errorf("creating the marker sale: %w", err)
	}
	marker := s.ids["sale"]
	s.ids["sale"] = sale
	if err := s.awaitControl(ctx, marker, &stray, sale); err != nil {
		return err
	}
	if len(stray) > 0 {
		return s.judge(fmt.Errorf("the webhook under test received %d event(s) of sales %s and %s it must not receive: %v", len(stray), sale, marker, stray))
	}
	return nil
}

// awaitControl reads deliveries until the control webhook has the event of
// transfer want; deliveries of want (or of also) to the webhook under test
// are added to stray.
func (s *scenario) awaitControl(ctx context.Context, want string, stray *[]string, also ...string) error {
	deadline := time.NewTimer(s.suite.cfg.WaitTimeout)
	defer deadline.Stop()
	for {
		select {
		case d := <-s.hookCh:
			switch names := func(id string) bool { return bytes.Contains(d.body, []byte(id)) }; {
			case d.route == controlRoute && names(want):
				return nil
			case d.route == "" && names(want):
				*stray = append(*stray, want)
			case d.route == "" && len(also) > 0 && slices.ContainsFunc(also, names):
				*stray = append(*stray, strings.Join(also, ","))
			}
		case <-deadline.C:
			if err := s.assume(keyResourceEvents, "an event of sale "+want+" to the control webhook", "none", map[string]any{keyResourceEvents: judging.Unchecked},
				fmt.Errorf("the control webhook received no event of sale %s within %s", want, s.suite.cfg.WaitTimeout)); err != nil {
				return err
			}
			return fmt.Errorf("%w: without the control's delivery the silence of the webhook proves nothing", godog.ErrSkip)
		case <-ctx.Done():
			return &kitError{ctx.Err()}
		}
	}
}
