package judging

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/conform-kit/conform/validate/internal/jsondoc"
)

// The entries of the event_fields profile key: where an event of the
// fields layout carries its type and its resource.
const (
	EventFieldType     = "type"      // JSON pointer to the event type (a string)
	EventFieldTypeForm = "type_form" // how the type reads: {type} (created, updated), {entity} (transfer, authorization, file)
	EventFieldEntity   = "entity"    // JSON pointer to the entity name; "" when the type form names it, or nothing does
	EventFieldResource = "resource"  // JSON pointer to the resource object (its id at <resource>/id)
)

// ErrEventFields is wrapped by every error of EventMismatch: the delivery is
// not an event of the declared fields.
var ErrEventFields = errors.New("judging: event fields")

// eventFieldNames are the entries event_fields may hold.
var eventFieldNames = []string{EventFieldType, EventFieldTypeForm, EventFieldEntity, EventFieldResource}

// checkEventFields checks a declared event_fields: only known entries, the
// pointers JSON pointers ("" or starting with "/"), type and resource
// present, the type form naming {type}.
func checkEventFields(f map[string]string) error {
	for _, name := range slices.Sorted(maps.Keys(f)) {
		if !slices.Contains(eventFieldNames, name) {
			return fmt.Errorf("unknown entry %q (known: %s)", name, strings.Join(eventFieldNames, ", "))
		}
	}
	for _, name := range []string{EventFieldType, EventFieldEntity, EventFieldResource} {
		if v := f[name]; v != "" && !strings.HasPrefix(v, "/") {
			return fmt.Errorf("%s: %q is not a JSON pointer (\"/a/b\")", name, v)
		}
	}
	if f[EventFieldType] == "" || f[EventFieldResource] == "" {
		return errors.New("type and resource name where the event carries them")
	}
	if !strings.Contains(f[EventFieldTypeForm], "{type}") {
		return fmt.Errorf("type_form: %q does not name {type}", f[EventFieldTypeForm])
	}
	return nil
}

// eventPointer is ptr with {entity} replaced by entity.
func eventPointer(ptr, entity string) string {
	return strings.ReplaceAll(ptr, "{entity}", jsondoc.Escape(entity))
}

// EventMismatch reports how a decoded event delivery differs from an event
// of type typ (created, updated) of the entity's resource id, read at the
// profile's event_fields; nil when it is one. The type and entity compare
// without regard to case. An error wraps ErrEventFields.
func (p Profile) EventMismatch(doc any, entity, typ, id string) error {
	f := p.EventFields
	res, _ := jsondoc.At(doc, eventPointer(f[EventFieldResource], entity))
	obj, _ := res.(map[string]any)
	if got, _ := obj["id"].(string); got != id {
		return fmt.Errorf("%w: no resource with id %s at %s", ErrEventFields, id, f[EventFieldResource])
	}
	want := strings.NewReplacer("{entity}", entity, "{type}", typ).Replace(f[EventFieldTypeForm])
	if got, _ := jsondoc.At(doc, f[EventFieldType]); !equalString(got, want) {
		return fmt.Errorf("%w: type %s at %s, want %q", ErrEventFields, renderValue(got), f[EventFieldType], want)
	}
	if ptr := f[EventFieldEntity]; ptr != "" {
		if got, _ := jsondoc.At(doc, ptr); !equalString(got, entity) {
			return fmt.Errorf("%w: entity %s at %s, want %q", ErrEventFields, renderValue(got), ptr, entity)
		}
	}
	return nil
}

// EventResource is the resource object of a decoded event at the profile's
// event_fields (nil when none is there).
func (p Profile) EventResource(doc any, entity string) map[string]any {
	res, _ := jsondoc.At(doc, eventPointer(p.EventFields[EventFieldResource], entity))
	obj, _ := res.(map[string]any)
	return obj
}

func equalString(v any, want string) bool {
	s, ok := v.(string)
	return ok && strings.EqualFold(s, want)
}

func renderValue(v any) string {
	if v == nil {
		return "none"
	}
	return fmt.Sprintf("%q", fmt.Sprint(v))
}

// InferEventFields reads, from one decoded event delivery of type typ of
// the entity's resource id, where the event carries them: the shallowest
// object whose id is id (the resource), the shallowest string outside it
// that reads as the type (alone, or with the entity name around it: the
// type form), and, when the type form does not name the entity, the
// shallowest string that is the entity name. A pointer segment that is the
// entity name is written {entity}, so events of every entity share one
// declaration. false when the delivery carries no such resource or type.
func InferEventFields(doc any, entity, typ, id string) (map[string]string, bool) {
	var nodes []eventNode
	walkEvent(doc, "", &nodes)
	resource := ""
	found := false
	for _, n := range nodes {
		if obj, ok := n.v.(map[string]any); ok && obj["id"] == id {
			resource, found = n.ptr, true
			break
		}
	}
	if !found || resource == "" {
		return nil, false
	}
	outside := func(ptr string) bool { return ptr != resource && !strings.HasPrefix(ptr, resource+"/") }
	f := map[string]string{EventFieldResource: generalize(resource, entity), EventFieldEntity: ""}
	for _, n := range nodes {
		s, ok := n.v.(string)
		if !ok || !outside(n.ptr) {
			continue
		}
		if form, ok := typeForm(s, entity, typ); ok {
			f[EventFieldType], f[EventFieldTypeForm] = n.ptr, form
			break
		}
	}
	if f[EventFieldType] == "" {
		return nil, false
	}
	if !strings.Contains(f[EventFieldTypeForm], "{entity}") {
		for _, n := range nodes {
			if s, ok := n.v.(string); ok && outside(n.ptr) && n.ptr != f[EventFieldType] && strings.EqualFold(s, entity) {
				f[EventFieldEntity] = n.ptr
				break
			}
		}
	}
	return f, true
}

// eventNode is a value of an event and its JSON pointer.
type eventNode struct {
	ptr string
	v   any
}

// walkEvent lists the values of doc breadth first: shallower first, then
// in pointer order.
func walkEvent(doc any, ptr string, out *[]eventNode) {
	level := []eventNode{{ptr: ptr, v: doc}}
	for depth := 0; len(level) > 0 && depth < 16; depth++ {
		slices.SortFunc(level, func(a, b eventNode) int { return strings.Compare(a.ptr, b.ptr) })
		var next []eventNode
		for _, n := range level {
			*out = append(*out, n)
			switch v := n.v.(type) {
			case map[string]any:
				for k, c := range v {
					next = append(next, eventNode{ptr: n.ptr + "/" + jsondoc.Escape(k), v: c})
				}
			case []any:
				for i, c := range v {
					next = append(next, eventNode{ptr: fmt.Sprintf("%s/%d", n.ptr, i), v: c})
				}
			}
		}
		level = next
	}
}

// generalize writes a pointer segment that is the entity name as {entity}.
func generalize(ptr, entity string) string {
	segs := strings.Split(ptr, "/")
	for i, s := range segs {
		if i > 0 && strings.EqualFold(jsondoc.Unescape(s), entity) {
			segs[i] = "{entity}"
		}
	}
	return strings.Join(segs, "/")
}

// typeForm reads s as the event type typ, alone or with the entity name:
// "created" is {type}, "transfer.created" {entity}.{type}.
func typeForm(s, entity, typ string) (string, bool) {
	lower := strings.ToLower(s)
	if lower == typ {
		return "{type}", true
	}
	e, t := strings.Index(lower, entity), strings.LastIndex(lower, typ)
	if e < 0 || t < 0 {
		return "", false
	}
	switch {
	case e+len(entity) <= t:
		return s[:e] + "{entity}" + s[e+len(entity):t] + "{type}" + s[t+len(typ):], true
	case t+len(typ) <= e:
		return s[:t] + "{type}" + s[t+len(typ):e] + "{entity}" + s[e+len(entity):], true
	}
	return "", false
}
