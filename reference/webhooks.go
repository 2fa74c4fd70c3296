package reference

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/conform-kit/conform/reference/ledger"
	"github.com/conform-kit/conform/validate/judging"
)

// retryBackoff is the wait before each of the 5 retries of a failed delivery,
// multiplied by Config.RetryScale.
var retryBackoff = [...]time.Duration{
	90 * time.Second, 2 * time.Minute, 3 * time.Minute, 5 * time.Minute, 9 * time.Minute,
}

// plurals names the _embedded key of an event per entity.
var plurals = map[string]string{
	"authorization": "authorizations", "transfer": "transfers", "payment_instrument": "payment_instruments",
	"merchant": "merchants", "subscription_schedule": "subscription_schedules",
	"subscription_amount": "subscription_amounts", "subscription_enrollment": "subscription_enrollments",
	"dispute": "disputes", "evidence": "evidences", "balance_transfer": "balance_transfers",
	"webhook": "webhooks", "file": "files", "external_link": "external_links",
}

// event is the payload POSTed to webhooks.
type event struct {
	ID         string           `json:"id"`
	Type       string           `json:"type"`
	Entity     string           `json:"entity"`
	OccurredAt ledger.JSONTime  `json:"occurred_at"`
	Embedded   map[string][]any `json:"_embedded"`
}

// dispatch publishes the events of a committed unit of work, in the order
// it emitted them, to the webhooks enabled when it committed, and starts its
// timers.
func (s *Server) dispatch(e ledger.Effects) {
	for _, ev := range e.Events {
		s.publish(e.Hooks, ev.Entity, ev.Typ, ev.View)
	}
	for _, tm := range e.Timers {
		s.after(tm.Delay, func() { s.runTimer(tm.Kind, e.App, tm.ID, tm.Base) })
	}
}

// runTimer runs a due timer of app for resource id.
func (s *Server) runTimer(kind ledger.TimerKind, app, id, base string) {
	switch kind {
	case ledger.TimerDisputeStep:
		s.disputeStep(base, app, id)
	case ledger.TimerFileReview:
		s.fileReview(base, app, id)
	}
}

// postClaimed posts a delivery a store claimed for this replica once, to
// its webhook as it is now, and says what becomes of it: done on a 2xx, a
// refused target, a webhook disabled or gone, or the last retry spent;
// released when the Server is closing; otherwise due again after the
// backoff of its attempt.
func (s *Server) postClaimed(ctx context.Context, d ledger.DeliveryPost) ledger.DeliveryVerdict {
	w, ok := s.enabledWebhook(d.App, d.Hook)
	if !ok {
		s.log.Info("webhook delivery stopped: webhook disabled", "webhook", d.Hook, "event", d.Event)
		return ledger.DeliveryVerdict{Done: true}
	}
	if d.Claimed != nil && !d.Claimed(ctx) {
		s.log.Info("webhook delivery not posted: dropped or taken over since its claim", "webhook", d.Hook, "event", d.Event)
		return ledger.DeliveryVerdict{Done: true}
	}
	err := s.postCtx(ctx, w, d.Body)
	switch {
	case err == nil:
		return ledger.DeliveryVerdict{Done: true}
	case errors.Is(err, errWebhookTarget):
		s.log.Warn("webhook delivery refused: target not allowed", "webhook", d.Hook, "event", d.Event, "error", err)
		return ledger.DeliveryVerdict{Done: true}
	case s.ctx.Err() != nil:
		return ledger.DeliveryVerdict{Release: true}
	}
	wait, again := s.retryWait(d.Attempt - 1)
	if !again {
		s.log.Warn("webhook delivery abandoned", "webhook", d.Hook, "event", d.Event, "error", err)
		return ledger.DeliveryVerdict{Done: true}
	}
	s.log.Info("webhook delivery failed; retrying", "webhook", d.Hook, "event", d.Event, "in", wait, "error", err)
	return ledger.DeliveryVerdict{RetryIn: wait}
}

// publish sends a created/updated event for a resource view to every one of
// the enabled webhooks whose enabled_events admit it, through the line of
// each host they point at.
func (s *Server) publish(enabled []ledger.Webhook, entity, typ string, view any) {
	targets, evID, body := s.newEvent(enabled, entity, typ, view)
	// One batch a line, the lines in the order their first webhook comes.
	var keys []string
	byLine := map[string]*batch{}
	for _, w := range targets {
		key := lineKey(w)
		b, ok := byLine[key]
		if !ok {
			keys = append(keys, key)
			b = &batch{eventID: evID, body: body}
			byLine[key] = b
		}
		b.targets = append(b.targets, w)
		b.deliveries = append(b.deliveries, s.track(w, evID))
	}
	for _, key := range keys {
		s.enqueue(key, *byLine[key])
	}
}

// pendingDelivery is one event's delivery to one webhook from its
// publication until it is settled (delivered, refused, abandoned) or
// dropped; stop is closed when it is dropped, and it makes no attempt
// after that.
type pendingDelivery struct {
	eventID string
	stop    chan struct{}
}

func (d *pendingDelivery) dropped() bool {
	select {
	case <-d.stop:
		return true
	default:
		return false
	}
}

// pendingKey names a webhook's pending deliveries.
func pendingKey(w ledger.Webhook) string { return w.App + " " + w.ID }

// track counts a new delivery of eventID to w as pending; past
// Limits.PendingDeliveries for w, the oldest pending ones are dropped as
// failed.
func (s *Server) track(w ledger.Webhook, eventID string) *pendingDelivery {
	d := &pendingDelivery{eventID: eventID, stop: make(chan struct{})}
	key := pendingKey(w)
	s.lifeMu.Lock()
	if s.pending == nil {
		s.pending = map[string][]*pendingDelivery{}
	}
	list := append(s.pending[key], d)
	for max := s.limits.PendingDeliveries; max > 0 && len(list) > max; {
		old := list[0]
		list[0] = nil
		list = list[1:]
		close(old.stop)
		s.log.Warn("webhook delivery dropped: too many pending", "webhook", w.ID, "event", old.eventID, "pending", max)
	}
	s.pending[key] = list
	s.lifeMu.Unlock()
	return d
}

// settleDelivery ends d, a delivery to w: it is no longer pending.
func (s *Server) settleDelivery(w ledger.Webhook, d *pendingDelivery) {
	key := pendingKey(w)
	s.lifeMu.Lock()
	defer s.lifeMu.Unlock()
	list := s.pending[key]
	i := slices.Index(list, d)
	if i < 0 {
		return // dropped
	}
	list = slices.Delete(list, i, i+1)
	if len(list) == 0 {
		delete(s.pending, key)
		return
	}
	s.pending[key] = list
}

// pendingCount is how many deliveries to webhook id of app are pending.
func (s *Server) pendingCount(app, id string) int {
	s.lifeMu.Lock()
	defer s.lifeMu.Unlock()
	return len(s.pending[app+" "+id])
}

// Deliveries to one host keep the order the events were published in: an
// application's events for the webhooks of one host wait in a line
// (hookLine), drained by one goroutine that ends when the line is empty.
// It makes the first attempts of one event to all those webhooks at once,
// and those of the next event only when every one of them has been answered
// (or has failed). A failed first attempt leaves the line for a goroutine of
// its own that makes the retries, so a retried event arrives after later
// ones; a slow or failing host delays only its own deliveries.
//
// Neither the spec nor the kit's assumptions (features/README.md) promise an order of deliveries. The kit's silence
// checks (steps/webhooks_silence.go) use this one only to know when to stop
// waiting for a delivery that must not come, and so catch a faulty delivery
// every time.

// hookLine is one application's events waiting for their first attempts to
// the webhooks of one host.
type hookLine struct {
	pending []batch
}

// batch is one event waiting for its first attempts to some webhooks.
type batch struct {
	targets    []ledger.Webhook
	deliveries []*pendingDelivery // of each target
	eventID    string
	body       []byte
}

// lineKey names the line of w's deliveries: its application and the scheme
// and host (with port) of its url.
func lineKey(w ledger.Webhook) string {
	u, err := url.Parse(w.URL)
	if err != nil {
		return w.App + " " + w.URL
	}
	return w.App + " " + u.Scheme + "://" + u.Host
}

// enqueue adds b to the line key, and starts the line's goroutine when none
// drains it; nothing after Close.
func (s *Server) enqueue(key string, b batch) {
	s.lifeMu.Lock()
	if s.closed {
		s.lifeMu.Unlock()
		return
	}
	line, draining := s.lines[key]
	if !draining {
		if s.lines == nil {
			s.lines = map[string]*hookLine{}
		}
		line = &hookLine{}
		s.lines[key] = line
		s.wg.Add(1)
	}
	line.pending = append(line.pending, b)
	s.lifeMu.Unlock()
	if !draining {
		go s.drain(key, line)
	}
}

// drain makes the first attempts of each batch of line in turn until the
// line is empty or the server is closed.
func (s *Server) drain(key string, line *hookLine) {
	defer s.wg.Done()
	for {
		s.lifeMu.Lock()
		if len(line.pending) == 0 || s.closed {
			delete(s.lines, key)
			s.lifeMu.Unlock()
			return
		}
		b := line.pending[0]
		line.pending[0] = batch{}
		line.pending = line.pending[1:]
		s.lifeMu.Unlock()
		var wg sync.WaitGroup
		for i, w := range b.targets[1:] {
			wg.Go(func() { s.firstAttempt(w, b.deliveries[i+1], b.eventID, b.body) })
		}
		s.firstAttempt(b.targets[0], b.deliveries[0], b.eventID, b.body)
		wg.Wait()
	}
}

// firstAttempt posts an event to w once, unless its delivery d was
// dropped while it waited, and, when that failed, hands the event to a
// goroutine of retries.
func (s *Server) firstAttempt(w ledger.Webhook, d *pendingDelivery, eventID string, body []byte) {
	if d.dropped() {
		return
	}
	if s.attempt(w, eventID, body, 0) {
		s.settleDelivery(w, d)
		return
	}
	s.lifeMu.Lock()
	defer s.lifeMu.Unlock()
	if s.closed || d.dropped() {
		return
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		s.deliver(w, d, eventID, body, 1)
	}()
}

// newEvent is the event of a resource view: the enabled webhooks whose
// enabled_events admit it, its id and its body; no targets when none does.
func (s *Server) newEvent(enabled []ledger.Webhook, entity, typ string, view any) (targets []ledger.Webhook, evID string, body []byte) {
	for _, w := range enabled {
		if eventEnabled(w.EnabledEvents, entity, typ) {
			targets = append(targets, w)
		}
	}
	if len(targets) == 0 {
		return nil, "", nil
	}
	ev := event{
		ID: s.cfg.NewID(ledger.PrefixEvent), Type: typ, Entity: entity, OccurredAt: ledger.JSONTime(s.now()),
		Embedded: map[string][]any{plurals[entity]: {view}},
	}
	body, err := json.Marshal(ev)
	if err != nil {
		s.log.Error("encode webhook event", "entity", entity, "error", err)
		return nil, "", nil
	}
	return targets, ev.ID, body
}

// retryWait is the wait after the failed attempt attempt (0 the first) of
// a delivery, and false once its retries are spent.
func (s *Server) retryWait(attempt int) (time.Duration, bool) {
	if attempt >= len(retryBackoff) {
		return 0, false
	}
	return time.Duration(float64(retryBackoff[attempt]) * s.cfg.RetryScale), true
}

// eventEnabled applies a webhook's enabled_events: empty admits everything;
// otherwise an entry admits the event when it names its entity (and, if it
// lists types, its type). Entries are objects {"entity", "types"|"type"} or
// strings "entity" / "entity.type".
func eventEnabled(filters []any, entity, typ string) bool {
	if len(filters) == 0 {
		return true
	}
	for _, f := range filters {
		switch f := f.(type) {
		case string:
			e, t, hasType := strings.Cut(f, ".")
			if e == entity && (!hasType || t == typ) {
				return true
			}
		case map[string]any:
			if e, _ := f["entity"].(string); e != entity {
				continue
			}
			types, _ := f["types"].([]any)
			if t, ok := f["type"].(string); ok {
				types = append(types, t)
			}
			if len(types) == 0 {
				return true
			}
			for _, t := range types {
				if t == typ {
					return true
				}
			}
		}
	}
	return false
}

// signature is the Finix-Signature header value for body at time ts.
func signature(secret string, ts int64, body []byte) string {
	return judging.SignatureValue(secret, strconv.FormatInt(ts, 10), body)
}

// deliver POSTs body to w.URL from attempt first on (0 is the first
// attempt; the retries are 1 to 5), waiting its backoff before each retry,
// until a 2xx, the retries are spent, its delivery d is dropped or Close.
// Each retry reads the webhook again: one disabled (or gone) since the
// event was published receives nothing more, and an updated url is used.
func (s *Server) deliver(w ledger.Webhook, d *pendingDelivery, eventID string, body []byte, first int) {
	defer s.settleDelivery(w, d) // w as published: the key of d
	for attempt := first; ; attempt++ {
		if attempt > 0 {
			wait, again := s.retryWait(attempt - 1)
			if !again {
				return
			}
			t := time.NewTimer(wait)
			select {
			case <-s.ctx.Done():
				t.Stop()
				return
			case <-d.stop:
				t.Stop()
				return
			case <-t.C:
			}
			current, ok := s.enabledWebhook(w.App, w.ID)
			if !ok {
				s.log.Info("webhook delivery stopped: webhook disabled", "webhook", w.ID, "event", eventID)
				return
			}
			if d.dropped() {
				// Dropped by the bound after the wait ended: the drop
				// came before any change of the webhook this read
				// saw, so a url it was given after the drop is never
				// posted to (as the PostgreSQL worker's Claimed).
				return
			}
			w = current
		}
		if s.attempt(w, eventID, body, attempt) {
			return
		}
	}
}

// attempt POSTs body to w.URL once and reports whether the delivery is
// settled: delivered, refused for its target, or failed with no retry left.
func (s *Server) attempt(w ledger.Webhook, eventID string, body []byte, attempt int) bool {
	err := s.post(w, body)
	if err == nil {
		return true
	}
	if errors.Is(err, errWebhookTarget) {
		s.log.Warn("webhook delivery refused: target not allowed", "webhook", w.ID, "event", eventID, "error", err)
		return true
	}
	wait, again := s.retryWait(attempt)
	if !again {
		s.log.Warn("webhook delivery abandoned", "webhook", w.ID, "event", eventID, "error", err)
		return true
	}
	if s.ctx.Err() == nil {
		s.log.Info("webhook delivery failed; retrying", "webhook", w.ID, "event", eventID, "in", wait, "error", err)
	}
	return false
}

// enabledWebhook reads webhook id of app again; ok is false once it is
// disabled or gone.
func (s *Server) enabledWebhook(app, id string) (w ledger.Webhook, ok bool) {
	_ = s.view(s.ctx, app, func(t ledger.Tx) error {
		var err error
		w, err = t.Webhooks().Get(id)
		ok = err == nil && w.Enabled
		return nil
	})
	return w, ok
}

// post POSTs body to w.URL once, until Close.
func (s *Server) post(w ledger.Webhook, body []byte) error { return s.postCtx(s.ctx, w, body) }

// postCtx POSTs body to w.URL once under ctx.
func (s *Server) postCtx(ctx context.Context, w ledger.Webhook, body []byte) error {
	if err := s.policy.checkURL(w.URL); err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.URL, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("build request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Finix-Signature", signature(w.SecretSigningKey, s.cfg.Now().Unix(), body))
	if auth := w.Authentication.Header(); auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := s.cfg.WebhookClient.Do(req)
	if err != nil {
		return fmt.Errorf("post event: %w", err)
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<10))
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Errorf("post event: status %d", resp.StatusCode)
	}
	return nil
}
