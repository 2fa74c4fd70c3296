package judging_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/conform-kit/conform/validate"
	"github.com/conform-kit/conform/validate/judging"
)

// TestDefaultProfileIsTheReferencesChoices checks the defaults against
// the kit's assumptions (features/README.md), through the typed accessors.
func TestDefaultProfileIsTheReferencesChoices(t *testing.T) {
	v := newJudge(t)
	p := v.DefaultProfile()
	op := func(id string) validate.Operation {
		o, ok := v.Validator().Operation(id)
		if !ok {
			t.Fatalf("no operation %s", id)
		}
		return o
	}
	for id, want := range map[string]int{
		"authorizations.create": 201, "webhooks.create": 201, "files.create": 200,
		"authorizations.capture": 200, "subscription_enrollments.delete": 204,
	} {
		if got := p.SuccessStatus(op(id)); got != want {
			t.Errorf("SuccessStatus(%s) = %d, want %d", id, got, want)
		}
	}
	if got := p.Refusal(judging.RefusalInvalidField).String(); got != "422 INVALID_FIELD" {
		t.Errorf("Refusal(invalid_field) = %s", got)
	}
	if got := p.Refusal(judging.RefusalDeclined).String(); got != "402 DECLINED|PAYMENT_DECLINED" {
		t.Errorf("Refusal(declined) = %s", got)
	}
	if m, path := p.Route(op("webhooks.update")); m != "PUT" || path != "/webhooks/{id}" {
		t.Errorf("Route(webhooks.update) = %s %s", m, path)
	}
	if !p.Offers(op("authorizations.get")) || !p.Offers(op("authorizations.create")) {
		t.Error("the default profile should offer every extension and every spec operation")
	}
	if got := p.Roles(op("merchants.update")); !slices.Equal(got, []string{"ROLE_PLATFORM"}) {
		t.Errorf("Roles(merchants.update) = %v", got)
	}
	if amt, ok := p.DeclineTrigger(); !ok || amt != 102 {
		t.Errorf("DeclineTrigger = %d, %v", amt, ok)
	}
	if amt, ok := p.DisputeTrigger(); !ok || amt != 888888 {
		t.Errorf("DisputeTrigger = %d, %v", amt, ok)
	}
	re, err := p.IDPattern("AU")
	if err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string]bool{"AU0123456789abcdefghijKL": true, "AU0123456789abcdefghijK": false, "TR0123456789abcdefghijKL": false} {
		if re.MatchString(id) != want {
			t.Errorf("IDPattern(AU) on %s = %v, want %v", id, !want, want)
		}
	}
	for ts, want := range map[string]bool{"2026-01-02T03:04:05.123456Z": true, "2026-01-02T03:04:05.123Z": false} {
		if p.TimestampPattern().MatchString(ts) != want {
			t.Errorf("TimestampPattern on %s = %v, want %v", ts, !want, want)
		}
	}
	if !p.ContentTypeMatches("application/hal+json; charset=utf-8") || p.ContentTypeMatches("application/json") {
		t.Error("ContentTypeMatches should accept hal+json with parameters and nothing else")
	}
	if p.MultiCapture || p.CaptureFeeBound != judging.FeeBoundCapture || p.APIKeyLiteral != "<API_KEY>" || p.EventLayout != judging.EventLayoutEmbedded {
		t.Errorf("defaults: multi_capture %v, capture_fee_bound %s, api_key_literal %s, event_layout %s", p.MultiCapture, p.CaptureFeeBound, p.APIKeyLiteral, p.EventLayout)
	}
	var buf bytes.Buffer
	if err := v.EncodeProfile(&buf, p, false); err != nil || buf.String() != "{}\n" {
		t.Errorf("EncodeProfile(defaults, differences only) = %q, %v", buf.String(), err)
	}
	if d := v.ProfileDifferences(p); len(d) != 0 {
		t.Errorf("ProfileDifferences(defaults) = %v", d)
	}
}

// TestDecodeProfileOverTheDefaults declares a variant and reads it back.
func TestDecodeProfileOverTheDefaults(t *testing.T) {
	v := newJudge(t)
	p, err := v.DecodeProfile([]byte(`{
		"create_status": 200,
		"refusals": {"invalid_field": {"status": 400}, "forbidden": {"codes": ["ACCESS_DENIED"]}},
		"id_form": "[1-9A-HJ-NP-Za-km-z]{21,22}",
		"timestamp_precision": 3,
		"response_content_type": "application/json",
		"dispute_trigger_amount": 0,
		"multi_capture": true,
		"webhook_routes": {"webhooks.update": "PATCH /webhooks/{id}"},
		"extensions": ["subscription_schedules.create"]
	}`))
	if err != nil {
		t.Fatal(err)
	}
	create, _ := v.Validator().Operation("transfers.create")
	capture, _ := v.Validator().Operation("authorizations.capture")
	if p.SuccessStatus(create) != 200 || p.SuccessStatus(capture) != 200 {
		t.Errorf("SuccessStatus = %d, %d, want 200, 200", p.SuccessStatus(create), p.SuccessStatus(capture))
	}
	if got := p.Refusal(judging.RefusalInvalidField).String(); got != "400 INVALID_FIELD" {
		t.Errorf("invalid_field merged to %s, want 400 INVALID_FIELD (status declared, codes kept)", got)
	}
	if got := p.Refusal(judging.RefusalForbidden).String(); got != "403 ACCESS_DENIED" {
		t.Errorf("forbidden merged to %s, want 403 ACCESS_DENIED", got)
	}
	if got := p.Refusal(judging.RefusalNotFound).String(); got != "404 NOT_FOUND" {
		t.Errorf("not_found = %s, want the default", got)
	}
	if _, ok := p.DisputeTrigger(); ok {
		t.Error("dispute trigger 0 should mean none")
	}
	upd, _ := v.Validator().Operation("webhooks.update")
	if m, _ := p.Route(upd); m != "PATCH" {
		t.Errorf("Route(webhooks.update) method %s, want PATCH", m)
	}
	get, _ := v.Validator().Operation("authorizations.get")
	if p.Offers(get) {
		t.Error("authorizations.get offered, but the profile lists only subscription_schedules.create")
	}
	re, _ := p.IDPattern("TR")
	if !re.MatchString("TRgJqPfXwRz5nVd8yHmKcTbL") || re.MatchString("TR0gJqPfXwRz5nVd8yHmKcTbL") {
		t.Error("IDPattern should follow the declared base58 form")
	}
	if v.DefaultProfile().Refusal(judging.RefusalForbidden).String() != "403 FORBIDDEN" {
		t.Error("decoding changed the defaults")
	}
	// Round trip: the differences only, then every key.
	for _, all := range []bool{false, true} {
		var buf bytes.Buffer
		if err := v.EncodeProfile(&buf, p, all); err != nil {
			t.Fatal(err)
		}
		back, err := v.DecodeProfile(buf.Bytes())
		if err != nil {
			t.Fatalf("DecodeProfile(EncodeProfile(all=%v)) = %v\n%s", all, err, buf.String())
		}
		if !reflect.DeepEqual(back, p) {
			t.Errorf("round trip (all=%v) changed the profile:\n%s", all, buf.String())
		}
	}
	if got := v.ProfileDifferences(p)[0].String(); got != "create_status: 200 (default 201)" {
		t.Errorf("ProfileDifference.String() = %q", got)
	}
	var keys []string
	for _, d := range v.ProfileDifferences(p) {
		keys = append(keys, d.Key)
	}
	want := []string{"create_status", "refusals", "id_form", "timestamp_precision", "response_content_type", "dispute_trigger_amount", "multi_capture", "webhook_routes", "extensions"}
	if !slices.Equal(keys, want) {
		t.Errorf("ProfileDifferences keys = %v, want %v", keys, want)
	}
}

// TestDecodeProfileRefusesWhatItCannotHonour: every error names the key.
func TestDecodeProfileRefusesWhatItCannotHonour(t *testing.T) {
	v := newJudge(t)
	tests := []struct{ name, doc, wants string }{
		{"unknown key", `{"id_lenght": 21}`, `unknown key "id_lenght"`},
		{"not an object", `[1]`, "want a JSON object"},
		{"wrong type", `{"create_status": "200"}`, "create_status:"},
		{"null", `{"id_form": null}`, "id_form: null"},
		{"not 2xx", `{"create_status": 302}`, "create_status: 302 is not a 2xx"},
		{"unknown operation", `{"success_status": {"payments.create": 200}}`, `success_status: unknown operation "payments.create"`},
		{"refusal not 4xx", `{"refusals": {"forbidden": {"status": 200}}}`, "refusals: forbidden: status 200 is not a 4xx"},
		{"unknown refusal", `{"refusals": {"teapot": {"status": 418}}}`, `refusals: unknown kind of refusal "teapot"`},
		{"unknown refusal field", `{"refusals": {"forbidden": {"code": "X"}}}`, "refusals.forbidden:"},
		{"bad id form", `{"id_form": "[0-9"}`, "id_form:"},
		{"precision", `{"timestamp_precision": 12}`, "timestamp_precision:"},
		{"value not allowed", `{"event_layout": "flat"}`, `event_layout: "flat" is not one of embedded, fields, unchecked`},
		{"max below default", `{"list_max_limit": 10}`, "list_max_limit:"},
		{"event field unknown", `{"event_fields": {"kind": "/kind"}}`, `event_fields: unknown entry "kind"`},
		{"event field not a pointer", `{"event_fields": {"resource": "data"}}`, `event_fields: resource: "data" is not a JSON pointer`},
		{"event type form without the type", `{"event_fields": {"type_form": "{entity}"}}`, `event_fields: type_form: "{entity}" does not name {type}`},
		{"event type nowhere", `{"event_fields": {"type": ""}}`, "event_fields: type and resource name where the event carries them"},
		{"normative roles", `{"operation_roles": {"merchants.update": ["ROLE_PLATFORM", "ROLE_MERCHANT"]}}`, "operation_roles: merchants.update: only ROLE_PLATFORM"},
		{"route of a spec operation", `{"webhook_routes": {"webhooks.get": "POST /hooks"}}`, "webhook_routes: webhooks.get"},
		{"bad route", `{"webhook_routes": {"webhooks.create": "/hooks"}}`, "webhook_routes: webhooks.create"},
		{"not an extension", `{"extensions": ["transfers.create"]}`, "extensions: transfers.create is not an extension"},
		{"content type", `{"response_content_type": "json"}`, `response_content_type: "json" is not a media type`},
		{"request content type", `{"request_content_type": "json"}`, `request_content_type: "json" is not a media type`},
		{"request media type", `{"request_media_types": ["application/json", "text"]}`, `request_media_types: "text" is not a media type`},
		{"operation's refusal not 4xx", `{"refusals": {"not_found": {"operations": {"files.get": {"status": 302}}}}}`, "refusals: not_found.operations.files.get: status 302 is not a 4xx"},
		{"not judged", `{"webhook_retry_minutes": [1, 2]}`, "webhook_retry_minutes is not a profile key: the delays between retries"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := v.DecodeProfile([]byte(tt.doc))
			if !errors.Is(err, judging.ErrProfile) || !strings.Contains(err.Error(), tt.wants) {
				t.Errorf("DecodeProfile(%s) = %v, want ErrProfile containing %q", tt.doc, err, tt.wants)
			}
		})
	}
}

// TestProfileKeysAreDocumented: every key has a description and a value.
func TestProfileKeysAreDocumented(t *testing.T) {
	v := newJudge(t)
	p := v.DefaultProfile()
	for _, k := range v.Table().Profile {
		if k.Description == "" {
			t.Errorf("profile key %s has no description", k.Key)
		}
		if _, ok := p.Value(k.Key); !ok {
			t.Errorf("profile key %s has no value", k.Key)
		}
	}
	for key, why := range v.Table().NotJudged {
		if _, ok := p.Value(key); ok || why == "" {
			t.Errorf("not judged %s: still a profile key, or no reason given (%q)", key, why)
		}
	}
}

// TestEncodeProfileWritesOnlyWhatDiffers: without all, a map-valued key keeps
// only the entries that differ from the defaults, and the encoding decodes
// back to the same profile.
func TestEncodeProfileWritesOnlyWhatDiffers(t *testing.T) {
	v := newJudge(t)
	p, err := v.DecodeProfile([]byte(`{"refusals": {"forbidden": {"status": 404, "codes": ["NOT_FOUND"]}}, "create_status": 200}`))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := v.EncodeProfile(&out, p, false); err != nil {
		t.Fatal(err)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(out.Bytes(), &top); err != nil {
		t.Fatalf("EncodeProfile wrote %s: %v", out.Bytes(), err)
	}
	if len(top) != 2 {
		t.Errorf("EncodeProfile wrote keys %s, want create_status and refusals only", out.Bytes())
	}
	var kinds map[string]json.RawMessage
	if err := json.Unmarshal(top["refusals"], &kinds); err != nil || len(kinds) != 1 || kinds["forbidden"] == nil {
		t.Errorf("refusals written as %s, want only the forbidden entry", top["refusals"])
	}
	back, err := v.DecodeProfile(out.Bytes())
	if err != nil {
		t.Fatalf("DecodeProfile(EncodeProfile(p)): %v", err)
	}
	if diff := v.ProfileDifferences(back); len(diff) != len(v.ProfileDifferences(p)) {
		t.Errorf("round trip: %v, want %v", diff, v.ProfileDifferences(p))
	}
}
