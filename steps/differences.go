package steps

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/conform-kit/conform/validate/judging"
)

// Difference is one row of a run's grouped table: an assumed choice where
// the target did something other than its profile declares, and the
// scenarios that saw it.
type Difference struct {
	Key       string   // profile key, with the entry of a map-valued key ("refusals.not_found")
	Expected  string   // what the declared profile says
	Observed  string   // what the target did
	Scenarios []string // "feature: scenario", sorted
}

// differences groups the failed assumed checks of every result by key,
// expected and observed, in key order.
func differences(results []ScenarioResult) []Difference {
	type group struct{ key, expected, observed string }
	seen := map[group]map[string]bool{}
	for _, r := range results {
		for _, c := range r.Judged() {
			if c.Basis.Normative() {
				continue
			}
			g := group{c.Key, c.Expected, c.Observed}
			if seen[g] == nil {
				seen[g] = map[string]bool{}
			}
			seen[g][r.Feature+": "+r.Name] = true
		}
	}
	out := make([]Difference, 0, len(seen))
	for g, sc := range seen {
		out = append(out, Difference{Key: g.key, Expected: g.expected, Observed: g.observed, Scenarios: slices.Sorted(maps.Keys(sc))})
	}
	slices.SortFunc(out, func(a, b Difference) int {
		if c := strings.Compare(a.Key, b.Key); c != 0 {
			return c
		}
		if c := strings.Compare(a.Expected, b.Expected); c != 0 {
			return c
		}
		return strings.Compare(a.Observed, b.Observed)
	})
	return out
}

// printDifferences writes the grouped table of differences: one row per
// key, expected and observed, with the number of scenarios affected and
// the first of them.
func printDifferences(w io.Writer, diffs []Difference) {
	if len(diffs) == 0 {
		return
	}
	rows := [][]string{{"key", "expected", "observed", "scenarios"}}
	for _, d := range diffs {
		first := d.Scenarios[0]
		if len(d.Scenarios) > 1 {
			first += fmt.Sprintf(" (+%d more)", len(d.Scenarios)-1)
		}
		rows = append(rows, []string{d.Key, clip(d.Expected), clip(d.Observed), fmt.Sprintf("%d: %s", len(d.Scenarios), first)})
	}
	width := make([]int, 3)
	for _, r := range rows {
		for i := range width {
			width[i] = max(width[i], len(r[i]))
		}
	}
	fmt.Fprintf(w, "conform: %d differences from the declared profile (assumed choices; --write-profile FILE declares the observed ones):\n", len(diffs))
	for _, r := range rows {
		fmt.Fprintf(w, "  %-*s  %-*s  %-*s  %s\n", width[0], r[0], width[1], r[1], width[2], r[2], r[3])
	}
}

// clip shortens a table cell to 40 characters.
func clip(s string) string {
	if len(s) > 40 {
		return s[:39] + "…"
	}
	return s
}

// WriteProfile writes, as a profile file, the choices the run observed: the
// declared profile with every observed assumed choice applied over it, only
// the keys that differ from the reference's defaults. A refusal kind of
// which some refusal differed from its declared form is written as every
// refusal of the kind showed it (Summary.Observed): all its statuses and
// codes, an operation answering otherwise with its own form. observed_once
// lists what rests on a single observation. Fed back with --profile, the
// same target passes the checks the run warned about.
func WriteProfile(w io.Writer, sum Summary) error {
	v, err := judging.Default()
	if err != nil {
		return fmt.Errorf("steps: load the judging table: %w", err)
	}
	p := sum.Profile
	if p.Refusals == nil {
		p = v.DefaultProfile()
	}
	patches, once := observedPatches(sum.Results)
	for _, patch := range patches {
		if p, err = v.MergeProfile(p, patch); err != nil {
			return fmt.Errorf("steps: an observed choice is not a valid profile value: %w", err)
		}
	}
	p = p.Clone()
	once = append(once, observedRefusals(&p, sum.Observed.Refusals)...)
	collapseCreateStatus(v, &p)
	p.ObservedOnce = writtenOnly(v, p, slices.Compact(slices.Sorted(slices.Values(append(p.ObservedOnce, once...)))))
	if err := v.EncodeProfile(w, p, false); err != nil {
		return fmt.Errorf("steps: %w", err)
	}
	return nil
}

// writtenOnly keeps the entries of once ("list_max_limit",
// "refusals.unprocessable") whose key the profile writes: a value that
// differs from the reference's default (never nil).
func writtenOnly(v *judging.Judge, p judging.Profile, once []string) []string {
	def := v.DefaultProfile()
	out := []string{}
	for _, k := range once {
		top, entry, _ := strings.Cut(k, ".")
		got, ok := p.Value(top)
		was, _ := def.Value(top)
		if !ok {
			continue
		}
		if entry != "" {
			var g, w map[string]json.RawMessage
			if json.Unmarshal(got, &g) == nil && json.Unmarshal(was, &w) == nil {
				name := entry // an operation id holds dots
				if _, whole := g[name]; !whole {
					name, _, _ = strings.Cut(entry, ".")
				}
				got, was = g[name], w[name]
			}
		}
		if !bytes.Equal(got, was) {
			out = append(out, k)
		}
	}
	return out
}

// collapseCreateStatus turns per-operation success statuses of the 201
// operations into one create_status when they all agree.
func collapseCreateStatus(v *judging.Judge, p *judging.Profile) {
	status := 0
	var ids []string
	for id, s := range p.SuccessStatusByOp {
		op, ok := v.Validator().Operation(id)
		if !ok || op.Status != 201 {
			continue
		}
		if status != 0 && s != status {
			return
		}
		status = s
		ids = append(ids, id)
	}
	if status == 0 {
		return
	}
	p.CreateStatus = status
	for _, id := range ids {
		delete(p.SuccessStatusByOp, id)
	}
}

// observedPatches returns the profile objects of the failed assumed checks,
// merged key by key: map-valued keys entry by entry; timestamp precisions
// that disagree become 0 (any); extensions offer only what no observation
// found missing; for any other key the last observation wins. once lists
// the keys (with the entry of a map-valued key) only one check observed.
func observedPatches(results []ScenarioResult) (patches [][]byte, once []string) {
	merged := map[string]json.RawMessage{}
	var order []string
	precisions := map[string]bool{}
	eventsDisagree := false
	seen := map[string]int{}
	for _, r := range results {
		for _, c := range r.Judged() {
			if c.Basis.Normative() || c.Patch == nil {
				continue
			}
			var obj map[string]json.RawMessage
			if json.Unmarshal(c.Patch, &obj) != nil {
				continue
			}
			for k, v := range obj {
				if k == keyObservedOnce {
					var keys []string
					_ = json.Unmarshal(v, &keys)
					once = append(once, keys...)
					continue
				}
				if k != "list_max_limit" { // searched, not read from one probe
					countEntries(seen, k, v)
				}
				if k == "timestamp_precision" {
					precisions[string(v)] = true
				}
				if old, ok := merged[k]; ok && bytes.HasPrefix(bytes.TrimSpace(old), []byte("{")) {
					v = mergeObjects(old, v)
				}
				if old, ok := merged[k]; ok && (k == keyExtensions || k == keyRequestMediaTypes) {
					v = intersectLists(old, v)
				}
				if old, ok := merged[k]; ok && k == keyEventLayout && string(old) == `"`+judging.Unchecked+`"` {
					// An event no layout describes: the places another
					// event showed do not hold for every event.
					v = old
				}
				if old, ok := merged[k]; ok && k == keyEventFields && !sameEntries(old, v) {
					eventsDisagree = true
				}
				if old, ok := merged[k]; ok && k == keyErrorFieldForm && string(v) == `"`+judging.FieldFormBare+`"` {
					// A bare name is a dotted or pointer name of one
					// segment: the longer form read elsewhere covers it.
					v = old
				}
				if _, ok := merged[k]; !ok {
					order = append(order, k)
				}
				merged[k] = v
			}
		}
	}
	if len(precisions) > 1 {
		merged["timestamp_precision"] = json.RawMessage("0")
	}
	if eventsDisagree {
		// Events that carry their type or resource in different places:
		// no one declaration holds for all of them.
		merged[keyEventLayout] = json.RawMessage(`"` + judging.Unchecked + `"`)
	}
	if string(merged[keyEventLayout]) == `"`+judging.Unchecked+`"` {
		// Unchecked, the places some events showed declare nothing.
		delete(merged, keyEventFields)
		order = slices.DeleteFunc(order, func(k string) bool { return k == keyEventFields })
	}
	out := make([][]byte, 0, len(order))
	for _, k := range order {
		b, _ := json.Marshal(map[string]json.RawMessage{k: merged[k]})
		out = append(out, b)
	}
	for _, k := range slices.Sorted(maps.Keys(seen)) {
		if seen[k] == 1 {
			once = append(once, k)
		}
	}
	return out, once
}

// keyObservedOnce is the profile key listing what rests on one observation.
const keyObservedOnce = "observed_once"

// countEntries counts an observation of key: of each entry when the value
// is an object (success_status.transfers.create), else of the key.
func countEntries(seen map[string]int, key string, v json.RawMessage) {
	var obj map[string]json.RawMessage
	if json.Unmarshal(v, &obj) == nil && obj != nil {
		for e := range obj {
			seen[key+"."+e]++
		}
		return
	}
	seen[key]++
}

// sameEntries reports whether the entries two JSON objects share are equal.
func sameEntries(a, b json.RawMessage) bool {
	var ma, mb map[string]json.RawMessage
	if json.Unmarshal(a, &ma) != nil || json.Unmarshal(b, &mb) != nil {
		return false
	}
	for k, va := range ma {
		if vb, ok := mb[k]; ok && !judging.SameJSON(va, vb) {
			return false
		}
	}
	return true
}

// mergeObjects merges two JSON objects, entries of b over a's.
func mergeObjects(a, b json.RawMessage) json.RawMessage {
	var ma, mb map[string]json.RawMessage
	if json.Unmarshal(a, &ma) != nil || json.Unmarshal(b, &mb) != nil {
		return b
	}
	maps.Copy(ma, mb)
	out, _ := json.Marshal(ma)
	return out
}
