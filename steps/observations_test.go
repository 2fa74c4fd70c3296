package steps

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/conform-kit/conform/validate/judging"
)

// TestWrittenRefusalsCoverEveryObservation: a kind of which one refusal
// differed is written as all its refusals showed it: every code, every
// status (the most seen first), an operation answering with a status no
// other used in its own form; a kind that kept its form is not written.
func TestWrittenRefusalsCoverEveryObservation(t *testing.T) {
	jd, err := judging.Default()
	require.NoError(t, err)
	seen := []RefusalSeen{
		{Kind: "unprocessable", Operation: "authorizations.capture", Status: 409, Codes: []string{"ALREADY_CAPTURED"}},
		{Kind: "unprocessable", Operation: "transfers.create", Status: 409, Codes: []string{"IDEMPOTENCY_REUSED"}},
		{Kind: "unprocessable", Operation: "authorizations.capture", Status: 409, Codes: []string{"ALREADY_CAPTURED"}},
		{Kind: "invalid_field", Operation: "transfers.create", Status: 400, Codes: []string{"VALIDATION_ERROR"}},
		{Kind: "invalid_field", Operation: "transfers.create", Status: 400, Codes: []string{"INVALID_AMOUNT"}},
		{Kind: "invalid_field", Operation: "webhooks.create", Status: 400, Codes: []string{"VALIDATION_ERROR"}},
		{Kind: "invalid_field", Operation: "webhooks.create", Status: 422, Codes: []string{"VALIDATION_ERROR"}},
		{Kind: "not_found", Operation: "files.get", Status: 404, Codes: []string{"NOT_FOUND"}},
		{Kind: "not_found", Operation: "webhooks.get", Status: 404, Codes: []string{"NOT_FOUND"}},
		{Kind: "not_found", Operation: "files.external_upload", Status: 401, Codes: []string{"UNKNOWN"}},
		{Kind: "forbidden", Operation: "merchants.update", Status: 403, Codes: []string{"FORBIDDEN"}},
	}
	seen = append(seen,
		RefusalSeen{Kind: "not_acceptable", Operation: "webhooks.create", Status: 415, Codes: []string{"UNSUPPORTED_MEDIA_TYPE"}},
		RefusalSeen{Kind: "not_acceptable", Operation: "webhooks.list", Status: 406, Codes: []string{"NOT_ACCEPTABLE"}})
	p := jd.DefaultProfile()
	once := observedRefusals(&p, seen)
	assert.Equal(t, "406|415 NOT_ACCEPTABLE|UNSUPPORTED_MEDIA_TYPE", p.Refusal("not_acceptable").String(),
		"operations that all differ from each other share one form of the kind")
	assert.Empty(t, p.Refusal("not_acceptable").Operations)

	assert.Equal(t, "409 ALREADY_CAPTURED|IDEMPOTENCY_REUSED", p.Refusal("unprocessable").String(), "every code of the kind")
	assert.Equal(t, "400|422 INVALID_AMOUNT|VALIDATION_ERROR", p.Refusal("invalid_field").String(), "every status, the most seen first")
	assert.Equal(t, "404 NOT_FOUND", p.RefusalFor("not_found", "files.get").String(), "the kind keeps the status the other operations use")
	assert.Equal(t, "401 UNKNOWN", p.RefusalFor("not_found", "files.external_upload").String(), "the upload link answers 401 before 404")
	assert.Equal(t, jd.DefaultProfile().Refusal("forbidden"), p.Refusal("forbidden"), "a kind that kept its form is not rewritten")
	assert.Equal(t, []string{"refusals.invalid_field", "refusals.not_acceptable", "refusals.not_found", "refusals.unprocessable"}, once, "what a single refusal shows is marked")

	var out bytes.Buffer
	require.NoError(t, WriteProfile(&out, Summary{Profile: jd.DefaultProfile(), Observed: Observed{Refusals: seen}}))
	back, err := jd.DecodeProfile(out.Bytes())
	require.NoError(t, err, "the written profile reads back: %s", out.String())
	for _, r := range seen {
		f := back.RefusalFor(r.Kind, r.Operation)
		assert.True(t, f.StatusMatches(r.Status) && f.CodeMatches(r.Codes), "the written profile covers %+v: %s", r, out.String())
	}
	var obj map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(out.Bytes(), &obj))
	assert.NotContains(t, obj, "create_status", "defaults are left out")
	assert.Contains(t, obj, "observed_once")
}

// TestFieldNamedInEveryForm: an error item's field name is read in the
// declared form, and the form and member of a name in another are found.
func TestFieldNamedInEveryForm(t *testing.T) {
	const ptr = "/additional_purchase_data/item_data/0/quantity"
	for _, tc := range []struct {
		form, name string
		named      bool
	}{
		{judging.FieldFormPointer, ptr, true},
		{judging.FieldFormPointer, "quantity", true},
		{judging.FieldFormPointer, "additional_purchase_data.item_data.0.quantity", false},
		{judging.FieldFormDotted, "additional_purchase_data.item_data.0.quantity", true},
		{judging.FieldFormDotted, "additional_purchase_data.item_data[0].quantity", true},
		{judging.FieldFormDotted, "item_data[0].quantity", true},
		{judging.FieldFormDotted, "additional_purchase_data.item_data.1.quantity", false},
		{judging.FieldFormBare, "quantity", true},
		{judging.FieldFormBare, "amount", false},
		{judging.FieldFormNone, "", true},
	} {
		assert.Equal(t, tc.named, fieldNamed(tc.form, tc.name, ptr), "%s %q", tc.form, tc.name)
	}
	doc := decodeJSON([]byte(`{"total": 1, "_embedded": {"errors": [{"code": "VALIDATION_ERROR", "message": "too many",
		"path": "additional_purchase_data.item_data[0].quantity"}]}}`))
	member, form, ok := fieldFormOf(doc, ptr)
	require.True(t, ok, "the dotted name in its own member is found")
	assert.Equal(t, "path", member)
	assert.Equal(t, judging.FieldFormDotted, form)
	_, _, ok = fieldFormOf(doc, "/amount")
	assert.False(t, ok, "an item naming another field names no form of this one")
}

// TestObservedOnceNamesOnlyWrittenKeys: a key observed once but written at
// its default is not marked; an entry of a map-valued key is marked by its
// whole name.
func TestObservedOnceNamesOnlyWrittenKeys(t *testing.T) {
	jd, err := judging.Default()
	require.NoError(t, err)
	p := jd.DefaultProfile()
	p.ListMaxLimit = 250
	p.OperationRoles = map[string][]string{"payment_instruments.create": {"ROLE_PLATFORM"}}
	got := writtenOnly(jd, p, []string{"list_max_limit", "list_over_max", "operation_roles.payment_instruments.create", "refusals.not_found"})
	assert.Equal(t, []string{"list_max_limit", "operation_roles.payment_instruments.create"}, got)
}
