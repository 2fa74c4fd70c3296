package validate

import (
	"strconv"
	"strings"
)

// instanceAt resolves a JSON pointer in a decoded document; nil if nothing is there.
func instanceAt(doc any, ptr string) any {
	if ptr == "" {
		return doc
	}
	segs := strings.Split(strings.TrimPrefix(ptr, "/"), "/")
	for i, seg := range segs {
		segs[i] = unescape(seg)
	}
	v, _ := walk(doc, segs)
	return v
}

// FieldAt returns the value at a dotted path ("_links.self.href",
// "_embedded.errors.0.code") in a decoded JSON document: object keys, and
// array indexes as decimal numbers. "" and "." name the document itself.
func FieldAt(doc any, path string) (any, bool) {
	if path == "" || path == "." {
		return doc, true
	}
	return walk(doc, strings.Split(path, "."))
}

// walk follows keys through objects and indexes through arrays.
func walk(doc any, segs []string) (any, bool) {
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

func escape(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

func unescape(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
}
