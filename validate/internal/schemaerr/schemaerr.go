// Package schemaerr reads the failure trees of santhosh-tekuri/jsonschema:
// which keywords failed, choosing among anyOf and oneOf branches the ones a
// reader means. Both the library's violations and the kit's deviations
// explain failures from these leaves.
package schemaerr

import (
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// Leaves collects the failing keywords of the tree. For anyOf and oneOf it
// keeps only the branches closest to matching: branches that failed merely on
// the type of the value itself are dropped when another branch got further,
// then the branches with the fewest failures are kept.
func Leaves(ve *jsonschema.ValidationError) []*jsonschema.ValidationError {
	if len(ve.Causes) == 0 {
		return []*jsonschema.ValidationError{ve}
	}
	kw := LastSegment(ve.KeywordLocation)
	if kw != "anyOf" && kw != "oneOf" {
		var out []*jsonschema.ValidationError
		for _, c := range ve.Causes {
			out = append(out, Leaves(c)...)
		}
		return out
	}
	branches := make([][]*jsonschema.ValidationError, len(ve.Causes))
	typeOnly := make([]bool, len(ve.Causes))
	anyOther := false
	for i, c := range ve.Causes {
		branches[i] = Leaves(c)
		typeOnly[i] = true
		for _, l := range branches[i] {
			if LastSegment(l.KeywordLocation) != "type" || l.InstanceLocation != ve.InstanceLocation {
				typeOnly[i] = false
			}
		}
		anyOther = anyOther || !typeOnly[i]
	}
	fewest := -1
	for i, b := range branches {
		if anyOther && typeOnly[i] {
			continue
		}
		if fewest < 0 || len(b) < fewest {
			fewest = len(b)
		}
	}
	var out []*jsonschema.ValidationError
	for i, b := range branches {
		if (anyOther && typeOnly[i]) || len(b) != fewest {
			continue
		}
		out = append(out, b...)
	}
	return out
}

// LastSegment is the last segment of a keyword location ("anyOf").
func LastSegment(loc string) string {
	return loc[strings.LastIndexByte(loc, '/')+1:]
}
