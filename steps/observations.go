package steps

import (
	"cmp"
	"maps"
	"slices"
	"sync"

	"github.com/conform-kit/conform/validate/judging"
)

// Observed is what a run saw of the choices a profile declares every time
// it judged one, whether the target kept its profile or not: the writer
// (WriteProfile) reads it to write values that cover every observation,
// not only the ones that warned.
type Observed struct {
	// Refusals are the refusals judged by their kind, in the order seen.
	Refusals []RefusalSeen
}

// RefusalSeen is one refusal judged by its kind: the operation it answered
// ("" when the request matched none), its status and error codes.
type RefusalSeen struct {
	Kind      string
	Operation string
	Status    int
	Codes     []string
}

// refusalSeen is the exchange as a refusal of kind: its operation ("" when
// the request matched none), status and error codes (sorted, each once).
func refusalSeen(kind string, ex *exchange) RefusalSeen {
	r := RefusalSeen{Kind: kind, Status: ex.status, Codes: slices.Compact(slices.Sorted(slices.Values(errorField(ex.doc, "code"))))}
	if ex.hasOp {
		r.Operation = ex.op.ID
	}
	return r
}

// observer collects a run's observations; scenarios run concurrently.
type observer struct {
	mu       sync.Mutex
	refusals []RefusalSeen
}

func (o *observer) refusal(r RefusalSeen) {
	if o == nil { // a suite built for a unit of the steps
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.refusals = append(o.refusals, r)
}

func (o *observer) snapshot() Observed {
	if o == nil {
		return Observed{}
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	return Observed{Refusals: slices.Clone(o.refusals)}
}

// observedRefusals writes over p the forms of the kinds of which some
// refusal did not match p's declared form, each as every refusal of the
// kind showed it: the statuses and codes of all its operations, the most
// seen status first; an operation answering with statuses no other
// operation used gets its own form. once lists the kinds whose written form
// rests on a status or code seen a single time.
func observedRefusals(p *judging.Profile, seen []RefusalSeen) (once []string) {
	byKind := map[string][]RefusalSeen{}
	for _, r := range seen {
		byKind[r.Kind] = append(byKind[r.Kind], r)
	}
	for _, kind := range slices.Sorted(maps.Keys(byKind)) {
		obs := byKind[kind]
		declared := p.Refusal(kind)
		if !slices.ContainsFunc(obs, func(r RefusalSeen) bool {
			f := declared.ForOperation(r.Operation)
			return !f.StatusMatches(r.Status) || !f.CodeMatches(r.Codes)
		}) {
			continue
		}
		form, single := refusalFormOf(obs)
		p.Refusals[kind] = form
		if single {
			once = append(once, "refusals."+kind)
		}
	}
	return once
}

// refusalFormOf is the form that covers every observation of a kind, and
// whether a status or code in it was seen once only.
func refusalFormOf(obs []RefusalSeen) (judging.RefusalForm, bool) {
	statusesOf := map[string]map[int]bool{} // operation → statuses
	for _, r := range obs {
		if statusesOf[r.Operation] == nil {
			statusesOf[r.Operation] = map[int]bool{}
		}
		statusesOf[r.Operation][r.Status] = true
	}
	// An operation has its own form when none of its statuses is used by
	// another operation, and other operations were seen.
	opsOf := map[int]int{} // status → how many operations answered with it
	for _, sts := range statusesOf {
		for st := range sts {
			opsOf[st]++
		}
	}
	own := map[string]bool{}
	if len(statusesOf) > 1 {
		for op, sts := range statusesOf {
			mine := op != ""
			for st := range sts {
				mine = mine && opsOf[st] == 1
			}
			own[op] = mine
		}
	}
	if !slices.ContainsFunc(obs, func(r RefusalSeen) bool { return !own[r.Operation] }) {
		// Every operation answered otherwise: the kind has no form of
		// its own to set them apart from, so one form covers them all.
		clear(own)
	}
	var kindObs []RefusalSeen
	opObs := map[string][]RefusalSeen{}
	for _, r := range obs {
		if own[r.Operation] {
			opObs[r.Operation] = append(opObs[r.Operation], r)
		} else {
			kindObs = append(kindObs, r)
		}
	}
	form, single := coverAll(kindObs)
	for _, op := range slices.Sorted(maps.Keys(opObs)) {
		f, s := coverAll(opObs[op])
		if slices.Equal(f.Codes, form.Codes) {
			f.Codes = nil // the kind's codes
		}
		if form.Operations == nil {
			form.Operations = map[string]judging.RefusalForm{}
		}
		form.Operations[op] = f
		single = single || s
	}
	return form, single
}

// coverAll is the statuses (the most seen first) and codes (sorted) of
// observations, and whether one of them was seen once only.
func coverAll(obs []RefusalSeen) (judging.RefusalForm, bool) {
	statusCount, codeCount := map[int]int{}, map[string]int{}
	anyCode := false
	for _, r := range obs {
		statusCount[r.Status]++
		if len(r.Codes) == 0 {
			anyCode = true
		}
		for _, c := range slices.Compact(slices.Sorted(slices.Values(r.Codes))) {
			codeCount[c]++
		}
	}
	statuses := slices.SortedFunc(maps.Keys(statusCount), func(a, b int) int {
		if c := cmp.Compare(statusCount[b], statusCount[a]); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	var f judging.RefusalForm
	if len(statuses) > 0 {
		f.Status, f.OtherStatuses = statuses[0], statuses[1:]
	}
	if len(f.OtherStatuses) == 0 {
		f.OtherStatuses = nil
	}
	f.Codes = []string{}
	if !anyCode { // a refusal without a code: any code
		f.Codes = slices.Sorted(maps.Keys(codeCount))
	}
	single := len(obs) == 1
	for _, n := range statusCount {
		single = single || n == 1
	}
	for _, n := range codeCount {
		single = single || n == 1
	}
	return f, single
}
