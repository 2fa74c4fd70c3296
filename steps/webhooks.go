package steps

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/conform-kit/conform/validate/judging"
)

// webhookSteps is the vocabulary of webhooks.feature: webhooks and their deliveries.
func webhookSteps() []stepDef {
	return []stepDef{
		step(`a webhook pointing at the kit's receiver`, func(s *scenario) any { return s.aWebhook }),
		step(`I create a webhook pointing at the kit's receiver`, func(s *scenario) any { return s.createWebhook }),
		step(`I create a webhook whose url is (\d+) characters long`, func(s *scenario) any { return s.createWebhookLength }),
		step(`I create a webhook with the url "([^"]*)"`, func(s *scenario) any { return s.createWebhookURL }),
		step(`I create a webhook without a url`, func(s *scenario) any { return s.createWebhookNoURL }),
		step(`I disable the webhook`, func(s *scenario) any { return s.disableWebhook }),
		step(`I point the webhook at a new path of the kit's receiver`, func(s *scenario) any { return s.moveWebhook }),
		step(`I set the webhook's url to one (\d+) characters long`, func(s *scenario) any { return s.updateWebhookLength }),
		step(`I fetch the webhook`, func(s *scenario) any { return s.fetchWebhook }),
		step(`I fetch a webhook that does not exist`, func(s *scenario) any { return s.fetchMissingWebhook }),
		step(`I disable a webhook that does not exist`, func(s *scenario) any { return s.disableMissingWebhook }),
		step(`I list the webhooks`, func(s *scenario) any { return s.listWebhooks }),
		step(`I list the webhooks with "([^"]*)"`, func(s *scenario) any { return s.listWebhooksQuery }),
		step(`the kit's receiver gets the "([^"]*)" event of the file with status "([^"]*)"`, func(s *scenario) any { return s.receivesFileEvent }),
		step(`the kit's receiver gets the "([^"]*)" event of the (sale|authorization)`, func(s *scenario) any { return s.receivesSaleEvent }),
		step(`a webhook pointing at the kit's receiver with basic authentication`, func(s *scenario) any { return s.aBasicAuthWebhook }),
		step(`the response never shows the webhook's password`, func(s *scenario) any { return s.neverShowsHookPassword }),
		step(`the kit's receiver gets the "([^"]*)" event of the (sale|authorization) with the webhook's basic Authorization header`, func(s *scenario) any { return s.receivesAuthenticatedEvent }),
	}
}

// hookURLOfLength is a receiver URL padded to exactly n characters (when n allows).
func (s *scenario) hookURLOfLength(n int) string {
	base := s.ensureHookURL() + "/"
	if n <= len(base) {
		return base
	}
	return base + strings.Repeat("p", n-len(base))
}

func (s *scenario) postWebhook(ctx context.Context, body map[string]any) (*exchange, error) {
	ex, err := s.create(ctx, "webhook", "POST", "/webhooks", body)
	if err != nil {
		return nil, err
	}
	if key, ok := lookupString(ex.doc, "secret_signing_key"); ok && ex.status >= 200 && ex.status <= 299 {
		s.hookSecret = key
		s.secrets = appendSecret(s.secrets, key)
	}
	return ex, nil
}

func (s *scenario) aWebhook(ctx context.Context) error {
	ex, err := s.postWebhook(ctx, map[string]any{"url": s.ensureHookURL(), "tags": s.runTags()})
	if err != nil {
		return err
	}
	if err := s.checkSuccess(ex); err != nil {
		return fmt.Errorf("setting up the webhook: %w", err)
	}
	if _, ok := s.ids["webhook"]; !ok {
		return s.fail(ex, "setting up the webhook: no id in the response")
	}
	return nil
}

func (s *scenario) createWebhook(ctx context.Context) error {
	_, err := s.postWebhook(ctx, map[string]any{"url": s.ensureHookURL(), "tags": s.runTags()})
	return err
}

func (s *scenario) createWebhookLength(ctx context.Context, n int) error {
	_, err := s.postWebhook(ctx, map[string]any{"url": s.hookURLOfLength(n), "tags": s.runTags()})
	return err
}

func (s *scenario) createWebhookURL(ctx context.Context, u string) error {
	_, err := s.postWebhook(ctx, map[string]any{"url": u})
	return err
}

func (s *scenario) createWebhookNoURL(ctx context.Context) error {
	_, err := s.postWebhook(ctx, map[string]any{"enabled": true})
	return err
}

func (s *scenario) putWebhook(ctx context.Context, id string, body map[string]any) error {
	_, err := s.send(ctx, "PUT", "/webhooks/"+id, body, s.user)
	return err
}

func (s *scenario) disableWebhook(ctx context.Context) error {
	id, err := s.id("webhook")
	if err != nil {
		return err
	}
	return s.putWebhook(ctx, id, map[string]any{"enabled": false})
}

func (s *scenario) moveWebhook(ctx context.Context) error {
	id, err := s.id("webhook")
	if err != nil {
		return err
	}
	return s.putWebhook(ctx, id, map[string]any{"url": s.ensureHookURL() + "/moved"})
}

func (s *scenario) updateWebhookLength(ctx context.Context, n int) error {
	id, err := s.id("webhook")
	if err != nil {
		return err
	}
	return s.putWebhook(ctx, id, map[string]any{"url": s.hookURLOfLength(n)})
}

func (s *scenario) fetchWebhook(ctx context.Context) error {
	return s.fetch(ctx, "webhook", "/webhooks")
}

func (s *scenario) fetchMissingWebhook(ctx context.Context) error {
	_, err := s.send(ctx, "GET", "/webhooks/"+placeholderID("webhook"), nil, s.user)
	return err
}

func (s *scenario) disableMissingWebhook(ctx context.Context) error {
	return s.putWebhook(ctx, placeholderID("webhook"), map[string]any{"enabled": false})
}

func (s *scenario) listWebhooks(ctx context.Context) error {
	_, err := s.send(ctx, "GET", "/webhooks?limit=100", nil, s.user)
	return err
}

// listWebhooksQuery lists the webhooks with a raw query ("limit=1").
func (s *scenario) listWebhooksQuery(ctx context.Context, query string) error {
	_, err := s.send(ctx, "GET", "/webhooks?"+query, nil, s.user)
	return err
}

// receivesFileEvent waits for the alert of the file on the scenario's
// receiver route. Normative (§6, §3.1): an HTTP POST whose body names the
// file id and says it was uploaded ("uploaded" in any case: a status, a type
// name) reaches the webhook. Assumed: the event's layout and type names
// (event_layout) and its signature (signature_scheme).
func (s *scenario) receivesFileEvent(ctx context.Context, typ, status string) error {
	file, err := s.id("file")
	if err != nil {
		return err
	}
	if s.hookCh == nil {
		return &kitError{errUsage("the scenario has no webhook pointing at the receiver")}
	}
	layout := s.suite.profile.EventLayout
	var named *delivery
	deadline := time.NewTimer(s.suite.cfg.WaitTimeout)
	defer deadline.Stop()
	for {
		select {
		case d := <-s.hookCh:
			if !bytes.Contains(d.body, []byte(file)) || !bytes.Contains(bytes.ToLower(d.body), []byte("uploaded")) {
				continue // not the alert: it names the file and says it was uploaded
			}
			switch layout {
			case judging.EventLayoutEmbedded:
				if ev, ok := fileEvent(d, file, status); ok {
					return s.checkEvent(ev, d, typ)
				}
			case judging.EventLayoutFields:
				if ev, ok := s.fieldsFileEvent(d, file, status); ok {
					return s.checkEventOf(ev, d, typ, "file", file)
				}
			default:
				return s.checkSignature(d)
			}
			named = &d
		case <-deadline.C:
			if named != nil {
				return s.assume("event_layout", layout, "another layout", s.eventLayoutPatch(decodeJSON(named.body), "file", typ, file),
					fmt.Errorf("the alert of file %s is not an event of layout %s with status %s: %s", file, layout, status, s.mask(named.body)))
			}
			return s.normative([]string{"6", "3.1"}, fmt.Errorf("no HTTP POST naming file %s reached the webhook's url within %s", file, s.suite.cfg.WaitTimeout))
		case <-ctx.Done():
			return &kitError{ctx.Err()}
		}
	}
}

// receivesSaleEvent waits for the event of the scenario's sale or
// authorization (assumed: every create sends one; resource_events).
func (s *scenario) receivesSaleEvent(ctx context.Context, typ, role string) error {
	ev, d, entity, err := s.awaitSaleEvent(ctx, role, nil)
	if err != nil || ev == nil {
		return err
	}
	return s.checkEventOf(ev, d, typ, entity, s.ids[role])
}

// awaitSaleEvent reads the scenario's receiver route until a delivery naming
// the sale or authorization arrives, passing every delivery read to each
// (when given) first. A nil event with a nil error means the wait was judged.
func (s *scenario) awaitSaleEvent(ctx context.Context, role string, each func(delivery) error) (any, delivery, string, error) {
	sale, err := s.id(role)
	if err != nil {
		return nil, delivery{}, "", err
	}
	entity := map[string]string{"sale": "transfer", "authorization": "authorization"}[role]
	if s.hookCh == nil {
		return nil, delivery{}, "", &kitError{errUsage("the scenario has no webhook pointing at the receiver")}
	}
	deadline := time.NewTimer(s.suite.cfg.WaitTimeout)
	defer deadline.Stop()
	for {
		select {
		case d := <-s.hookCh:
			if each != nil {
				if err := each(d); err != nil {
					return nil, d, entity, err
				}
			}
			if bytes.Contains(d.body, []byte(sale)) {
				return decodeJSON(d.body), d, entity, nil
			}
		case <-deadline.C:
			return nil, delivery{}, entity, s.assume(keyResourceEvents, "an event of the "+role, "none", map[string]any{keyResourceEvents: judging.Unchecked},
				fmt.Errorf("no webhook event for %s %s reached the receiver within %s", role, sale, s.suite.cfg.WaitTimeout))
		case <-ctx.Done():
			return nil, delivery{}, entity, &kitError{ctx.Err()}
		}
	}
}

// fileEvent decodes a delivery and reports whether it is an event of the
// embedded layout carrying the file in that status.
func fileEvent(d delivery, file, status string) (any, bool) {
	ev := decodeJSON(d.body)
	id, _ := lookupString(ev, "_embedded.files.0.id")
	st, _ := lookupString(ev, "_embedded.files.0.status")
	return ev, id == file && st == status
}

// fieldsFileEvent decodes a delivery and reports whether it carries the
// file in that status where the profile's event_fields puts the resource.
func (s *scenario) fieldsFileEvent(d delivery, file, status string) (any, bool) {
	ev := decodeJSON(d.body)
	res := s.suite.profile.EventResource(ev, "file")
	id, _ := res["id"].(string)
	st, _ := res["status"].(string)
	return ev, id == file && st == status
}

// checkEvent checks a file event.
func (s *scenario) checkEvent(ev any, d delivery, typ string) error {
	file, _ := s.id("file")
	return s.checkEventOf(ev, d, typ, "file", file)
}

// eventLayoutPatch is the profile that declares the layout of an event of
// type typ of the entity's resource id: layout fields with the places read
// from it (judging.InferEventFields), or unchecked when it carries no such
// type or resource.
func (s *scenario) eventLayoutPatch(ev any, entity, typ, id string) map[string]any {
	if f, ok := judging.InferEventFields(ev, entity, typ, id); ok {
		return map[string]any{keyEventLayout: judging.EventLayoutFields, keyEventFields: f}
	}
	return map[string]any{keyEventLayout: judging.Unchecked}
}

// The profile keys of an event's layout.
const (
	keyEventLayout = "event_layout"
	keyEventFields = "event_fields"
)

// checkEventOf checks an event of the entity's resource id: its layout and
// type names (assumed: event_layout, and event_fields for the layout
// fields; nothing when the profile declares it unchecked) and its
// signature.
func (s *scenario) checkEventOf(ev any, d delivery, typ, entity, id string) error {
	if s.suite.profile.EventLayout == judging.EventLayoutFields {
		if err := s.suite.profile.EventMismatch(ev, entity, typ, id); err != nil {
			f, _ := json.Marshal(s.suite.profile.EventFields)
			if err := s.assume(keyEventLayout, "an event of type "+typ+" at "+string(f), "another event", s.eventLayoutPatch(ev, entity, typ, id),
				fmt.Errorf("the %s event of %s %s: %w: %s", typ, entity, id, err, s.mask(d.body))); err != nil {
				return err
			}
		}
	}
	if s.suite.profile.EventLayout == judging.EventLayoutEmbedded {
		patch := s.eventLayoutPatch(ev, entity, typ, id)
		if got, _ := lookupString(ev, "type"); got != typ {
			if err := s.assume("event_layout", "type "+typ, "type "+render(got), patch, fmt.Errorf("event type %q, want %q: %s", got, typ, s.mask(d.body))); err != nil {
				return err
			}
		}
		if got, _ := lookupString(ev, "entity"); got != entity {
			if err := s.assume("event_layout", "entity "+entity, "entity "+render(got), patch, fmt.Errorf("event entity %q, want %q", got, entity)); err != nil {
				return err
			}
		}
	}
	return s.checkSignature(d)
}

// checkSignature verifies the delivery's signature in the declared scheme
// and header (assumed: signature_scheme, signature_header).
func (s *scenario) checkSignature(d delivery) error {
	p := &s.suite.profile
	if p.SignatureScheme == judging.Unchecked {
		return nil
	}
	err := verifySignature(p.SignatureHeader, d.header.Get(p.SignatureHeader), s.hookSecret, d.body)
	if err == nil {
		return nil
	}
	if d.header.Get(p.SignatureHeader) == "" {
		if name, ok := signatureHeaderOf(d, s.hookSecret); ok {
			return s.assume("signature_header", p.SignatureHeader, name, map[string]any{"signature_header": name},
				fmt.Errorf("webhook delivery signed in the declared scheme under %s, not %s", name, p.SignatureHeader))
		}
	}
	return s.assume("signature_scheme", p.SignatureScheme+" in "+p.SignatureHeader, "another signature", map[string]any{"signature_scheme": judging.Unchecked},
		fmt.Errorf("webhook delivery signature: %w", err))
}

// signatureHeaderOf finds the header of a delivery whose value verifies in
// the declared scheme with the webhook's secret: the target signs as
// declared, under another name (in sorted order, the first such header).
func signatureHeaderOf(d delivery, secret string) (string, bool) {
	for _, name := range slices.Sorted(maps.Keys(d.header)) {
		for _, v := range d.header[name] {
			if verifySignature(name, v, secret, d.body) == nil {
				return name, true
			}
		}
	}
	return "", false
}

// hookUsername is the username of the webhooks the suite creates with basic
// authentication; the password is random per scenario.
const hookUsername = "conform-hook"

// aBasicAuthWebhook creates the webhook under test with BASIC authentication
// (spec §4.9: "settings used when sending events"; assumed: deliveries
// carry Authorization: Basic). The password is a secret of the scenario.
func (s *scenario) aBasicAuthWebhook(ctx context.Context) error {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	s.hookPassword = "hook-" + hex.EncodeToString(b)
	s.secrets = appendSecret(s.secrets, s.hookPassword)
	ex, err := s.postWebhook(ctx, map[string]any{
		"url": s.ensureHookURL(), "tags": s.runTags(),
		"authentication": map[string]any{"type": "BASIC", "basic": map[string]any{"username": hookUsername, "password": s.hookPassword}},
	})
	if err != nil {
		return err
	}
	if err := s.checkSuccess(ex); err != nil {
		return fmt.Errorf("setting up the webhook with basic authentication: %w", err)
	}
	if _, ok := s.ids["webhook"]; !ok {
		return s.fail(ex, "setting up the webhook: no id in the response")
	}
	return nil
}

// leaksHookPassword reports whether body carries the webhook's password.
func (s *scenario) leaksHookPassword(body []byte) bool {
	return s.hookPassword != "" && strings.Contains(string(body), s.hookPassword)
}

// neverShowsHookPassword: the password the webhook was given is a credential
// and never comes back. This check is normative even in an assumed scenario:
// whether a target supports BASIC is an assumption, but one that accepted
// a password and returns it leaks a credential.
func (s *scenario) neverShowsHookPassword() error {
	ex, err := s.lastExchange()
	if err != nil {
		return err
	}
	if s.hookPassword == "" {
		return &kitError{errUsage("the scenario created no webhook with basic authentication")}
	}
	if s.leaksHookPassword(ex.body) {
		return s.invariant("secrets", s.failf(ex, "the response contains the webhook's authentication password"))
	}
	return nil
}

// receivesAuthenticatedEvent waits for the sale's event like
// receivesSaleEvent and checks that it carries the webhook's basic
// Authorization header (assumed). No delivery read on the way may
// carry the password (normative, as in neverShowsHookPassword).
func (s *scenario) receivesAuthenticatedEvent(ctx context.Context, typ, role string) error {
	ev, d, entity, err := s.awaitSaleEvent(ctx, role, func(d delivery) error {
		if s.leaksHookPassword(d.body) {
			return s.invariant("secrets", fmt.Errorf("a webhook event carries the webhook's authentication password: %s", s.mask(d.body)))
		}
		return nil
	})
	if err != nil || ev == nil {
		return err
	}
	if err := s.checkEventOf(ev, d, typ, entity, s.ids[role]); err != nil {
		return err
	}
	if want := basicAuthorization(hookUsername, s.hookPassword); d.authorization != want {
		got := "none"
		if d.authorization != "" {
			got = "a different one"
		}
		return s.assume(keyResourceEvents, "Basic with the webhook's credentials", got+" Authorization header", map[string]any{keyResourceEvents: judging.Unchecked},
			fmt.Errorf("the %s event reached the receiver with %s Authorization header, want Basic with the webhook's username and password", role, got))
	}
	return nil
}
