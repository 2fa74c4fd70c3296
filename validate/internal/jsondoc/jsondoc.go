// Package jsondoc reads documents decoded by encoding/json with UseNumber
// (maps, slices, json.Number, strings, bools and nil): values at JSON
// pointers and dotted paths, and the JSON type of a value. The library's
// violations and the kit's deviations read documents the same way.
package jsondoc

import (
	"encoding/json"
	"strconv"
	"strings"
)

// At resolves a JSON pointer ("/a/0/b~1c") in a decoded document.
func At(doc any, ptr string) (any, bool) {
	if ptr == "" {
		return doc, true
	}
	segs := strings.Split(strings.TrimPrefix(ptr, "/"), "/")
	for i, seg := range segs {
		segs[i] = Unescape(seg)
	}
	return Walk(doc, segs)
}

// Walk follows keys through objects and decimal indexes through arrays.
func Walk(doc any, segs []string) (any, bool) {
	cur := doc
	for _, seg := range segs {
		switch c := cur.(type) {
		case map[string]any:
			v, ok := c[seg]
			if !ok {
				return nil, false
			}
			cur = v
		case []any:
			i, err := strconv.Atoi(seg)
			if err != nil || i < 0 || i >= len(c) {
				return nil, false
			}
			cur = c[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

// Escape escapes one pointer segment ("~" → "~0", "/" → "~1").
func Escape(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// Unescape undoes Escape.
func Unescape(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
}

// Type names the JSON type of a decoded value ("object", "number", ...).
func Type(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case json.Number, float64:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return "unknown"
}
