package steps

import (
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/conform-kit/conform/validate/judging"
)

// indexSegment is an index of a dotted path written in brackets ("items[0]").
var indexSegment = regexp.MustCompile(`\[(\d+)\]`)

// fieldPath turns a field name as an error item writes it, in a form of
// error_field_form, into a slash path without the leading slash
// ("/a/b/0/c", "a.b.0.c" and "a.b[0].c" are all "a/b/0/c").
func fieldPath(form, name string) string {
	switch form {
	case judging.FieldFormDotted:
		name = indexSegment.ReplaceAllString(name, ".$1")
		return strings.ReplaceAll(strings.TrimPrefix(name, "."), ".", "/")
	case judging.FieldFormBare:
		return name
	}
	return strings.TrimPrefix(name, "/")
}

// fieldNamed reports whether name, in form, names the field at pointer: the
// whole path, or its last names (an item may name the innermost field only).
func fieldNamed(form, name, pointer string) bool {
	if form == judging.FieldFormNone {
		return true
	}
	got, want := fieldPath(form, name), strings.TrimPrefix(pointer, "/")
	return got != "" && (got == want || strings.HasSuffix(want, "/"+got))
}

// fieldFormOf finds how the error items of doc name the field at pointer
// when they do not in the declared form and member: the member and the
// form of the first string member of an item that names it in some form
// (a JSON pointer, a dotted path, the bare name).
func fieldFormOf(doc any, pointer string) (member, form string, ok bool) {
	items, _ := lookup(doc, "_embedded.errors")
	list, _ := items.([]any)
	for _, it := range list {
		m, _ := it.(map[string]any)
		for _, k := range slices.Sorted(maps.Keys(m)) {
			name, isStr := m[k].(string)
			if !isStr || k == "code" || k == "message" {
				continue
			}
			switch {
			case strings.HasPrefix(name, "/") && fieldNamed(judging.FieldFormPointer, name, pointer):
				return k, judging.FieldFormPointer, true
			case strings.ContainsAny(name, ".[") && fieldNamed(judging.FieldFormDotted, name, pointer):
				return k, judging.FieldFormDotted, true
			case !strings.ContainsAny(name, "/.[ ") && fieldNamed(judging.FieldFormBare, name, pointer):
				return k, judging.FieldFormBare, true
			}
		}
	}
	return "", "", false
}

// namedFields are the fields the error items of a response name in the
// declared member, as dotted paths ("a.b.0.c").
func (s *scenario) namedFields(ex *exchange) []string {
	p := &s.suite.profile
	var out []string
	for _, n := range errorField(ex.doc, p.ErrorFieldMember) {
		out = append(out, strings.ReplaceAll(fieldPath(p.ErrorFieldForm, n), "/", "."))
	}
	return out
}
