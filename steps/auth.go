package steps

import (
	"context"

	"strings"
)

func authSteps() []stepDef {
	return []stepDef{
		step(`my application has an? (card|authorization|sale|enrollment|webhook|file|dispute|balance transfer|merchant)`, func(s *scenario) any { return s.myApplicationHas }),
		step(`the other application user calls "([^"]*)"`, func(s *scenario) any { return s.otherApplicationCalls }),
		step(`the response field "([^"]*)" is one of "([^"]*)"`, func(s *scenario) any { return s.fieldOneOf }),
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

func (s *scenario) fieldOneOf(path, set string) error {
	ex, v, _, err := s.field(path)
	if err != nil {
		return err
	}
	got, _ := v.(string)
	for _, want := range strings.Split(set, ",") {
		if strings.TrimSpace(want) == got {
			return nil
		}
	}
	return s.judge(false, s.failf(ex, "field %s = %s, want one of %s", path, render(v), set))
}
