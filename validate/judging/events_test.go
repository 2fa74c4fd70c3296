package judging_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/conform-kit/conform/validate/judging"
)

// eventDoc decodes an event body of a test.
func eventDoc(t *testing.T, body string) any {
	t.Helper()
	var doc any
	require.NoError(t, json.Unmarshal([]byte(body), &doc))
	return doc
}

// TestInferEventFields: the places of the type and the resource are read
// from one delivery, whatever the layout, and a delivery that does not carry
// the type it was sent for gives none.
func TestInferEventFields(t *testing.T) {
	tests := []struct {
		name, body, entity, typ string
		want                    map[string]string // nil: none
	}{
		{
			"entity and type in one name", `{"event": "transfer.created", "data": {"id": "TR1", "state": "SUCCEEDED"}}`, "transfer", "created",
			map[string]string{"type": "/event", "type_form": "{entity}.{type}", "entity": "", "resource": "/data"},
		},
		{
			"upper case, type first", `{"kind": "CREATED_TRANSFER", "payload": {"object": {"id": "TR1"}}}`, "transfer", "created",
			map[string]string{"type": "/kind", "type_form": "{type}_{entity}", "entity": "", "resource": "/payload/object"},
		},
		{
			"entity apart, resource under its name", `{"type": "updated", "object_type": "file", "data": {"file": {"id": "FILE_1", "status": "UPLOADED"}}}`, "file", "updated",
			map[string]string{"type": "/type", "type_form": "{type}", "entity": "/object_type", "resource": "/data/{entity}"},
		},
		{
			"the embedded layout", `{"id": "EV1", "type": "created", "entity": "authorization", "_embedded": {"authorizations": [{"id": "AU1"}]}}`, "authorization", "created",
			map[string]string{"type": "/type", "type_form": "{type}", "entity": "/entity", "resource": "/_embedded/authorizations/0"},
		},
		{"another type", `{"event": "transfer.updated", "data": {"id": "TR1"}}`, "transfer", "created", nil},
		{"no resource", `{"event": "transfer.created", "data": {"id": "TR2"}}`, "transfer", "created", nil},
		{"the type only inside the resource", `{"data": {"id": "TR1", "type": "created"}}`, "transfer", "created", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id := map[string]string{"transfer": "TR1", "file": "FILE_1", "authorization": "AU1"}[tt.entity]
			got, ok := judging.InferEventFields(eventDoc(t, tt.body), tt.entity, tt.typ, id)
			if tt.want == nil {
				assert.False(t, ok, "inferred %v", got)
				return
			}
			require.True(t, ok)
			assert.Equal(t, tt.want, got)
		})
	}
}

// TestEventMismatch: an event is judged at the declared fields: the
// resource's id, the type in its form (any case) and the entity.
func TestEventMismatch(t *testing.T) {
	v := newJudge(t)
	declared, err := v.DecodeProfile([]byte(`{"event_layout": "fields", "event_fields": {"type": "/event", "type_form": "{entity}.{type}", "entity": "", "resource": "/data"}}`))
	require.NoError(t, err)
	def := v.DefaultProfile()
	tests := []struct {
		name    string
		p       judging.Profile
		body    string
		entity  string
		typ, id string
		wants   string // "" when it is the event
	}{
		{"declared", declared, `{"event": "transfer.created", "data": {"id": "TR1"}}`, "transfer", "created", "TR1", ""},
		{"declared, other case", declared, `{"event": "Transfer.Created", "data": {"id": "TR1"}}`, "transfer", "created", "TR1", ""},
		{"wrong type", declared, `{"event": "transfer.updated", "data": {"id": "TR1"}}`, "transfer", "created", "TR1", `type "transfer.updated" at /event, want "transfer.created"`},
		{"wrong entity", declared, `{"event": "authorization.created", "data": {"id": "TR1"}}`, "transfer", "created", "TR1", `want "transfer.created"`},
		{"no type", declared, `{"data": {"id": "TR1"}}`, "transfer", "created", "TR1", "type none at /event"},
		{"another resource", declared, `{"event": "transfer.created", "data": {"id": "TR2"}}`, "transfer", "created", "TR1", "no resource with id TR1 at /data"},
		{"the defaults are the embedded layout", def, `{"id": "EV1", "type": "updated", "entity": "file", "_embedded": {"files": [{"id": "FILE_1"}]}}`, "file", "updated", "FILE_1", ""},
		{"the defaults: entity", def, `{"id": "EV1", "type": "updated", "entity": "transfer", "_embedded": {"files": [{"id": "FILE_1"}]}}`, "file", "updated", "FILE_1", `entity "transfer" at /entity`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.p.EventMismatch(eventDoc(t, tt.body), tt.entity, tt.typ, tt.id)
			if tt.wants == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.True(t, errors.Is(err, judging.ErrEventFields))
			assert.Contains(t, err.Error(), tt.wants)
		})
	}
}
