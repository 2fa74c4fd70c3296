package explore

import (
	"slices"
	"strings"
	"sync"
	"time"
)

// Phases of the target's shared state: concurrent sequences' writes, and
// the list walks that must not see them (a walk judges page.count and
// each page's size, which another sequence's create would change).
const (
	phaseWrite = iota
	phaseList
)

// phases lets the steps of one kind run together and never with a step of
// the other kind. A kind waiting for the other to drain takes the next
// turn, so neither starves: the steps of the other kind already running
// finish, then every waiting step of this kind runs at once.
type phases struct {
	mu      sync.Mutex
	cond    *sync.Cond
	active  [2]int
	waiting [2]int
	turn    int
	// probe keeps a refused create's two reads (a probe) apart from every
	// other step of the list phase: walks hold it shared, a probe
	// exclusive. The create a probe sends is one the contract refuses, but
	// a conformant target may take it (an unknown field ignored, an empty
	// string accepted): then it is a write inside the list phase, which
	// another walk or probe running beside it would see.
	probe sync.RWMutex
}

// enter waits until steps of kind k may run and counts one in.
func (p *phases) enter(k int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cond == nil {
		p.cond = sync.NewCond(&p.mu)
	}
	other := 1 - k
	if p.active[other] > 0 {
		p.turn = k
	}
	p.waiting[k]++
	for p.active[other] > 0 || (p.waiting[other] > 0 && p.turn != k) {
		p.cond.Wait()
		if p.active[other] > 0 && p.waiting[other] == 0 {
			p.turn = k
		}
	}
	p.waiting[k]--
	p.active[k]++
}

// leave counts a step of kind k out.
func (p *phases) leave(k int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.active[k]--
	if p.active[k] == 0 && p.waiting[1-k] > 0 {
		p.turn = 1 - k
	}
	p.cond.Broadcast()
}

// kindPhases are the phases of each kind of list: a walk of the
// transfers need not wait for a webhook's create.
//
// A write the target never answered (the client gave up: a timeout, a
// reset) leaves its phase while the target may still be carrying it out,
// so a list of its kind may change under a later walk or around a later
// refused create. Such a kind is unsettled for a while (unsettledFor), and
// the checks comparing two reads of it judge nothing meanwhile: what they
// would see is what another worker did, not what the target breaks.
type kindPhases struct {
	mu         sync.Mutex
	kinds      map[string]*phases
	unanswered map[string]time.Time // kind → when a write of it last went unanswered
	now        func() time.Time     // the clock (nil: time.Now)
}

// unsettledFor is how long after an unanswered write its kind's lists may
// still change from it: twice the default client timeout.
const unsettledFor = 20 * time.Second

func (k *kindPhases) clock() time.Time {
	if k.now != nil {
		return k.now()
	}
	return time.Now()
}

// noteUnanswered records that a write of the kinds got no answer.
func (k *kindPhases) noteUnanswered(kinds ...string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.unanswered == nil {
		k.unanswered = map[string]time.Time{}
	}
	at := k.clock()
	for _, kind := range kinds {
		k.unanswered[kind] = at
	}
}

// settled reports whether no write of kind went unanswered within
// unsettledFor: the kind's lists change only under its writes' phase.
func (k *kindPhases) settled(kind string) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	at, ok := k.unanswered[kind]
	return !ok || k.clock().Sub(at) >= unsettledFor
}

// of is the phases of a kind.
func (k *kindPhases) of(kind string) *phases {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.kinds == nil {
		k.kinds = map[string]*phases{}
	}
	p := k.kinds[kind]
	if p == nil {
		p = &phases{}
		k.kinds[kind] = p
	}
	return p
}

// enter counts a step of phase k in on each kind (in the order given; a
// walk enters one kind only, so writes entering several never wait on
// each other) and returns its leave.
func (k *kindPhases) enter(phase int, kinds ...string) func() {
	var entered []*phases
	for _, kind := range kinds {
		p := k.of(kind)
		p.enter(phase)
		entered = append(entered, p)
	}
	return func() {
		for _, p := range entered {
			p.leave(phase)
		}
	}
}

// enterWalk enters the list phase of kind for a walk: beside other walks,
// never beside a write or a probe.
func (k *kindPhases) enterWalk(kind string) func() {
	leave := k.enter(phaseList, kind)
	p := k.of(kind)
	p.probe.RLock()
	return func() {
		p.probe.RUnlock()
		leave()
	}
}

// enterProbe enters the list phase of kind for a refused create read
// before and after: beside no write, no walk and no other probe, since
// the create may be taken.
func (k *kindPhases) enterProbe(kind string) func() {
	leave := k.enter(phaseList, kind)
	p := k.of(kind)
	p.probe.Lock()
	return func() {
		p.probe.Unlock()
		leave()
	}
}

// listKind is the kind of resource a path's list holds: its first segment
// ("transfers", "subscription", "disputes").
func listKind(path string) string {
	seg, _, _ := strings.Cut(strings.TrimPrefix(path, "/"), "/")
	seg, _, _ = strings.Cut(seg, "?")
	return seg
}

// writeKinds are the kinds of list a write may change: its own path's,
// and the transfers a capture or a dispute makes and the disputes a sale
// may open.
func writeKinds(st Step) []string {
	kinds := []string{listKind(st.Path)}
	switch {
	case st.Op == "authorizations.capture" || strings.HasPrefix(st.Op, "disputes."):
		kinds = append(kinds, "transfers")
	case st.Op == "transfers.create":
		kinds = append(kinds, "disputes")
	}
	slices.Sort(kinds)
	return slices.Compact(kinds)
}
