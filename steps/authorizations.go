package steps

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"strconv"
	"time"

	"github.com/conform-kit/conform/validate/judging"
)

// authorizationSteps is the vocabulary of authorizations.feature: authorize, capture, fetch.
func authorizationSteps() []stepDef {
	return []stepDef{
		step(`an authorization of (\d+) cents`, func(s *scenario) any { return s.anAuthorization }),
		step(`I authorize (\d+) cents`, func(s *scenario) any { return s.authorize }),
		step(`I authorize (\d+) cents naming the merchant by its merchant id`, func(s *scenario) any { return s.authorizeByMerchant }),
		step(`I authorize (\d+) cents with the idempotency id "([^"]*)"`, func(s *scenario) any { return s.authorizeIdempotent }),
		step(`I authorize (\d+) cents without the field "([^"]*)"`, func(s *scenario) any { return s.authorizeWithout }),
		step(`I authorize (\d+) cents naming no merchant`, func(s *scenario) any { return s.authorizeNoMerchant }),
		step(`the request is refused as an invalid field naming the merchant`, func(s *scenario) any { return s.refusedNoMerchant }),
		step(`I capture (\d+) cents`, func(s *scenario) any { return s.capture }),
		step(`I capture (\d+) cents with a fee of (\d+) cents`, func(s *scenario) any { return s.captureFee }),
		step(`I capture an authorization that does not exist`, func(s *scenario) any { return s.captureMissing }),
		step(`I capture the authorization without a capture amount`, func(s *scenario) any { return s.captureNoAmount }),
		step(`the authorization expires as the profile declares`, func(s *scenario) any { return s.expiresAsDeclared }),
		step(`I fetch the authorization`, func(s *scenario) any { return s.fetchAuthorization }),
		step(`I fetch the transfer of the capture`, func(s *scenario) any { return s.fetchCaptureTransfer }),
		step(`the authorization is still uncaptured`, func(s *scenario) any { return s.stillUncaptured }),
		step(`the error names the declined resource`, func(s *scenario) any { return s.errorNamesResource }),
		step(`I authorize the sandbox's declined amount`, func(s *scenario) any { return s.authorizeDeclined }),
		step(`the second capture within the amount is handled as the profile declares`, func(s *scenario) any { return s.secondCaptureAsDeclared }),
		step(`the capture whose fee exceeds the captured amount is handled as the profile declares`, func(s *scenario) any { return s.captureFeeAsDeclared }),
	}
}

// authorizationBody is a create body for the configured Level 2/3 enabled merchant.
func (s *scenario) authorizationBody(amount int64) (map[string]any, error) {
	mi, err := s.needFixture("merchant_identity")
	if err != nil {
		return nil, err
	}
	card, err := s.id("card")
	if err != nil {
		return nil, err
	}
	return map[string]any{"source": card, "merchant_identity": mi, "amount": amount, "currency": "USD", "tags": s.runTags()}, nil
}

func (s *scenario) postAuthorization(ctx context.Context, body map[string]any, amount int64) error {
	_, err := s.create(ctx, "authorization", "POST", "/authorizations", body)
	s.amounts["authorization"] = amount
	return err
}

func (s *scenario) anAuthorization(ctx context.Context, amount int64) error {
	body, err := s.authorizationBody(amount)
	if err != nil {
		return err
	}
	s.amounts["authorization"] = amount
	return s.given(ctx, "authorization", "POST", "/authorizations", body)
}

func (s *scenario) authorize(ctx context.Context, amount int64) error {
	body, err := s.authorizationBody(amount)
	if err != nil {
		return err
	}
	return s.postAuthorization(ctx, body, amount)
}

func (s *scenario) authorizeByMerchant(ctx context.Context, amount int64) error {
	body, err := s.authorizationBody(amount)
	if err != nil {
		return err
	}
	merchant, err := s.needFixture("merchant")
	if err != nil {
		return err
	}
	delete(body, "merchant_identity")
	body["merchant"] = merchant
	if err := s.postAuthorization(ctx, body, amount); err != nil {
		return err
	}
	return s.skipUndeclaredForm(keyMerchantField, judging.MerchantFieldMerchant)
}

func (s *scenario) authorizeIdempotent(ctx context.Context, amount int64, key string) error {
	body, err := s.authorizationBody(amount)
	if err != nil {
		return err
	}
	body["idempotency_id"] = s.unique(key)
	if err := s.postAuthorization(ctx, body, amount); err != nil {
		return err
	}
	return s.noteReplay("authorization")
}

func (s *scenario) authorizeWithout(ctx context.Context, amount int64, field string) error {
	body, err := s.authorizationBody(amount)
	if err != nil {
		return err
	}
	deletePath(body, field)
	return s.postAuthorization(ctx, body, amount)
}

// authorizeNoMerchant sends an authorization create with neither
// merchant_identity nor merchant (§4.1 requires the merchant).
func (s *scenario) authorizeNoMerchant(ctx context.Context, amount int64) error {
	body, err := s.authorizationBody(amount)
	if err != nil {
		return err
	}
	delete(body, "merchant_identity")
	return s.postAuthorization(ctx, body, amount)
}

// refusedNoMerchant: refused as an invalid field naming either name the spec
// gives the merchant field (authorization_merchant_field), whichever the
// target takes.
func (s *scenario) refusedNoMerchant() error {
	return s.refusedInvalidFieldOf("/merchant_identity", "/merchant")
}

func (s *scenario) sendCapture(ctx context.Context, body map[string]any) error {
	id, err := s.id("authorization")
	if err != nil {
		return err
	}
	_, err = s.send(ctx, "PUT", "/authorizations/"+id, body, s.user)
	return err
}

func (s *scenario) capture(ctx context.Context, amount int64) error {
	return s.sendCapture(ctx, map[string]any{"capture_amount": amount})
}

func (s *scenario) captureFee(ctx context.Context, amount, fee int64) error {
	return s.sendCapture(ctx, map[string]any{"capture_amount": amount, "fee": fee})
}

// captureNoAmount sends a capture body without its required capture_amount (§4.1).
func (s *scenario) captureNoAmount(ctx context.Context) error {
	return s.sendCapture(ctx, map[string]any{"fee": 0})
}

func (s *scenario) captureMissing(ctx context.Context) error {
	_, err := s.send(ctx, "PUT", "/authorizations/"+placeholderID("authorization"), map[string]any{"capture_amount": 100}, s.user)
	return err
}

func (s *scenario) fetchAuthorization(ctx context.Context) error {
	return s.fetch(ctx, "authorization", "/authorizations")
}

// fetchCaptureTransfer fetches the transfer the last response names (transfers.get, an extension).
func (s *scenario) fetchCaptureTransfer(ctx context.Context) error {
	ex, err := s.lastExchange()
	if err != nil {
		return err
	}
	tr, ok := lookupString(ex.doc, "transfer")
	if !ok || tr == "" {
		return s.fail(ex, "the response names no transfer")
	}
	s.ids["capture transfer"] = tr
	_, err = s.send(ctx, "GET", "/transfers/"+tr, nil, s.user)
	return err
}

// stillUncaptured fetches the authorization again: transfer must still be null
// (normative); the fetch itself uses an extension operation (assumed).
func (s *scenario) stillUncaptured(ctx context.Context) error {
	if err := s.fetchAuthorization(ctx); err != nil {
		return err
	}
	ex := s.last
	if notOffered(ex, "") {
		return s.judgeCheck(s.notOfferedCheck(ex, "2xx"))
	}
	if ex.status < 200 || ex.status > 299 {
		return s.assume(keyExtensions, "authorizations.get answers", strconv.Itoa(ex.status), nil,
			s.failf(ex, "could not fetch the authorization again (status %d)", ex.status))
	}
	if v, ok := lookup(ex.doc, "transfer"); ok && v != nil {
		return s.invariant("refusal_changes_nothing", s.failf(ex, "the refused capture changed the authorization: transfer = %s, want null", render(v)))
	}
	return nil
}

// expiresAsDeclared: expires_at is created_at plus the declared hours
// (assumed: authorization_expiry_hours).
func (s *scenario) expiresAsDeclared() error {
	ex, err := s.lastExchange()
	if err != nil {
		return err
	}
	hours := s.suite.profile.AuthorizationExpiryHours
	created, _ := lookupString(ex.doc, "created_at")
	expires, _ := lookupString(ex.doc, "expires_at")
	c, err1 := time.Parse(time.RFC3339Nano, created)
	e, err2 := time.Parse(time.RFC3339Nano, expires)
	if err1 != nil || err2 != nil || e.Sub(c) != time.Duration(hours)*time.Hour {
		observed, patch := "expires_at "+expires, any(nil)
		if err1 == nil && err2 == nil && e.Sub(c) > 0 && e.Sub(c)%time.Hour == 0 {
			h := int(e.Sub(c) / time.Hour)
			observed, patch = strconv.Itoa(h), map[string]any{"authorization_expiry_hours": h}
		}
		return s.assume("authorization_expiry_hours", strconv.Itoa(hours), observed, patch,
			s.failf(ex, "expires_at %q is not created_at %q plus %d hours", expires, created, hours))
	}
	return nil
}

// errorNamesResource: a decline's error item names the failed resource (assumed).
func (s *scenario) errorNamesResource() error {
	ex, err := s.lastExchange()
	if err != nil {
		return err
	}
	for _, id := range errorField(ex.doc, "failure_resource") {
		if id != "" {
			return nil
		}
	}
	if s.declaresUnchecked(keyResourceValues) {
		return nil
	}
	return s.assume(keyResourceValues, "failure_resource", "none", map[string]any{keyResourceValues: judging.Unchecked},
		s.failf(ex, "no error item names the declined resource (failure_resource)"))
}

// authorizeDeclined authorizes the amount the profile declares declined
// (decline_trigger_amount; the scenario is skipped when there is none).
func (s *scenario) authorizeDeclined(ctx context.Context) error {
	amount, _ := s.suite.profile.DeclineTrigger()
	return s.authorize(ctx, amount)
}

// secondCaptureAsDeclared judges the last response, a second capture that
// keeps the total within the authorized amount (assumed: multi_capture):
// refused as unprocessable when the profile declares no multi-capture,
// accepted when it declares one.
func (s *scenario) secondCaptureAsDeclared() error {
	ex, err := s.lastExchange()
	if err != nil {
		return err
	}
	refused := ex.status >= 400 && ex.status <= 499
	if s.suite.profile.MultiCapture {
		if !refused {
			return s.checkSuccess(ex)
		}
		return s.assume("multi_capture", "true (accepted)", "false (refused)", map[string]any{"multi_capture": false},
			s.failf(ex, "a second capture within the amount was refused; the profile declares multi-capture"))
	}
	if !refused {
		if ex.status < 200 || ex.status > 299 {
			return s.checkRefused(ex, judging.RefusalUnprocessable)
		}
		return s.assume("multi_capture", "false (refused)", "true (accepted)", map[string]any{"multi_capture": true},
			s.failf(ex, "a second capture within the amount was accepted; the profile declares none"))
	}
	return s.checkRefused(ex, judging.RefusalUnprocessable)
}

// captureFeeAsDeclared judges the last response, a capture whose fee
// exceeds the captured amount but not the authorized one (assumed:
// capture_fee_bound): refused as an invalid /fee, the authorization still
// uncaptured, when the bound is the capture amount; accepted when it is the
// authorization amount.
func (s *scenario) captureFeeAsDeclared(ctx context.Context) error {
	ex, err := s.lastExchange()
	if err != nil {
		return err
	}
	refused := ex.status >= 400 && ex.status <= 499
	if s.suite.profile.CaptureFeeBound == judging.FeeBoundAuthorization {
		if !refused {
			return s.checkSuccess(ex)
		}
		if err := s.assume("capture_fee_bound", judging.FeeBoundAuthorization, judging.FeeBoundCapture, map[string]any{"capture_fee_bound": judging.FeeBoundCapture},
			s.failf(ex, "a capture fee within the authorization amount was refused")); err != nil {
			return err
		}
		return s.stillUncaptured(ctx)
	}
	if !refused {
		if ex.status >= 200 && ex.status <= 299 {
			return s.assume("capture_fee_bound", judging.FeeBoundCapture, judging.FeeBoundAuthorization, map[string]any{"capture_fee_bound": judging.FeeBoundAuthorization},
				s.failf(ex, "a capture fee above the captured amount was accepted"))
		}
		return s.checkRefused(ex, judging.RefusalInvalidField)
	}
	if err := s.refusedInvalidField("/fee"); err != nil {
		return err
	}
	return s.stillUncaptured(ctx)
}

// unique scopes a key from a feature file to this scenario and run.
func (s *scenario) unique(key string) string {
	if s.uniq == "" {
		b := make([]byte, 6)
		_, _ = rand.Read(b)
		s.uniq = s.suite.cfg.RunID + "-" + hex.EncodeToString(b)
	}
	return s.uniq + "-" + key
}

// errUsage is a misuse of the vocabulary in a feature file.
func errUsage(msg string) error { return errors.New(msg) }
