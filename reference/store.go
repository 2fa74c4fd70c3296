package reference

import (
	"context"
	"crypto/sha256"
	"sync"
	"time"
)

// store is the in-memory state of every application. One mutex guards all of
// it; methods copy records out under the lock and return domain errors. It
// knows nothing about HTTP.
type store struct {
	mu    sync.Mutex
	newID func(prefix string) string
	// clock is read once at the start of each unit of work (unit.go).
	clock func() time.Time
	// dispatch publishes the events and starts the timers of a committed
	// unit of work; nil drops them.
	dispatch func(effects)
	txs      *sync.Pool // of *memTx
	kinds    *memKinds  // what the units' tables reach

	users       map[string]*user
	apps        map[string]*appData
	identities  map[string]*identity
	cards       map[string]*paymentInstrument
	auths       map[string]*authorization
	transfers   map[string]*transfer
	merchants   map[string]*merchant
	schedules   map[string]*subscriptionSchedule
	amounts     map[string]*subscriptionAmount
	enrollments map[string]*subscriptionEnrollment
	disputes    map[string]*dispute
	evidence    map[string]*evidence
	balances    map[string]*balanceTransfer
	files       map[string]*file
	links       map[string]*externalLink
	webhooks    map[string]*webhook

	// Ordered series for the lists, per parent.
	evidenceByDispute     map[string]*series[*evidence]
	adjustmentsByDispute  map[string]*series[*transfer]
	enrollmentsBySchedule map[string]*series[*subscriptionEnrollment]
	linksByFile           map[string]*series[*externalLink]

	idem      map[idemKey]*idemEntry
	idemOrder []idemAt // idem keys in creation order, for expiry
	idemHead  int      // idemOrder[:idemHead] are gone

	// retention tracks client-created resources; nil while seeding.
	retention *retention

	// namespaces minted on request, by id and by application; seeding
	// marks the applications of a namespace being seeded (their fixtures
	// are not client-created).
	namespaces map[string]*namespace
	nsOfApp    map[string]*namespace
	seeding    map[string]bool
	// gone stands for an application dropped while a request of it was
	// in flight: empty, read only (creates are refused by admit).
	gone *appData
}

// appOf is the application's data, or the empty gone when it was dropped
// (with its namespace) after the request authenticated. Callers hold the lock.
func (st *store) appOf(app string) *appData {
	if a := st.apps[app]; a != nil {
		return a
	}
	return st.gone
}

// idemAt is an idempotency key with its entry and creation time.
type idemAt struct {
	key idemKey
	e   *idemEntry
	at  time.Time
}

// appData is what belongs to one application besides its records.
type appData struct {
	id                 string
	feeProfile         string
	fingerprintKey     []byte
	merchantByIdentity map[string]*merchant
	disputes           series[*dispute]
	enrollments        series[*subscriptionEnrollment]
	balanceTransfers   series[*balanceTransfer]
	files              series[*file]
	webhooks           series[*webhook]
	uploadBytes        int64 // file content held, against Limits.UploadBytes
}

func newStore(newID func(string) string, clock func() time.Time) *store {
	st := &store{
		newID:                 newID,
		clock:                 clock,
		users:                 map[string]*user{},
		apps:                  map[string]*appData{},
		identities:            map[string]*identity{},
		cards:                 map[string]*paymentInstrument{},
		auths:                 map[string]*authorization{},
		transfers:             map[string]*transfer{},
		merchants:             map[string]*merchant{},
		schedules:             map[string]*subscriptionSchedule{},
		amounts:               map[string]*subscriptionAmount{},
		enrollments:           map[string]*subscriptionEnrollment{},
		disputes:              map[string]*dispute{},
		evidence:              map[string]*evidence{},
		balances:              map[string]*balanceTransfer{},
		files:                 map[string]*file{},
		links:                 map[string]*externalLink{},
		webhooks:              map[string]*webhook{},
		evidenceByDispute:     map[string]*series[*evidence]{},
		adjustmentsByDispute:  map[string]*series[*transfer]{},
		enrollmentsBySchedule: map[string]*series[*subscriptionEnrollment]{},
		linksByFile:           map[string]*series[*externalLink]{},
		idem:                  map[idemKey]*idemEntry{},
		namespaces:            map[string]*namespace{},
		nsOfApp:               map[string]*namespace{},
		seeding:               map[string]bool{},
		gone:                  &appData{merchantByIdentity: map[string]*merchant{}},
	}
	st.kinds = newMemKinds(st)
	st.txs = memTxPool(st)
	return st
}

// lookup finds a record of app by id; another application's id is not found.
func lookup[P record](m map[string]P, app, id string) (P, error) {
	p, ok := m[id]
	if !ok || p.appID() != app {
		var zero P
		return zero, errNotFound(id)
	}
	return p, nil
}

// User returns the user with this username; the caller compares the password
// in constant time. A user of a namespace marks it used at now (its idle
// time counts from the last request).
func (st *store) User(_ context.Context, username string, now time.Time) (user, bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	u, ok := st.users[username]
	if !ok {
		return user{}, false
	}
	if len(st.nsOfApp) > 0 {
		st.touchApp(u.app, now)
	}
	return *u, true
}

func (st *store) claim(_ context.Context, key idemKey, hash [32]byte, now time.Time) (*idemEntry, bool, error) {
	return st.idempotencyBegin(key, hash, now)
}

func (st *store) settle(_ context.Context, key idemKey, e *idemEntry, ok bool, out idemOutcome) error {
	st.idempotencyEnd(key, e, ok, out)
	return nil
}

// idempotencyBegin returns the entry for key and whether the caller owns it
// (must run the request and call idempotencyEnd). Non-owners wait on done.
// A new key beyond the application's MaxRetained keys is 429 QUOTA_EXCEEDED:
// a key is never forgotten before its age, or a retry would run twice.
func (st *store) idempotencyBegin(key idemKey, hash [sha256.Size]byte, now time.Time) (*idemEntry, bool, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if rt := st.retention; rt != nil && rt.lim.MaxAge > 0 {
		// A key past the age limit is absent when it is read, whether or
		// not a create or the sweep has dropped it yet.
		st.expireIdempotency(now.Add(-rt.lim.MaxAge))
	}
	if e, ok := st.idem[key]; ok {
		return e, false, nil
	}
	if rt := st.retention; rt != nil {
		st.expire(now)
		a := rt.app(key.app)
		if rt.lim.MaxRetained > 0 && a.idemKeys >= rt.lim.MaxRetained {
			return nil, false, errQuota("this application holds %d idempotency keys, the most it may; they free up as they reach the age limit (%s)", rt.lim.MaxRetained, ageText(rt.lim.MaxAge))
		}
		a.idemKeys++
	}
	e := &idemEntry{hash: hash, done: make(chan struct{})}
	st.idem[key] = e
	if st.retention != nil {
		st.idemOrder = append(st.idemOrder, idemAt{key: key, e: e, at: now})
	}
	return e, true, nil
}

// forgetIdempotency removes key's entry e and its count. Callers hold the lock.
func (st *store) forgetIdempotency(key idemKey, e *idemEntry) {
	if st.idem[key] != e {
		return
	}
	delete(st.idem, key)
	if rt := st.retention; rt != nil {
		if a := rt.apps[key.app]; a != nil && a.idemKeys > 0 {
			a.idemKeys--
		}
	}
}

// expireIdempotency forgets finished idempotency keys created before
// cutoff, and nothing younger. Callers hold the lock.
func (st *store) expireIdempotency(cutoff time.Time) {
	lim := st.retention.lim
	for st.idemHead < len(st.idemOrder) {
		k := st.idemOrder[st.idemHead]
		if lim.MaxAge <= 0 || !k.at.Before(cutoff) {
			break
		}
		select {
		case <-k.e.done:
		default:
			return // still running: look again on the next sweep
		}
		st.forgetIdempotency(k.key, k.e)
		st.idemOrder[st.idemHead] = idemAt{}
		st.idemHead++
	}
	if st.idemHead > 64 && st.idemHead*2 >= len(st.idemOrder) {
		st.idemOrder = append(st.idemOrder[:0], st.idemOrder[st.idemHead:]...)
		st.idemHead = 0
	}
}

// idempotencyEnd records the outcome; ok false abandons the key (the request
// failed in a way that must not be replayed) so a retry runs afresh.
func (st *store) idempotencyEnd(key idemKey, e *idemEntry, ok bool, out idemOutcome) {
	st.mu.Lock()
	defer st.mu.Unlock()
	e.ok, e.out = ok, out
	if !ok {
		st.forgetIdempotency(key, e)
	}
	close(e.done)
}

// stamp is the time of one operation, captured once so created_at equals
// updated_at on create.
func stamp(now func() time.Time) time.Time { return now().UTC() }

// dropDisputeChildren removes a dropped dispute's adjustment transfers and
// evidence with their lists. Callers hold the lock.
func (st *store) dropDisputeChildren(id string) {
	if adj := st.adjustmentsByDispute[id]; adj != nil {
		for _, t := range adj.items {
			delete(st.transfers, t.ID)
		}
	}
	if ev := st.evidenceByDispute[id]; ev != nil {
		for _, e := range ev.items {
			delete(st.evidence, e.ID)
		}
	}
	delete(st.adjustmentsByDispute, id)
	delete(st.evidenceByDispute, id)
}
