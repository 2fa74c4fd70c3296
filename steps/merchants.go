package steps

import (
	"context"
	"fmt"
	"regexp"
	"slices"
)

// merchantSteps is the vocabulary of merchants.feature.
func merchantSteps() []stepDef {
	return []stepDef{
		step(`I fetch the merchant`, func(s *scenario) any { return s.fetchMerchant }),
		step(`I fetch a merchant that does not exist`, func(s *scenario) any { return s.fetchMissingMerchant }),
		step(`I set Level 2/3 processing to (true|false) on the merchant`, func(s *scenario) any { return s.setMerchantL23 }),
		step(`I set Level 2/3 processing to (true|false) on a merchant that does not exist`, func(s *scenario) any { return s.setMissingMerchantL23 }),
		step(`the merchant still has Level 2/3 processing (true|false)`, func(s *scenario) any { return s.merchantStill }),
		step(`the response never shows the processor api key in clear`, func(s *scenario) any { return s.apiKeyMasked }),
		step(`the profile lets the merchant user call "([^"]*)"`, func(s *scenario) any { return s.merchantMayCall }),
	}
}

func (s *scenario) fetchMerchant(ctx context.Context) error {
	return s.fetch(ctx, "merchant", "/merchants")
}

func (s *scenario) fetchMissingMerchant(ctx context.Context) error {
	_, err := s.send(ctx, "GET", "/merchants/"+placeholderID("merchant"), nil, s.user)
	return err
}

func (s *scenario) putMerchantL23(ctx context.Context, id string, on bool, user string) (*exchange, error) {
	return s.send(ctx, "PUT", "/merchants/"+id, map[string]any{"level_two_level_three_data_enabled": on}, user)
}

func (s *scenario) setMerchantL23(ctx context.Context, on string) error {
	id, err := s.id("merchant")
	if err != nil {
		return err
	}
	_, err = s.putMerchantL23(ctx, id, on == "true", s.user)
	return err
}

func (s *scenario) setMissingMerchantL23(ctx context.Context, on string) error {
	_, err := s.putMerchantL23(ctx, placeholderID("merchant"), on == "true", s.user)
	return err
}

// merchantStill fetches the merchant as the platform user and checks the flag.
func (s *scenario) merchantStill(ctx context.Context, flag string) error {
	want := flag == "true"
	id, err := s.id("merchant")
	if err != nil {
		return err
	}
	ex, err := s.send(ctx, "GET", "/merchants/"+id, nil, "platform")
	if err != nil {
		return err
	}
	if got, _ := lookup(ex.doc, "level_two_level_three_data_enabled"); got != want {
		err := s.fail(ex, "level_two_level_three_data_enabled = %s, want %t", render(got), want)
		_, _ = s.putMerchantL23(ctx, id, want, "platform") // put the shared fixture back for the other scenarios
		return err
	}
	return nil
}

// placeholderValue is a value that names a secret without being it: "<API_KEY>".
var placeholderValue = regexp.MustCompile(`^<[A-Za-z0-9_ -]+>$|^[*xX•]{4,}`)

// apiKeyMasked: processor_details.api_key is never the key (invariant
// secrets: absent, null, empty, a placeholder like <API_KEY> or a masked
// value); the literal is assumed (api_key_literal), judged with the
// response's exact forms.
func (s *scenario) apiKeyMasked() error {
	ex, v, ok, err := s.field("processor_details.api_key")
	if err != nil || !ok || v == nil {
		return err
	}
	got, _ := v.(string)
	if got != "" && !placeholderValue.MatchString(got) {
		return s.invariant("secrets", s.failf(ex, "processor_details.api_key carries a value that is neither a placeholder nor masked"))
	}
	return nil // the literal is judged with the response (api_key_literal)
}

// merchantMayCall skips the scenario when the profile's roles for the
// operation leave out ROLE_MERCHANT (operation_roles).
func (s *scenario) merchantMayCall(opID string) error {
	op, ok := s.suite.v.Operation(opID)
	if !ok {
		return &kitError{fmt.Errorf("unknown operation %q", opID)}
	}
	if !slices.Contains(s.suite.profile.Roles(op), "ROLE_MERCHANT") {
		return &skipDeclared{key: "operation_roles", value: opID + " without ROLE_MERCHANT"}
	}
	return nil
}

func (s *scenario) disablePlain(ctx context.Context, id string) error {
	ex, err := s.putMerchantL23(ctx, id, false, "platform")
	if err == nil && (ex.status < 200 || ex.status > 299) {
		err = fmt.Errorf("could not disable Level 2/3 on the plain merchant %s: status %d", id, ex.status)
	}
	return err
}
