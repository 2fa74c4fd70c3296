package memstore

import (
	"time"

	"github.com/conform-kit/conform/reference/ledger"
)

// The in-memory store's side of the quotas (ledger/retention.go has the bounds
// and the rules that refuse): what each application created, oldest first,
// dropped once older than its age limit.

// kept is one client-created resource (with what depends on it) in
// creation order: drop removes it from every map and series.
type kept struct {
	at    time.Time
	cost  int64
	first created   // the resource
	rest  []created // what was created with it (a sale's dispute and adjustment)
}

// drop removes the resource and what was created with it.
func (k *kept) drop() {
	k.first.drop()
	for _, c := range k.rest {
		c.drop()
	}
}

// appRetention is one application's resources, oldest first, and its
// creation count in the current minute.
type appRetention struct {
	queue    []kept
	head     int
	bytes    int64
	window   time.Time // start of the current minute
	created  int       // creations in that minute
	idemKeys int       // idempotency keys held, against MaxRetained
}

func (a *appRetention) live() int { return len(a.queue) - a.head }

// retention is the store's record of client-created resources. The store's
// lock guards it.
type retention struct {
	lim  ledger.Limits
	apps map[string]*appRetention
}

func (rt *retention) app(id string) *appRetention {
	a := rt.apps[id]
	if a == nil {
		a = &appRetention{}
		rt.apps[id] = a
	}
	return a
}

// keep records a resource just created by a client from a body of
// bodyBytes; k.drop undoes it. Callers hold the lock.
func (st *Store) keep(app string, now time.Time, bodyBytes int, k kept) {
	rt := st.retention
	if rt == nil || st.seeding[app] {
		return
	}
	a := rt.app(app)
	c := ledger.Cost(bodyBytes)
	k.at, k.cost = now, c
	a.queue = append(a.queue, k)
	a.bytes += c
	a.created++
}

// expire drops, in every application, resources older than MaxAge, and
// nothing younger: the quotas refuse creates, they never evict. Callers hold
// the lock.
func (st *Store) expire(now time.Time) {
	rt := st.retention
	if rt == nil {
		return
	}
	cutoff := now.Add(-rt.lim.MaxAge)
	for _, a := range rt.apps {
		for a.head < len(a.queue) {
			k := a.queue[a.head]
			if rt.lim.MaxAge <= 0 || !k.at.Before(cutoff) {
				break
			}
			k.drop()
			a.bytes -= k.cost
			a.queue[a.head] = kept{}
			a.head++
		}
		if a.head > 64 && a.head*2 >= len(a.queue) { // compact the queue's dead prefix
			a.queue = append(a.queue[:0], a.queue[a.head:]...)
			a.head = 0
		}
	}
	st.expireIdempotency(cutoff)
}

// expireNow drops what has outlived the limits at now; creates do it as
// they go, and the Server runs it every minute so an idle server sheds too.
func (st *Store) expireNow(now time.Time) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.expire(now)
}
