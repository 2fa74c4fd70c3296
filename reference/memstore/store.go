package memstore

import (
	"context"
	"crypto/sha256"
	"sync"
	"time"

	"github.com/conform-kit/conform/reference/ledger"
)

// Store is the in-memory state of every application, a
// ledger.SandboxStore. One mutex guards all of it; methods copy records out
// under the lock and return domain errors. It knows nothing about HTTP.
type Store struct {
	mu    sync.Mutex
	newID func(prefix string) string
	// clock is read once at the start of each unit of work (ledger/unit.go).
	clock func() time.Time
	// dispatch publishes the events and starts the timers of a committed
	// unit of work; nil drops them.
	dispatch func(ledger.Effects)
	txs      *sync.Pool // of *memTx
	kinds    *memKinds  // what the units' tables reach

	users       map[string]*ledger.User
	apps        map[string]*appData
	identities  map[string]*ledger.Identity
	cards       map[string]*ledger.PaymentInstrument
	auths       map[string]*ledger.Authorization
	transfers   map[string]*ledger.Transfer
	merchants   map[string]*ledger.Merchant
	schedules   map[string]*ledger.SubscriptionSchedule
	amounts     map[string]*ledger.SubscriptionAmount
	enrollments map[string]*ledger.SubscriptionEnrollment
	disputes    map[string]*ledger.Dispute
	evidence    map[string]*ledger.Evidence
	balances    map[string]*ledger.BalanceTransfer
	files       map[string]*ledger.File
	links       map[string]*ledger.ExternalLink
	webhooks    map[string]*ledger.Webhook

	// Ordered series for the lists, per parent.
	evidenceByDispute     map[string]*series[*ledger.Evidence]
	adjustmentsByDispute  map[string]*series[*ledger.Transfer]
	enrollmentsBySchedule map[string]*series[*ledger.SubscriptionEnrollment]
	linksByFile           map[string]*series[*ledger.ExternalLink]

	idem      map[ledger.IdemKey]*ledger.IdemEntry
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

	// pageUnlocked, set by a test, runs while a reading unit takes a
	// sorted page without the store's lock: where a writer can commit
	// between the page's order and its copy. Nil otherwise.
	pageUnlocked func()
}

// appOf is the application's data, or the empty gone when it was dropped
// (with its namespace) after the request authenticated. Callers hold the lock.
func (st *Store) appOf(app string) *appData {
	if a := st.apps[app]; a != nil {
		return a
	}
	return st.gone
}

// idemAt is an idempotency key with its entry and creation time.
type idemAt struct {
	key ledger.IdemKey
	e   *ledger.IdemEntry
	at  time.Time
}

// appData is what belongs to one application besides its records.
type appData struct {
	id                 string
	feeProfile         string
	fingerprintKey     []byte
	merchantByIdentity map[string]*ledger.Merchant
	disputes           series[*ledger.Dispute]
	enrollments        series[*ledger.SubscriptionEnrollment]
	balanceTransfers   series[*ledger.BalanceTransfer]
	files              series[*ledger.File]
	webhooks           series[*ledger.Webhook]
	uploadBytes        int64 // file content held, against Limits.UploadBytes
}

func newStore(newID func(string) string, clock func() time.Time) *Store {
	st := &Store{
		newID:                 newID,
		clock:                 clock,
		users:                 map[string]*ledger.User{},
		apps:                  map[string]*appData{},
		identities:            map[string]*ledger.Identity{},
		cards:                 map[string]*ledger.PaymentInstrument{},
		auths:                 map[string]*ledger.Authorization{},
		transfers:             map[string]*ledger.Transfer{},
		merchants:             map[string]*ledger.Merchant{},
		schedules:             map[string]*ledger.SubscriptionSchedule{},
		amounts:               map[string]*ledger.SubscriptionAmount{},
		enrollments:           map[string]*ledger.SubscriptionEnrollment{},
		disputes:              map[string]*ledger.Dispute{},
		evidence:              map[string]*ledger.Evidence{},
		balances:              map[string]*ledger.BalanceTransfer{},
		files:                 map[string]*ledger.File{},
		links:                 map[string]*ledger.ExternalLink{},
		webhooks:              map[string]*ledger.Webhook{},
		evidenceByDispute:     map[string]*series[*ledger.Evidence]{},
		adjustmentsByDispute:  map[string]*series[*ledger.Transfer]{},
		enrollmentsBySchedule: map[string]*series[*ledger.SubscriptionEnrollment]{},
		linksByFile:           map[string]*series[*ledger.ExternalLink]{},
		idem:                  map[ledger.IdemKey]*ledger.IdemEntry{},
		namespaces:            map[string]*namespace{},
		nsOfApp:               map[string]*namespace{},
		seeding:               map[string]bool{},
		gone:                  &appData{merchantByIdentity: map[string]*ledger.Merchant{}},
	}
	st.kinds = newMemKinds(st)
	st.txs = memTxPool(st)
	return st
}

// User returns the user with this username; the caller compares the password
// in constant time. A user of a namespace marks it used at now (its idle
// time counts from the last request).
func (st *Store) User(_ context.Context, username string, now time.Time) (ledger.User, bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	u, ok := st.users[username]
	if !ok {
		return ledger.User{}, false
	}
	if len(st.nsOfApp) > 0 {
		st.touchApp(u.App, now)
	}
	return *u, true
}

// Claim claims the idempotency key for a request (ledger.SandboxStore):
// the key's entry and whether the caller owns it.
func (st *Store) Claim(_ context.Context, key ledger.IdemKey, hash [32]byte, now time.Time) (*ledger.IdemEntry, bool, error) {
	return st.idempotencyBegin(key, hash, now)
}

// Settle records the outcome of a claimed key; ok false abandons it.
func (st *Store) Settle(_ context.Context, key ledger.IdemKey, e *ledger.IdemEntry, ok bool, out ledger.IdemOutcome) error {
	st.idempotencyEnd(key, e, ok, out)
	return nil
}

// idempotencyBegin returns the entry for key and whether the caller owns it
// (must run the request and call idempotencyEnd). Non-owners wait on done.
// A new key beyond the application's MaxRetained keys is 429 QUOTA_EXCEEDED:
// a key is never forgotten before its age, or a retry would run twice.
func (st *Store) idempotencyBegin(key ledger.IdemKey, hash [sha256.Size]byte, now time.Time) (*ledger.IdemEntry, bool, error) {
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
		a := rt.app(key.App)
		if rt.lim.MaxRetained > 0 && a.idemKeys >= rt.lim.MaxRetained {
			return nil, false, ledger.ErrQuota("this application holds %d idempotency keys, the most it may; they free up as they reach the age limit (%s)", rt.lim.MaxRetained, ledger.AgeText(rt.lim.MaxAge))
		}
		a.idemKeys++
	}
	e := &ledger.IdemEntry{Hash: hash, Done: make(chan struct{})}
	st.idem[key] = e
	if st.retention != nil {
		st.idemOrder = append(st.idemOrder, idemAt{key: key, e: e, at: now})
	}
	return e, true, nil
}

// forgetIdempotency removes key's entry e and its count. Callers hold the lock.
func (st *Store) forgetIdempotency(key ledger.IdemKey, e *ledger.IdemEntry) {
	if st.idem[key] != e {
		return
	}
	delete(st.idem, key)
	if rt := st.retention; rt != nil {
		if a := rt.apps[key.App]; a != nil && a.idemKeys > 0 {
			a.idemKeys--
		}
	}
}

// expireIdempotency forgets finished idempotency keys created before
// cutoff, and nothing younger. Callers hold the lock.
func (st *Store) expireIdempotency(cutoff time.Time) {
	lim := st.retention.lim
	for st.idemHead < len(st.idemOrder) {
		k := st.idemOrder[st.idemHead]
		if lim.MaxAge <= 0 || !k.at.Before(cutoff) {
			break
		}
		select {
		case <-k.e.Done:
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
func (st *Store) idempotencyEnd(key ledger.IdemKey, e *ledger.IdemEntry, ok bool, out ledger.IdemOutcome) {
	st.mu.Lock()
	defer st.mu.Unlock()
	e.OK, e.Out = ok, out
	if !ok {
		st.forgetIdempotency(key, e)
	}
	close(e.Done)
}

// dropDisputeChildren removes a dropped dispute's adjustment transfers and
// evidence with their lists. Callers hold the lock.
func (st *Store) dropDisputeChildren(id string) {
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

// App is an application of the store as another store keeps it (the
// PostgreSQL store seeds through a store in memory): everything of it but
// its users and records.
type App struct {
	ID, FeeProfile string
	FingerprintKey []byte
	UploadBytes    int64
}

// Apps are the store's applications.
func (st *Store) Apps() []App {
	st.mu.Lock()
	defer st.mu.Unlock()
	out := make([]App, 0, len(st.apps))
	for _, a := range st.apps {
		out = append(out, App{ID: a.id, FeeProfile: a.feeProfile, FingerprintKey: a.fingerprintKey, UploadBytes: a.uploadBytes})
	}
	return out
}

// Users are the store's users, passwords in the clear.
func (st *Store) Users() []ledger.User {
	st.mu.Lock()
	defer st.mu.Unlock()
	out := make([]ledger.User, 0, len(st.users))
	for _, u := range st.users {
		out = append(out, *u)
	}
	return out
}

// PutRecords puts a copy of every record the store holds, of every
// application, into t's tables.
func (st *Store) PutRecords(t ledger.Tx) {
	st.mu.Lock()
	defer st.mu.Unlock()
	putAll(t.Identities(), st.identities)
	putAll(t.Cards(), st.cards)
	putAll(t.Authorizations(), st.auths)
	putAll(t.Transfers(), st.transfers)
	putAll(t.Merchants(), st.merchants)
	putAll(t.Disputes(), st.disputes)
	putAll(t.Schedules(), st.schedules)
	putAll(t.Amounts(), st.amounts)
	putAll(t.Enrollments(), st.enrollments)
	putAll(t.BalanceTransfers(), st.balances)
	putAll(t.Evidence(), st.evidence)
	putAll(t.Files(), st.files)
	putAll(t.Links(), st.links)
	putAll(t.Webhooks(), st.webhooks)
}

// putAll puts a copy of each record of m into tb.
func putAll[T any](tb ledger.Table[T], m map[string]*T) {
	for _, p := range m {
		v := *p
		tb.Put(&v)
	}
}
