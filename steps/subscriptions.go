package steps

import (
	"context"
	"time"
)

// subscriptionSteps is the vocabulary of subscriptions.feature: schedules, amounts, enrollments.
func subscriptionSteps() []stepDef {
	return []stepDef{
		step(`a subscription schedule`, func(s *scenario) any { return s.aSchedule }),
		step(`a fresh subscription amount`, func(s *scenario) any { return s.aFreshAmount }),
		step(`I create a subscription schedule`, func(s *scenario) any { return s.createSchedule }),
		step(`I fetch the subscription schedule`, func(s *scenario) any { return s.fetchSchedule }),
		step(`I create a subscription amount of (\d+) cents on the schedule`, func(s *scenario) any { return s.createAmount }),
		step(`I fetch the subscription amount`, func(s *scenario) any { return s.fetchAmount }),
		step(`I update the subscription amount to (\d+) cents`, func(s *scenario) any { return s.updateAmount }),
		step(`I update the updated subscription amount to (\d+) cents`, func(s *scenario) any { return s.updateUpdated }),
		step(`I update a subscription amount that does not exist`, func(s *scenario) any { return s.updateMissingAmount }),
		step(`the response is a new subscription amount`, func(s *scenario) any { return s.isNewAmount }),
		step(`an enrollment of the merchant`, func(s *scenario) any { return s.anEnrollment }),
		step(`I enroll the merchant in the schedule`, func(s *scenario) any { return s.enroll }),
		step(`I enroll nobody in the schedule`, func(s *scenario) any { return s.enrollNobody }),
		step(`I fetch the enrollment`, func(s *scenario) any { return s.fetchEnrollment }),
		step(`I rename the enrollment to "([^"]*)"`, func(s *scenario) any { return s.renameEnrollment }),
		step(`I delete the enrollment`, func(s *scenario) any { return s.deleteEnrollment }),
		step(`I list the enrollments of the schedule`, func(s *scenario) any { return s.listScheduleEnrollments }),
		step(`I list all enrollments`, func(s *scenario) any { return s.listEnrollments }),
		step(`I list all enrollments with "([^"]*)"`, func(s *scenario) any { return s.listEnrollmentsQuery }),
		step(`I (fetch|rename|delete) an enrollment that does not exist`, func(s *scenario) any { return s.missingEnrollment }),
	}
}

// aSchedule creates a schedule (extension) or, when the target lacks the
// extension (declared or observed), falls back to the configured schedule.
func (s *scenario) aSchedule(ctx context.Context) error {
	if !s.offers("subscription_schedules.create") {
		_, err := s.needFixture("subscription_schedule")
		return err
	}
	ex, err := s.create(ctx, "schedule", "POST", "/subscription/subscription_schedules", scheduleBody(s.runTags()))
	if err != nil {
		return err
	}
	if ex.status >= 200 && ex.status <= 299 {
		return s.checkSchema(ex)
	}
	delete(s.ids, "schedule")
	_, err = s.needFixture("subscription_schedule")
	return err
}

// aFreshAmount creates a never-updated amount on a schedule (the extension
// subscription_amounts.create). There is no fallback: the configured amount
// is fresh only until its first update, so without the extension the
// scenario warns under extensions and stops (or is skipped when the profile
// declares the extension not offered).
func (s *scenario) aFreshAmount(ctx context.Context) error {
	if err := s.aSchedule(ctx); err != nil {
		return err
	}
	sched, err := s.id("schedule")
	if err != nil {
		return err
	}
	return s.given(ctx, "amount", "POST", "/subscription/subscription_schedules/"+sched+"/subscription_amounts", amountBody(500, s.runTags()))
}

func (s *scenario) createSchedule(ctx context.Context) error {
	_, err := s.create(ctx, "schedule", "POST", "/subscription/subscription_schedules", scheduleBody(s.runTags()))
	return err
}

func (s *scenario) fetchSchedule(ctx context.Context) error {
	return s.fetch(ctx, "schedule", "/subscription/subscription_schedules")
}

func (s *scenario) amountPath(role string) (string, error) {
	sched, err := s.id("schedule")
	if err != nil {
		return "", err
	}
	id, err := s.id(role)
	if err != nil {
		return "", err
	}
	return "/subscription/subscription_schedules/" + sched + "/subscription_amounts/" + id, nil
}

func (s *scenario) createAmount(ctx context.Context, amount int64) error {
	sched, err := s.id("schedule")
	if err != nil {
		return err
	}
	_, err = s.create(ctx, "amount", "POST", "/subscription/subscription_schedules/"+sched+"/subscription_amounts", amountBody(amount, s.runTags()))
	return err
}

func (s *scenario) fetchAmount(ctx context.Context) error {
	path, err := s.amountPath("amount")
	if err != nil {
		return err
	}
	_, err = s.send(ctx, "GET", path, nil, s.user)
	return err
}

func (s *scenario) patchAmount(ctx context.Context, role string, amount int64) error {
	path, err := s.amountPath(role)
	if err != nil {
		return err
	}
	_, err = s.send(ctx, "PATCH", path, amountBody(amount, s.runTags()), s.user)
	return err
}

func (s *scenario) updateAmount(ctx context.Context, amount int64) error {
	return s.patchAmount(ctx, "amount", amount)
}

func (s *scenario) updateUpdated(ctx context.Context, amount int64) error {
	return s.patchAmount(ctx, "updated amount", amount)
}

func (s *scenario) updateMissingAmount(ctx context.Context) error {
	s.ids["missing amount"] = placeholderID("amount")
	return s.patchAmount(ctx, "missing amount", 700)
}

// isNewAmount: the update returned a Subscription Amount with a new id (§3.2, normative).
func (s *scenario) isNewAmount() error {
	ex, err := s.lastExchange()
	if err != nil {
		return err
	}
	old, err := s.id("amount")
	if err != nil {
		return err
	}
	id, _ := lookupString(ex.doc, "id")
	if id == "" || id == old {
		return s.fail(ex, "the update returned id %q, want a new Subscription Amount (old id %q)", id, old)
	}
	s.ids["updated amount"], s.docs["updated amount"] = id, ex.doc
	return nil
}

func (s *scenario) enrollmentBody() (map[string]any, error) {
	merchant, err := s.id("merchant")
	if err != nil {
		return nil, err
	}
	start := time.Now().UTC().Add(24 * time.Hour).Format("2006-01-02T15:04:05.000Z")
	return map[string]any{"merchant": merchant, "nickname": "conform enrollment", "started_at": start, "tags": s.runTags()}, nil
}

func (s *scenario) postEnrollment(ctx context.Context, body map[string]any) (*exchange, error) {
	sched, err := s.id("schedule")
	if err != nil {
		return nil, err
	}
	return s.create(ctx, "enrollment", "POST", "/subscription/subscription_schedules/"+sched+"/subscription_enrollments", body)
}

func (s *scenario) anEnrollment(ctx context.Context) error {
	if err := s.aSchedule(ctx); err != nil {
		return err
	}
	body, err := s.enrollmentBody()
	if err != nil {
		return err
	}
	ex, err := s.postEnrollment(ctx, body)
	if err != nil {
		return err
	}
	return s.checkSuccess(ex)
}

func (s *scenario) enroll(ctx context.Context) error {
	body, err := s.enrollmentBody()
	if err != nil {
		return err
	}
	_, err = s.postEnrollment(ctx, body)
	return err
}

func (s *scenario) enrollNobody(ctx context.Context) error {
	_, err := s.postEnrollment(ctx, map[string]any{"nickname": "nobody"})
	return err
}

func (s *scenario) fetchEnrollment(ctx context.Context) error {
	return s.fetch(ctx, "enrollment", "/subscription/subscription_enrollments")
}

func (s *scenario) renameEnrollment(ctx context.Context, name string) error {
	id, err := s.id("enrollment")
	if err != nil {
		return err
	}
	_, err = s.send(ctx, "PUT", "/subscription/subscription_enrollments/"+id, map[string]any{"nickname": name}, s.user)
	return err
}

func (s *scenario) deleteEnrollment(ctx context.Context) error {
	id, err := s.id("enrollment")
	if err != nil {
		return err
	}
	_, err = s.send(ctx, "DELETE", "/subscription/subscription_enrollments/"+id, nil, s.user)
	return err
}

func (s *scenario) listScheduleEnrollments(ctx context.Context) error {
	sched, err := s.id("schedule")
	if err != nil {
		return err
	}
	_, err = s.send(ctx, "GET", "/subscription/subscription_schedules/"+sched+"/subscription_enrollments", nil, s.user)
	return err
}

func (s *scenario) listEnrollments(ctx context.Context) error {
	_, err := s.send(ctx, "GET", "/subscription/subscription_enrollments", nil, s.user)
	return err
}

// listEnrollmentsQuery lists all enrollments with a raw query ("limit=1").
func (s *scenario) listEnrollmentsQuery(ctx context.Context, query string) error {
	_, err := s.send(ctx, "GET", "/subscription/subscription_enrollments?"+query, nil, s.user)
	return err
}

func (s *scenario) missingEnrollment(ctx context.Context, action string) error {
	path := "/subscription/subscription_enrollments/" + placeholderID("enrollment")
	var err error
	switch action {
	case "fetch":
		_, err = s.send(ctx, "GET", path, nil, s.user)
	case "rename":
		_, err = s.send(ctx, "PUT", path, map[string]any{"nickname": "ghost"}, s.user)
	default:
		_, err = s.send(ctx, "DELETE", path, nil, s.user)
	}
	return err
}
