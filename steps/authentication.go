package steps

import (
	"context"
	"fmt"
)

// authenticationSteps is the vocabulary of authentication.feature: missing or wrong
// credentials, operations called by id, and tenancy across applications.
func authenticationSteps() []stepDef {
	return []stepDef{
		step(`I send no credentials`, func(s *scenario) any { return s.sendNoCredentials }),
		step(`I send a wrong password`, func(s *scenario) any { return s.sendWrongPassword }),
		step(`I call "([^"]*)"`, func(s *scenario) any { return s.callOperation }),
		step(`I call "([^"]*)" without credentials`, func(s *scenario) any { return s.callWithoutCredentials }),
		step(`I call "([^"]*)" with a wrong password`, func(s *scenario) any { return s.callWithWrongPassword }),
		step(`my application has an? (card|authorization|sale|enrollment|webhook|file|dispute|balance transfer|merchant)`, func(s *scenario) any { return s.myApplicationHas }),
		step(`the other application user calls "([^"]*)"`, func(s *scenario) any { return s.otherApplicationCalls }),
	}
}

// myApplicationHas makes sure a resource of the platform user's application exists.
func (s *scenario) myApplicationHas(ctx context.Context, role string) error {
	switch role {
	case "card":
		return s.aCard(ctx)
	case "authorization":
		if err := s.aCard(ctx); err != nil {
			return err
		}
		return s.anAuthorization(ctx, 1000)
	case "sale":
		if err := s.aCard(ctx); err != nil {
			return err
		}
		return s.aSale(ctx, 1000)
	case "enrollment":
		return s.anEnrollment(ctx)
	case "webhook":
		return s.aWebhook(ctx)
	case "file":
		return s.aFile(ctx, "conform tenancy document")
	}
	_, err := s.id(role) // fixtures: dispute, balance transfer, merchant
	return err
}

// otherApplicationCalls calls an operation with the ids of this scenario as the other application's user.
func (s *scenario) otherApplicationCalls(ctx context.Context, opID string) error {
	if s.suite.cfg.Credentials.OtherApplication == nil {
		return &skipError{key: "credentials.other_application"}
	}
	prev := s.user
	s.user = "other_application"
	defer func() { s.user = prev }()
	return s.call(ctx, opID, false)
}

func (s *scenario) sendNoCredentials() error { s.auth = authNone; return nil }

func (s *scenario) sendWrongPassword() error { s.auth = authWrongPassword; return nil }

func (s *scenario) callOperation(ctx context.Context, opID string) error {
	return s.call(ctx, opID, false)
}

func (s *scenario) callWithoutCredentials(ctx context.Context, opID string) error {
	defer func() { s.auth = authUser }()
	s.auth = authNone
	return s.call(ctx, opID, true)
}

func (s *scenario) callWithWrongPassword(ctx context.Context, opID string) error {
	defer func() { s.auth = authUser }()
	s.auth = authWrongPassword
	return s.call(ctx, opID, true)
}

// call invokes an operation of the table with path ids from the scenario
// (or placeholders) and a sample body.
func (s *scenario) call(ctx context.Context, opID string, placeholders bool) error {
	op, ok := s.suite.v.Operation(opID)
	if !ok {
		return &kitError{fmt.Errorf("unknown operation %q", opID)}
	}
	path, err := s.fillPath(op, placeholders)
	if err != nil {
		return err
	}
	body, err := s.sampleBody(op, placeholders)
	if err != nil {
		return err
	}
	_, err = s.send(ctx, op.Method, path, body, s.user)
	return err
}
