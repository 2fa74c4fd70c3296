package explore

import (
	"github.com/conform-kit/conform/validate"

	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Documents: reading, comparing and rendering decoded JSON answers.

func allDigits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != ""
}

// walkValues calls fn with every leaf of a document and its dotted path.
func walkValues(doc any, prefix string, fn func(string, any)) {
	switch d := doc.(type) {
	case map[string]any:
		for k, v := range d {
			p := k
			if prefix != "" {
				p = prefix + "." + k
			}
			walkValues(v, p, fn)
		}
	case []any:
		for i, v := range d {
			walkValues(v, prefix+"."+strconv.Itoa(i), fn)
		}
	default:
		fn(prefix, d)
	}
}

// lookup reads a dotted path ("address.line1", "_embedded.webhooks") as
// the suite's response field steps do.
func lookup(doc any, p string) (any, bool) { return validate.FieldAt(doc, p) }

func lookupInt(doc any, p string) (int64, bool) {
	v, ok := lookup(doc, p)
	if !ok {
		return 0, false
	}
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	i, err := n.Int64()
	return i, err == nil
}

// matches compares an expected value with what a response shows.
func matches(want, got any, present bool) bool {
	switch w := want.(type) {
	case notNull:
		return present && got != nil
	case nil:
		return present && got == nil
	case int64:
		n, ok := got.(json.Number)
		if !ok {
			return false
		}
		i, err := n.Int64()
		return err == nil && i == w && !strings.ContainsAny(n.String(), ".eE")
	case string:
		s, ok := got.(string)
		return ok && s == w
	case bool:
		b, ok := got.(bool)
		return ok && b == w
	}
	return false
}

func sameValue(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

func render(v any) string {
	switch v.(type) {
	case notNull:
		return "a value"
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

func renderOK(v any, ok bool) string {
	if !ok {
		return "absent"
	}
	return render(v)
}

// fieldAssert is the suite step stating a field's value.
func fieldAssert(p string, v any) string {
	switch w := v.(type) {
	case notNull:
		return fmt.Sprintf("the response field %q is present", p)
	case nil:
		return fmt.Sprintf("the response field %q is null", p)
	case string:
		return fmt.Sprintf("the response field %q is %q", p, w)
	case int64:
		return fmt.Sprintf("the response field %q is %d", p, w)
	case bool:
		return fmt.Sprintf("the response field %q is %t", p, w)
	case json.Number:
		return fmt.Sprintf("the response field %q is %s", p, w)
	}
	return fmt.Sprintf("the response field %q is present", p)
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// refusalNames reports whether an error envelope's items name the field
// (in a field member, a pointer, a dotted path or the message).
func refusalNames(doc any, field string) bool {
	if field == "" {
		return false
	}
	errs, _ := lookup(doc, "_embedded.errors")
	named := false
	walkValues(errs, "", func(_ string, v any) {
		if s, ok := v.(string); ok && strings.Contains(s, field) {
			named = true
		}
	})
	return named
}
