package judging_test

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/conform-kit/conform/validate/judging"
)

// realServer is a profile of a server that differs as real ones do: a kind
// answered with several statuses and codes, one operation answering a kind
// otherwise, fields named by dotted paths in their own member, an Accept
// naming no JSON type ignored.
const realServer = `{
  "refusals": {
    "unprocessable": {"status": 409, "codes": ["ALREADY_CAPTURED", "IDEMPOTENCY_REUSED", "AMOUNT_UPDATED"]},
    "invalid_field": {"status": [400, 422], "codes": ["VALIDATION_ERROR", "INVALID_AMOUNT"]},
    "not_found": {"operations": {"files.external_upload": {"status": 401}}}
  },
  "error_field_form": "dotted",
  "error_field_member": "path",
  "accept_unserved": "ignore",
  "observed_once": ["list_max_limit"]
}`

// TestProfileSaysWhatRealServersDo: every form of realServer decodes to the
// accessors the suite judges by, and encodes back to the same profile
// without the defaults.
func TestProfileSaysWhatRealServersDo(t *testing.T) {
	j := newJudge(t)
	p, err := j.DecodeProfile([]byte(realServer))
	require.NoError(t, err, "DecodeProfile")

	up := p.Refusal(judging.RefusalUnprocessable)
	assert.True(t, up.StatusMatches(409), "unprocessable takes 409")
	assert.False(t, up.StatusMatches(422), "unprocessable replaced 422")
	assert.True(t, up.CodeMatches([]string{"AMOUNT_UPDATED"}), "every declared code matches")
	assert.False(t, up.CodeMatches([]string{"UNPROCESSABLE_ENTITY"}), "the default code is replaced")

	inv := p.Refusal(judging.RefusalInvalidField)
	assert.Equal(t, []int{400, 422}, inv.Statuses(), "a list of statuses")
	assert.Equal(t, "400|422 VALIDATION_ERROR|INVALID_AMOUNT", inv.String())

	nf := p.RefusalFor(judging.RefusalNotFound, "files.external_upload")
	assert.Equal(t, []int{401}, nf.Statuses(), "the operation's status replaces the kind's")
	assert.Equal(t, []string{"NOT_FOUND"}, nf.Codes, "the operation keeps the kind's codes when it names none")
	assert.Equal(t, "404 NOT_FOUND", p.RefusalFor(judging.RefusalNotFound, "files.get").String(), "other operations keep the kind's form")
	assert.Empty(t, p.RefusalFor(judging.RefusalNotFound, "files.external_upload").Operations, "an operation's form has no operations")

	assert.Equal(t, judging.FieldFormDotted, p.ErrorFieldForm)
	assert.Equal(t, "path", p.ErrorFieldMember)
	assert.Equal(t, judging.AcceptIgnore, p.AcceptUnserved)
	assert.Equal(t, []string{"list_max_limit"}, p.ObservedOnce)

	var out bytes.Buffer
	require.NoError(t, j.EncodeProfile(&out, p, false))
	again, err := j.DecodeProfile(out.Bytes())
	require.NoError(t, err, "DecodeProfile of the encoded profile %s", out.String())
	assert.Equal(t, p, again, "encode and decode round trip: %s", out.String())
	assert.NotContains(t, out.String(), `"malformed"`, "kinds at their defaults are left out")
	assert.NotContains(t, out.String(), `"create_status"`, "keys at their defaults are left out")
	assert.Contains(t, out.String(), `"status": [`, "several statuses are a list")

	d := j.DefaultProfile()
	assert.Equal(t, judging.FieldFormPointer, d.ErrorFieldForm, "the reference names fields by JSON pointer")
	assert.Equal(t, "field", d.ErrorFieldMember)
	assert.Equal(t, judging.AcceptRefuse, d.AcceptUnserved)
	assert.Empty(t, d.ObservedOnce)
}

// TestProfileFormsRefuseWhatCannotBe: a form the kit cannot judge by is
// refused with an error wrapping ErrProfile that names where.
func TestProfileFormsRefuseWhatCannotBe(t *testing.T) {
	j := newJudge(t)
	for _, tc := range []struct{ name, profile, names string }{
		{"a 2xx among the statuses", `{"refusals": {"not_found": {"status": [404, 200]}}}`, "status 200"},
		{"an empty list of statuses", `{"refusals": {"not_found": {"status": []}}}`, "status"},
		{"an unknown member of a form", `{"refusals": {"not_found": {"statuses": [404]}}}`, "statuses"},
		{"an operation that does not exist", `{"refusals": {"not_found": {"operations": {"files.nope": {"status": 401}}}}}`, "files.nope"},
		{"a 5xx for an operation", `{"refusals": {"not_found": {"operations": {"files.get": {"status": 500}}}}}`, "status 500"},
		{"operations within an operation", `{"refusals": {"not_found": {"operations": {"files.get": {"operations": {"files.get": {"status": 401}}}}}}}`, "no operations of its own"},
		{"an unknown field form", `{"error_field_form": "dots"}`, "pointer, dotted, bare, none"},
		{"an empty field member", `{"error_field_member": ""}`, "empty member"},
		{"an unknown Accept choice", `{"accept_unserved": "406"}`, "refuse, ignore"},
	} {
		_, err := j.DecodeProfile([]byte(tc.profile))
		require.Error(t, err, tc.name)
		assert.ErrorIs(t, err, judging.ErrProfile, tc.name)
		assert.Contains(t, err.Error(), tc.names, tc.name)
	}
}

// TestRefusalFormMergesOverTheKind: a profile giving part of a form keeps
// the rest, and per-operation forms merge by operation.
func TestRefusalFormMergesOverTheKind(t *testing.T) {
	j := newJudge(t)
	p, err := j.DecodeProfile([]byte(`{"refusals": {"not_found": {"operations": {"files.external_upload": {"status": 401, "codes": ["UNAUTHORIZED"]}}}}}`))
	require.NoError(t, err)
	p, err = j.MergeProfile(p, []byte(`{"refusals": {"not_found": {"codes": ["NOT_FOUND", "MISSING"], "operations": {"files.get": {"codes": []}}}}}`))
	require.NoError(t, err)
	nf := p.Refusal(judging.RefusalNotFound)
	assert.Equal(t, []int{404}, nf.Statuses(), "status kept")
	assert.Equal(t, []string{"NOT_FOUND", "MISSING"}, nf.Codes, "codes replaced")
	assert.Equal(t, "401 UNAUTHORIZED", p.RefusalFor(judging.RefusalNotFound, "files.external_upload").String(), "an earlier operation's form kept")
	assert.Equal(t, "404 any code", p.RefusalFor(judging.RefusalNotFound, "files.get").String(), "an operation's [] accepts any code")
}

// TestEveryProfileKeyHasAnExample: every key of the table shows an example
// (conform profile show prints it) that is a valid value of the key and
// not its default.
func TestEveryProfileKeyHasAnExample(t *testing.T) {
	j := newJudge(t)
	def := j.DefaultProfile()
	for _, k := range j.Table().Profile {
		require.NotEmpty(t, k.Example, "%s has no example", k.Key)
		p, err := j.DecodeProfile([]byte(`{"` + k.Key + `": ` + string(k.Example) + `}`))
		require.NoError(t, err, "the example of %s", k.Key)
		got, _ := p.Value(k.Key)
		was, _ := def.Value(k.Key)
		assert.NotEqual(t, string(was), string(got), "the example of %s is its default", k.Key)
	}
}
