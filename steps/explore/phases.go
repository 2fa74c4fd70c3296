package explore

import "sync"

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
