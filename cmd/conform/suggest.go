package main

import (
	"fmt"
	"sort"
	"strings"

	"github.com/conform-kit/conform/reference/faults"
)

// nearestNames are up to n candidates nearest s by edit distance (case
// ignored), nearest first, each near enough to be a slip.
func nearestNames(s string, candidates []string, n int) []string {
	type scored struct {
		name string
		d    int
	}
	var near []scored
	for _, c := range candidates {
		if d := editDistance(strings.ToLower(s), strings.ToLower(c)); d <= max(3, len(s)/3) {
			near = append(near, scored{c, d})
		}
	}
	sort.SliceStable(near, func(i, j int) bool { return near[i].d < near[j].d })
	var out []string
	for i := 0; i < len(near) && i < n; i++ {
		out = append(out, near[i].name)
	}
	return out
}

// orList is "a", "a or b", "a, b or c".
func orList(names []string) string {
	if len(names) <= 1 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// UnknownNameError is a --fault or --variant name the catalog does not
// hold: the name, the nearest known names (none when nothing is near) and
// the command listing them all.
type UnknownNameError struct {
	Kind, Name string
	Near       []string
	Lister     string
}

func (e *UnknownNameError) Error() string {
	hint := ""
	if len(e.Near) > 0 {
		hint = "; did you mean " + orList(e.Near) + "?"
	}
	return fmt.Sprintf("unknown %s %q%s (%s)", e.Kind, e.Name, hint, e.Lister)
}

// checkCatalogNames refuses a --fault or --variant name the catalog does
// not hold, before anything listens: one line naming the nearest names and
// the command that lists them all, instead of every name on one line.
func checkCatalogNames(faultNames, variantNames []string) error {
	catalog, explore := faults.Catalog(), faults.ExploreCatalog()
	var known []string
	for _, f := range append(catalog, explore...) {
		known = append(known, f.Name)
	}
	for _, n := range faultNames {
		if _, ok := faults.ByName(n); !ok {
			return &UnknownNameError{Kind: "fault", Name: n, Near: nearestNames(n, known, 3),
				Lister: fmt.Sprintf("conform faults lists all %d, conform faults --explore the %d explore faults", len(catalog), len(explore))}
		}
	}
	known = known[:0]
	for _, v := range append(faults.Variants(), faults.ExploreVariants()...) {
		known = append(known, v.Name)
	}
	for _, n := range variantNames {
		if _, ok := faults.VariantByName(n); !ok {
			return &UnknownNameError{Kind: "variant", Name: n, Near: nearestNames(n, known, 3),
				Lister: "conform faults --variants lists them"}
		}
	}
	return nil
}
