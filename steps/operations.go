package steps

import (
	"fmt"
	"strings"
	"time"

	"github.com/conform-kit/conform/validate"
)

// paramRole names the scenario role whose id fills a path parameter of an operation.
func paramRole(opID, param string) string {
	switch param {
	case "schedule_id":
		return "schedule"
	case "dispute_id":
		return "dispute"
	case "file_id":
		return "file"
	}
	prefix, _, _ := strings.Cut(opID, ".")
	switch {
	case strings.HasPrefix(opID, "files.external_links.") && opID != "files.external_links.get":
		return "file"
	case opID == "files.external_links.get":
		return "external link"
	case opID == "dispute_evidence.get":
		return "evidence"
	}
	roles := map[string]string{
		"authorizations": "authorization", "transfers": "sale", "payment_instruments": "card",
		"merchants": "merchant", "subscription_schedules": "schedule", "subscription_amounts": "amount",
		"subscription_enrollments": "enrollment", "disputes": "dispute", "dispute_evidence": "dispute",
		"balance_transfers": "balance transfer", "files": "file", "webhooks": "webhook",
	}
	return roles[prefix]
}

// roleFixture is the fixture key that stands in for a role the scenario did not create.
func roleFixture(role string) string {
	switch role {
	case "merchant", "dispute":
		return role
	case "balance transfer":
		return "balance_transfer"
	case "schedule":
		return "subscription_schedule"
	case "amount":
		return "subscription_amount"
	}
	return ""
}

// placeholderID gives a syntactically valid id of the role's kind that names nothing.
func placeholderID(role string) string {
	prefixes := map[string]string{
		"authorization": "AU", "sale": "TR", "card": "PI", "merchant": "MU", "schedule": "SUBSCHEDULE_",
		"amount": "SUBAMOUNT_", "enrollment": "SUBENROLLMENT_", "dispute": "DI", "evidence": "DF",
		"balance transfer": "BT_", "file": "FILE_", "external link": "EL_", "webhook": "WH",
	}
	return prefixes[role] + "0000000000000000000000"
}

// id returns the id of a role: created by the scenario, else the fixture standing in for it.
func (s *scenario) id(role string) (string, error) {
	if v, ok := s.ids[role]; ok {
		return v, nil
	}
	if key := roleFixture(role); key != "" {
		return s.needFixture(key)
	}
	return "", &kitError{fmt.Errorf("the scenario has no %s yet", role)}
}

// fillPath replaces the operation's path parameters by ids (or placeholders).
func (s *scenario) fillPath(op validate.Operation, placeholders bool) (string, error) {
	path := op.Path
	for {
		i := strings.IndexByte(path, '{')
		if i < 0 {
			return path, nil
		}
		j := strings.IndexByte(path[i:], '}') + i
		role := paramRole(op.ID, path[i+1:j])
		id := placeholderID(role)
		if !placeholders {
			var err error
			if id, err = s.id(role); err != nil {
				return "", err
			}
		}
		path = path[:i] + id + path[j+1:]
	}
}

// idOr returns the role's id, or a placeholder when allowed and unknown.
func (s *scenario) idOr(role string, placeholders bool) (string, error) {
	if placeholders {
		if v, ok := s.ids[role]; ok {
			return v, nil
		}
		if key := roleFixture(role); key != "" && s.suite.cfg.fixture(key) != "" {
			return s.suite.cfg.fixture(key), nil
		}
		return placeholderID(role), nil
	}
	return s.id(role)
}

// sampleBody builds a valid request body for an operation from the scenario's state.
func (s *scenario) sampleBody(op validate.Operation, placeholders bool) (any, error) {
	switch op.Request {
	case "":
		return nil, nil
	case "multipart":
		return &filePart{name: "evidence.pdf", data: []byte("%PDF-1.4 conform sample\n")}, nil
	case "binary":
		return rawBody{ctype: "application/pdf", data: []byte("%PDF-1.4 conform sample\n")}, nil
	}
	ids := map[string]string{}
	for _, role := range sampleRoles(op.Request) {
		v, err := s.idOr(role, placeholders)
		if err != nil {
			return nil, err
		}
		ids[role] = v
	}
	if op.Request == "payment_instrument_create" || op.Request == "authorization_create" {
		key := "buyer_identity"
		if op.Request == "authorization_create" {
			key = "merchant_identity"
		}
		v := s.suite.cfg.fixture(key)
		if v == "" && !placeholders {
			return nil, &skipError{key: "fixtures." + key}
		}
		if v == "" {
			v = "ID0000000000000000000000"
		}
		ids[key] = v
	}
	return s.bodyFor(op.Request, ids), nil
}

// sampleRoles lists the roles a request body refers to.
func sampleRoles(request string) []string {
	switch request {
	case "authorization_create":
		return []string{"card"}
	case "transfer_create":
		return []string{"card", "merchant"}
	case "subscription_enrollment_create", "file_create":
		return []string{"merchant"}
	}
	return nil
}

func (s *scenario) bodyFor(request string, ids map[string]string) map[string]any {
	tags := s.runTags()
	switch request {
	case "authorization_create":
		return map[string]any{"source": ids["card"], "merchant_identity": ids["merchant_identity"], "amount": 100, "currency": "USD", "tags": tags}
	case "authorization_capture":
		return map[string]any{"capture_amount": 100}
	case "transfer_create":
		return map[string]any{"source": ids["card"], "merchant": ids["merchant"], "amount": 100, "currency": "USD", "tags": tags}
	case "payment_instrument_create":
		return s.cardBody(ids["buyer_identity"], testCardNumber)
	case "merchant_update":
		return map[string]any{"level_two_level_three_data_enabled": true}
	case "subscription_schedule_create":
		return scheduleBody(tags)
	case "subscription_amount_create", "subscription_amount_update":
		return amountBody(500, tags)
	case "subscription_enrollment_create":
		return map[string]any{"merchant": ids["merchant"], "nickname": "conform enrollment", "started_at": time.Now().UTC().Add(time.Hour).Format("2006-01-02T15:04:05.000Z"), "tags": tags}
	case "subscription_enrollment_update":
		return map[string]any{"nickname": "conform enrollment renamed"}
	case "balance_transfer_create":
		return map[string]any{"amount": 100, "currency": "USD", "description": "conform balance transfer", "source": "OPERATING_ACCOUNT", "destination": "FOR_BENEFIT_OF_ACCOUNT", "processor_type": "LITLE_V1", "tags": tags}
	case "file_create":
		return map[string]any{"display_name": "conform document", "linked_to": ids["merchant"], "linked_type": "MERCHANT", "type": "OTHER", "tags": tags}
	case "external_link_create":
		return map[string]any{"type": "UPLOAD", "duration": 60, "tags": tags}
	case "webhook_create":
		return map[string]any{"url": s.ensureHookURL(), "tags": tags}
	case "webhook_update":
		return map[string]any{"url": s.ensureHookURL()}
	}
	return map[string]any{}
}

// runTags are the tags every created resource carries: the run id.
func (s *scenario) runTags() map[string]any {
	return map[string]any{"conform_run": s.suite.cfg.RunID}
}

func scheduleBody(tags map[string]any) map[string]any {
	return map[string]any{
		"line_item_type": "FEE", "nickname": "conform schedule", "subscription_type": "PERIODIC_MONTHLY",
		"period_offset": map[string]any{"day": 1, "month": 1}, "tags": tags,
	}
}

func amountBody(amount int64, tags map[string]any) map[string]any {
	return map[string]any{
		"amount_type": "FEE", "nickname": "conform amount",
		"fee_amount_data": map[string]any{"amount": amount, "currency": "USD", "label": "conform fee"},
		"tags":            tags,
	}
}

// ensureHookURL opens the scenario's receiver route on first use.
func (s *scenario) ensureHookURL() string {
	if s.hookToken == "" {
		s.hookToken, s.hookURL, s.hookCh = s.suite.recv.register()
	}
	return s.hookURL
}
