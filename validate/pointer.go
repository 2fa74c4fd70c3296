package validate

import (
	"strings"

	"github.com/conform-kit/conform/validate/internal/jsondoc"
)

// instanceAt resolves a JSON pointer in a decoded document; nil if nothing is there.
func instanceAt(doc any, ptr string) any {
	v, _ := jsondoc.At(doc, ptr)
	return v
}

// FieldAt returns the value at a dotted path ("_links.self.href",
// "_embedded.errors.0.code") in a decoded JSON document: object keys, and
// array indexes as decimal numbers. "" and "." name the document itself.
func FieldAt(doc any, path string) (any, bool) {
	if path == "" || path == "." {
		return doc, true
	}
	return jsondoc.Walk(doc, strings.Split(path, "."))
}
