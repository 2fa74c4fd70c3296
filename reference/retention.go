package reference

import (
	"fmt"
	"time"
)

// Limits bounds what clients may store, so a sandbox left running for days
// stays bounded in memory and one application cannot crowd out another
// (reference/README.md, "The sandbox"). A zero field takes its default; a negative one
// turns that bound off. Seeded fixtures never count and never expire.
type Limits struct {
	// MaxAge is how long a resource a client created is kept; default 1h.
	MaxAge time.Duration
	// MaxRetained is how many client-created resources one application
	// keeps; beyond it its oldest are dropped first. Default 20,000.
	MaxRetained int
	// MaxBytes is the estimated memory (1 KiB plus twice the request body
	// per resource) one application's resources may take; beyond it its
	// oldest are dropped first. Default 64 MiB.
	MaxBytes int64
	// CreatesPerMinute is how many resources one application may create in
	// a minute; one more is 429 QUOTA_EXCEEDED. Default 60,000.
	CreatesPerMinute int
	// Webhooks is how many enabled webhooks one application may hold; default 50.
	Webhooks int
	// UploadBytes is how many bytes of uploaded file content one application
	// may hold; default 32 MiB.
	UploadBytes int64
	// Tags is how many tags one resource may carry; default 50.
	Tags int
}

// Default limits; see Limits.
const (
	DefaultMaxAge           = time.Hour
	DefaultMaxRetained      = 20_000
	DefaultMaxBytes         = 64 << 20
	DefaultCreatesPerMinute = 60_000
	DefaultWebhooks         = 50
	DefaultUploadBytes      = 32 << 20
	DefaultTags             = 50
)

// withDefaults fills zero fields with the defaults and turns negative ones
// into 0, "no bound", for the checks below.
func (l Limits) withDefaults() Limits {
	l.MaxRetained = pick(l.MaxRetained, DefaultMaxRetained)
	l.CreatesPerMinute = pick(l.CreatesPerMinute, DefaultCreatesPerMinute)
	l.Webhooks = pick(l.Webhooks, DefaultWebhooks)
	l.Tags = pick(l.Tags, DefaultTags)
	l.MaxAge = pick(l.MaxAge, DefaultMaxAge)
	l.MaxBytes = pick(l.MaxBytes, DefaultMaxBytes)
	l.UploadBytes = pick(l.UploadBytes, DefaultUploadBytes)
	return l
}

func pick[N int | int64 | time.Duration](v, def N) N {
	switch {
	case v == 0:
		return def
	case v < 0:
		return 0
	}
	return v
}

// recordOverhead is the estimated memory of a record besides what its
// request body brought.
const recordOverhead = 1 << 10

// cost estimates the memory a resource created from a body of n bytes takes.
func cost(n int) int64 { return recordOverhead + 2*int64(n) }

// kept is one client-created resource (with what depends on it) in
// creation order: drop removes it from every map and series.
type kept struct {
	at   time.Time
	cost int64
	drop func()
}

// appRetention is one application's resources, oldest first, and its
// creation count in the current minute.
type appRetention struct {
	queue   []kept
	head    int
	bytes   int64
	window  time.Time // start of the current minute
	created int       // creations in that minute
}

func (a *appRetention) live() int { return len(a.queue) - a.head }

// retention is the store's record of client-created resources. The store's
// lock guards it.
type retention struct {
	lim  Limits
	apps map[string]*appRetention
}

func newRetention(lim Limits) *retention {
	return &retention{lim: lim.withDefaults(), apps: map[string]*appRetention{}}
}

func (rt *retention) app(id string) *appRetention {
	a := rt.apps[id]
	if a == nil {
		a = &appRetention{}
		rt.apps[id] = a
	}
	return a
}

// errQuota is the 429 of a cap.
func errQuota(format string, args ...any) error {
	return &domainError{kind: kindQuotaExceeded, message: fmt.Sprintf(format, args...)}
}

// admit checks the application's creation rate before a create, after
// dropping what has expired. Callers hold the lock; a store without
// retention (while seeding) admits everything.
func (st *store) admit(app string, now time.Time) error {
	rt := st.retention
	if rt == nil {
		return nil
	}
	st.expire(now)
	a := rt.app(app)
	if now.Sub(a.window) >= time.Minute || now.Before(a.window) {
		a.window, a.created = now, 0
	}
	if rt.lim.CreatesPerMinute > 0 && a.created >= rt.lim.CreatesPerMinute {
		return errQuota("this application created %d resources in the last minute, the most it may; retry in a minute", rt.lim.CreatesPerMinute)
	}
	return nil
}

// admitTags checks the per-resource tag cap.
func (st *store) admitTags(t tags) error {
	if rt := st.retention; rt != nil && rt.lim.Tags > 0 && len(t) > rt.lim.Tags {
		return errQuota("a resource may carry at most %d tags, got %d", rt.lim.Tags, len(t))
	}
	return nil
}

// keep records a resource just created by a client from a body of
// bodyBytes; drop undoes it. Callers hold the lock.
func (st *store) keep(app string, now time.Time, bodyBytes int, drop func()) {
	rt := st.retention
	if rt == nil {
		return
	}
	a := rt.app(app)
	c := cost(bodyBytes)
	a.queue = append(a.queue, kept{at: now, cost: c, drop: drop})
	a.bytes += c
	a.created++
	st.expire(now)
}

// expire drops, in every application, resources older than MaxAge and,
// beyond MaxRetained or MaxBytes, the oldest. Callers hold the lock.
func (st *store) expire(now time.Time) {
	rt := st.retention
	if rt == nil {
		return
	}
	cutoff := now.Add(-rt.lim.MaxAge)
	for _, a := range rt.apps {
		for a.head < len(a.queue) {
			k := a.queue[a.head]
			old := rt.lim.MaxAge > 0 && k.at.Before(cutoff)
			over := (rt.lim.MaxRetained > 0 && a.live() > rt.lim.MaxRetained) || (rt.lim.MaxBytes > 0 && a.bytes > rt.lim.MaxBytes)
			if !old && !over {
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
func (st *store) expireNow(now time.Time) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.expire(now)
}
