package judging_test

import (
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/conform-kit/conform/validate"
	"github.com/conform-kit/conform/validate/judging"
)

// fixtureWith reads a valid fixture and sets top-level or nested members
// ("processor_details/api_key"); a nil value deletes the member.
func fixtureWith(t *testing.T, path string, edits map[string]any) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	for ptr, val := range edits {
		obj := doc
		segs := strings.Split(ptr, "/")
		for _, s := range segs[:len(segs)-1] {
			obj = obj[s].(map[string]any)
		}
		if val == nil {
			delete(obj, segs[len(segs)-1])
		} else {
			obj[segs[len(segs)-1]] = val
		}
	}
	out, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestAssumedFollowsTheProfile: each assumed form deviates under the
// reference's profile and passes under a profile that declares it.
func TestAssumedFollowsTheProfile(t *testing.T) {
	v := newJudge(t)
	const ms = `"timestamp_precision": 3` // the fixtures' timestamps carry milliseconds
	base58 := "gJqPfXwRz5nVd8yHmKcTb"     // 21 characters
	tests := []struct {
		name    string
		schema  string
		fixture string
		edits   map[string]any
		profile string
		want    []judging.Deviation
	}{
		{"reference forms", "transfer", "transfer/valid/full.json", nil, `{` + ms + `}`, nil},
		{"timestamps of another precision", "transfer", "transfer/valid/full.json", nil, `{}`, []judging.Deviation{
			{Key: "timestamp_precision", Pointer: "/created_at", Expected: "6 fractional digits", Observed: "3 fractional digits"},
			{Key: "timestamp_precision", Pointer: "/updated_at", Expected: "6 fractional digits", Observed: "3 fractional digits"},
		}},
		{"id of 21 characters", "transfer", "transfer/valid/full.json", map[string]any{"id": "TR" + base58}, `{` + ms + `}`, []judging.Deviation{
			{Key: "id_form", Pointer: "/id", Expected: "[0-9A-Za-z]{22}", Observed: "21 characters of [0-9A-Za-z]"},
		}},
		{"id of a declared form", "transfer", "transfer/valid/full.json", map[string]any{"id": "TR" + base58},
			`{` + ms + `, "id_form": "[0-9A-Za-z]{21,22}"}`, nil},
		{"ids of another declared form", "transfer", "transfer/valid/full.json", nil,
			`{` + ms + `, "id_form": "[1-9A-HJ-NP-Za-km-z]{21,22}"}`, []judging.Deviation{
				{Key: "id_form", Pointer: "/application", Expected: "[1-9A-HJ-NP-Za-km-z]{21,22}", Observed: "22 characters of [0-9a-z]"},
				{Key: "id_form", Pointer: "/id", Expected: "[1-9A-HJ-NP-Za-km-z]{21,22}", Observed: "22 characters of [0-9a-z]"},
				{Key: "id_form", Pointer: "/merchant_identity", Expected: "[1-9A-HJ-NP-Za-km-z]{21,22}", Observed: "22 characters of [0-9a-z]"},
				{Key: "id_form", Pointer: "/source", Expected: "[1-9A-HJ-NP-Za-km-z]{21,22}", Observed: "22 characters of [0-9a-z]"},
			}},
		{"api key redacted otherwise", "merchant", "merchant/valid/full.json", map[string]any{"processor_details/api_key": "secretValue"}, `{` + ms + `}`, []judging.Deviation{
			{Key: "api_key_literal", Pointer: "/processor_details/api_key", Expected: `"<API_KEY>"`, Observed: "another value (11 characters, not shown)"},
		}},
		{"api key placeholder shown", "merchant", "merchant/valid/full.json", map[string]any{"processor_details/api_key": "<REDACTED>"}, `{` + ms + `}`, []judging.Deviation{
			{Key: "api_key_literal", Pointer: "/processor_details/api_key", Expected: `"<API_KEY>"`, Observed: `"<REDACTED>"`},
		}},
		{"api key literal not declared", "merchant", "merchant/valid/full.json", map[string]any{"processor_details/api_key": "secretValue"}, `{` + ms + `, "api_key_literal": ""}`, nil},
		{"file payload assumed as a whole", "external_link", "external_link/valid/full.json", map[string]any{"expired": "no"}, `{` + ms + `}`, []judging.Deviation{
			{Key: "file_payloads", Pointer: "/expired", Expected: "schema external_link: expected boolean, but got string", Observed: `"no"`},
		}},
		{"file payload unchecked", "external_link", "external_link/valid/full.json", map[string]any{"expired": "no", "id": "EL_x"}, `{` + ms + `, "file_payloads": "unchecked"}`, []judging.Deviation{
			{Key: "id_form", Pointer: "/id", Expected: "[0-9A-Za-z]{22}", Observed: "1 characters of [a-z]"},
		}},
		{"a list judges its items", "transfer_list", "transfer_list/valid/full.json", nil, `{}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := v.DecodeProfile([]byte(tt.profile))
			if err != nil {
				t.Fatal(err)
			}
			doc := fixtureWith(t, "../testdata/"+tt.fixture, tt.edits)
			got, err := v.Assumed(tt.schema, doc, p)
			if err != nil {
				t.Fatal(err)
			}
			if tt.name == "a list judges its items" {
				if len(got) == 0 || got[0].Key != "timestamp_precision" || !strings.HasPrefix(got[0].Pointer, "/_embedded/transfers/0/") {
					t.Errorf("Assumed(transfer_list) = %v, want the items' timestamps", got)
				}
				return
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Assumed(%s) =\n%v\nwant\n%v", tt.schema, got, tt.want)
			}
		})
	}
}

// TestValidateNormativeLeavesAssumedSchemasToAssumed: a file payload the
// spec does not show never fails; a resource the spec shows does.
func TestValidateNormativeLeavesAssumedSchemasToAssumed(t *testing.T) {
	v := newJudge(t)
	link := fixtureWith(t, "../testdata/external_link/valid/full.json", map[string]any{"expired": "no"})
	if err := v.ValidateNormative("external_link", link); err != nil {
		t.Errorf("ValidateNormative(external_link) = %v, want nil (assumed as a whole)", err)
	}
	if err := v.Validator().Validate("external_link", link); err == nil {
		t.Error("Validate(external_link) = nil, want the schema's violation")
	}
	transfer := fixtureWith(t, "../testdata/transfer/valid/full.json", map[string]any{"id": "XX1"})
	if err := v.ValidateNormative("transfer", transfer); err == nil {
		t.Error("ValidateNormative(transfer) with a foreign prefix = nil, want a violation")
	}
	if err := v.ValidateNormative("external_link", []byte("{")); !errors.Is(err, validate.ErrMalformed) {
		t.Errorf("ValidateNormative(malformed) = %v, want ErrMalformed", err)
	}
	if _, err := v.Assumed("nope", []byte("{}"), v.DefaultProfile()); !errors.Is(err, validate.ErrUnknownSchema) {
		t.Errorf("Assumed(nope) = %v, want ErrUnknownSchema", err)
	}
}

// TestNormativeIDsAndAssumedIDs: an id of the spec's prefix and any number
// of [0-9A-Za-z] is valid; only the assumed layer asks for 22, and it stays
// silent on ids that already break the spec.
func TestNormativeIDsAndAssumedIDs(t *testing.T) {
	v := newJudge(t)
	p, _ := v.DecodeProfile([]byte(`{"timestamp_precision": 3}`))
	for id, wantValid := range map[string]bool{
		"TR0123456789abcdefghijkl": true, "TRgJqPfXwRz5nVd8yHmKcTb": true, "TR1": true,
		"TR": false, "TR_1": false, "AU0123456789abcdefghijkl": false,
	} {
		doc := fixtureWith(t, "../testdata/transfer/valid/full.json", map[string]any{"id": id})
		if err := v.Validator().Validate("transfer", doc); (err == nil) != wantValid {
			t.Errorf("Validate(transfer, id %s) = %v, want valid %v", id, err, wantValid)
		}
		devs, err := v.Assumed("transfer", doc, p)
		if err != nil {
			t.Fatal(err)
		}
		if wantDev := wantValid && len(id) != 24; (len(devs) > 0) != wantDev {
			t.Errorf("Assumed(transfer, id %s) = %v, want a deviation %v", id, devs, wantDev)
		}
	}
}

// TestEveryOverlayCompiles: each overlay compiles, for the defaults and for
// a profile that changes every parameterised key, and finds nothing in a
// document that carries no fields.
func TestEveryOverlayCompiles(t *testing.T) {
	v := newJudge(t)
	other, err := v.DecodeProfile([]byte(`{"id_form": "[0-9a-f]{32}", "timestamp_precision": 0, "api_key_literal": "", "signing_key_form": "[A-Z]+", "file_payloads": "unchecked", "event_layout": "unchecked"}`))
	if err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir("../../schemas/assumed")
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) < 20 {
		t.Fatalf("%d overlays, want one per response schema with ids or timestamps", len(entries))
	}
	for _, e := range entries {
		name := strings.TrimSuffix(e.Name(), ".json")
		for _, p := range []judging.Profile{v.DefaultProfile(), other} {
			devs, err := v.Assumed(name, []byte(`{}`), p)
			if err != nil {
				t.Errorf("Assumed(%s, {}) = %v", name, err)
			}
			for _, d := range devs {
				if d.Key != "file_payloads" && d.Key != "event_layout" && d.Key != "extensions" {
					t.Errorf("Assumed(%s, {}) deviation %v, want none from the overlay", name, d)
				}
			}
		}
	}
}
