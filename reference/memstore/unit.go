package memstore

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/conform-kit/conform/reference/ledger"
)

// The in-memory implementation of the store seam (ledger/unit.go): a unit of work
// holds the store's one lock from start to commit, so units are serial and
// see each other's writes whole. Records are copied in and out (Get, Put),
// never shared with the rules. A unit that fails drops what it created;
// rules check before they change an existing record, so nothing else needs
// undoing.

// Update runs fn as one unit of work at the store's clock.
func (st *Store) Update(ctx context.Context, app string, fn func(ledger.Tx) error) error {
	return ledger.RunUnit(st, ctx, app, ledger.Stamp(st.clock), false, nil, fn)
}

// View runs fn as one read-only unit of work at the store's clock.
func (st *Store) View(ctx context.Context, app string, fn func(ledger.Tx) error) error {
	return ledger.RunUnit(st, ctx, app, ledger.Stamp(st.clock), true, nil, fn)
}

// Begin takes a pooled unit and the store's lock, held until the unit
// ends. The in-memory ledger is not in the unit's transaction: claim plays
// no part.
func (st *Store) Begin(_ context.Context, app string, now time.Time, readOnly bool, _ *ledger.IdemRun) (ledger.OpenUnit, error) {
	t := st.txs.Get().(*memTx)
	t.app, t.now, t.readOnly = app, now, readOnly
	st.mu.Lock()
	return t, nil
}

// End commits or drops what the unit created, lets the store's lock go
// and, once the unit committed, hands what it set in motion to the store's
// dispatcher. A unit of the memory store never loses a race.
func (t *memTx) End(err error, _ int) (bool, error) {
	st := t.st
	if err == nil {
		t.commit()
	} else {
		t.drop()
	}
	st.mu.Unlock()
	if err == nil && (len(t.eff.Hooks) > 0 || len(t.eff.Timers) > 0) && st.dispatch != nil {
		t.eff.App = t.app
		st.dispatch(t.eff) // keeps nothing of the slices: the unit reuses them
	}
	t.reset()
	st.txs.Put(t)
	return false, err
}

// Abort ends a unit whose rules panicked: nothing it created stays.
func (t *memTx) Abort(p any) error {
	t.End(errUnitPanicked, 0) //nolint:errcheck // ends the unit before panicking again
	panic(p)
}

// errUnitPanicked ends a unit whose function panicked.
var errUnitPanicked = errors.New("memstore: the unit of work panicked")

// drop removes what the unit created and forgets what it set in motion.
// Callers hold the lock.
func (t *memTx) drop() {
	for _, c := range t.created {
		c.drop()
	}
	clear(t.eff.Events)
	t.eff.Events, t.eff.Timers = t.eff.Events[:0], t.eff.Timers[:0]
}

// commit resolves the webhooks the unit's events go to and keeps what it
// created against the quotas. Callers hold the lock.
func (t *memTx) commit() {
	st := t.st
	if len(t.eff.Events) > 0 { // the outbox: the webhooks its events go to
		if a := st.apps[t.app]; a != nil {
			for _, w := range a.webhooks.items {
				if w.Enabled {
					t.eff.Hooks = append(t.eff.Hooks, *w)
				}
			}
		}
	}
	if t.admitted && len(t.created) > 0 {
		k := kept{first: t.created[0]}
		if len(t.created) > 1 {
			k.rest = slices.Clone(t.created[1:])
		}
		st.keep(t.app, t.now, t.bodyBytes, k)
	}
}

// created is a record a unit stored new: drop removes it again (when it is
// still stored), from its kind's map and lists. It names the kind (made
// once by the store, not the pooled unit's table) and the record rather
// than closing over them, so a create allocates nothing to be undone or
// expired, and what the retention queue keeps pins no unit.
type created struct {
	table createdIn
	rec   any // the table's record pointer
}

// createdIn is the kind of record a created record is (a *memKind).
type createdIn interface {
	dropCreated(rec any)
}

func (c created) drop() {
	if c.table != nil {
		c.table.dropCreated(c.rec)
	}
}

// memTx is a unit of work of the in-memory store; the store pools them.
type memTx struct {
	st        *Store
	app       string
	now       time.Time
	readOnly  bool
	admitted  bool
	bodyBytes int
	created   []created // the records the unit stored new
	eff       ledger.Effects

	identities     memTable[ledger.Identity, *ledger.Identity]
	cards          memTable[ledger.PaymentInstrument, *ledger.PaymentInstrument]
	authorizations memTable[ledger.Authorization, *ledger.Authorization]
	transfers      memTable[ledger.Transfer, *ledger.Transfer]
	merchants      memTable[ledger.Merchant, *ledger.Merchant]
	disputes       memTable[ledger.Dispute, *ledger.Dispute]
	schedules      memTable[ledger.SubscriptionSchedule, *ledger.SubscriptionSchedule]
	amounts        memTable[ledger.SubscriptionAmount, *ledger.SubscriptionAmount]
	enrollments    memTable[ledger.SubscriptionEnrollment, *ledger.SubscriptionEnrollment]
	balances       memTable[ledger.BalanceTransfer, *ledger.BalanceTransfer]
	evidence       memTable[ledger.Evidence, *ledger.Evidence]
	files          memTable[ledger.File, *ledger.File]
	links          memTable[ledger.ExternalLink, *ledger.ExternalLink]
	webhooks       memTable[ledger.Webhook, *ledger.Webhook]
}

// memKinds are the store's kinds of record, made once: what a table
// reaches besides its unit.
type memKinds struct {
	identities     *memKind[ledger.Identity, *ledger.Identity]
	cards          *memKind[ledger.PaymentInstrument, *ledger.PaymentInstrument]
	authorizations *memKind[ledger.Authorization, *ledger.Authorization]
	transfers      *memKind[ledger.Transfer, *ledger.Transfer]
	merchants      *memKind[ledger.Merchant, *ledger.Merchant]
	disputes       *memKind[ledger.Dispute, *ledger.Dispute]
	schedules      *memKind[ledger.SubscriptionSchedule, *ledger.SubscriptionSchedule]
	amounts        *memKind[ledger.SubscriptionAmount, *ledger.SubscriptionAmount]
	enrollments    *memKind[ledger.SubscriptionEnrollment, *ledger.SubscriptionEnrollment]
	balances       *memKind[ledger.BalanceTransfer, *ledger.BalanceTransfer]
	evidence       *memKind[ledger.Evidence, *ledger.Evidence]
	files          *memKind[ledger.File, *ledger.File]
	links          *memKind[ledger.ExternalLink, *ledger.ExternalLink]
	webhooks       *memKind[ledger.Webhook, *ledger.Webhook]
}

// newMemKinds wires the store's kinds of record to its maps and lists.
func newMemKinds(st *Store) *memKinds {
	k := &memKinds{}
	k.identities = &memKind[ledger.Identity, *ledger.Identity]{st: st, m: st.identities}
	k.cards = &memKind[ledger.PaymentInstrument, *ledger.PaymentInstrument]{st: st, m: st.cards}
	k.authorizations = &memKind[ledger.Authorization, *ledger.Authorization]{st: st, m: st.auths}
	k.transfers = &memKind[ledger.Transfer, *ledger.Transfer]{st: st, m: st.transfers,
		parents: st.adjustmentsByDispute,
		parentOf: func(p *ledger.Transfer) string {
			if p.Adjustment != nil {
				return p.Adjustment.Dispute
			}
			return ""
		}}
	k.merchants = &memKind[ledger.Merchant, *ledger.Merchant]{st: st, m: st.merchants,
		onPut: func(p *ledger.Merchant) {
			if a := st.apps[p.App]; a != nil {
				a.merchantByIdentity[p.Identity] = p
			}
		},
		onDrop: func(p *ledger.Merchant) {
			if a := st.apps[p.App]; a != nil && a.merchantByIdentity[p.Identity] == p {
				delete(a.merchantByIdentity, p.Identity)
			}
		}}
	k.disputes = &memKind[ledger.Dispute, *ledger.Dispute]{st: st, m: st.disputes,
		appList: func(a *appData) *series[*ledger.Dispute] { return &a.disputes },
		onDrop:  func(p *ledger.Dispute) { st.dropDisputeChildren(p.ID) }}
	k.schedules = &memKind[ledger.SubscriptionSchedule, *ledger.SubscriptionSchedule]{st: st, m: st.schedules,
		onDrop: func(p *ledger.SubscriptionSchedule) { delete(st.enrollmentsBySchedule, p.ID) }}
	k.amounts = &memKind[ledger.SubscriptionAmount, *ledger.SubscriptionAmount]{st: st, m: st.amounts}
	k.enrollments = &memKind[ledger.SubscriptionEnrollment, *ledger.SubscriptionEnrollment]{st: st, m: st.enrollments,
		appList:  func(a *appData) *series[*ledger.SubscriptionEnrollment] { return &a.enrollments },
		parents:  st.enrollmentsBySchedule,
		parentOf: func(p *ledger.SubscriptionEnrollment) string { return p.SubscriptionSchedule }}
	k.balances = &memKind[ledger.BalanceTransfer, *ledger.BalanceTransfer]{st: st, m: st.balances,
		appList: func(a *appData) *series[*ledger.BalanceTransfer] { return &a.balanceTransfers }}
	k.evidence = &memKind[ledger.Evidence, *ledger.Evidence]{st: st, m: st.evidence,
		parents: st.evidenceByDispute, parentOf: func(p *ledger.Evidence) string { return p.Dispute }}
	k.files = &memKind[ledger.File, *ledger.File]{st: st, m: st.files,
		appList: func(a *appData) *series[*ledger.File] { return &a.files },
		onDrop: func(p *ledger.File) {
			if a := st.apps[p.App]; a != nil {
				a.uploadBytes -= int64(len(p.Content))
			}
			if links := st.linksByFile[p.ID]; links != nil {
				for _, l := range links.items {
					delete(st.links, l.ID)
				}
			}
			delete(st.linksByFile, p.ID)
		}}
	k.links = &memKind[ledger.ExternalLink, *ledger.ExternalLink]{st: st, m: st.links,
		parents: st.linksByFile, parentOf: func(p *ledger.ExternalLink) string { return p.FileID }}
	k.webhooks = &memKind[ledger.Webhook, *ledger.Webhook]{st: st, m: st.webhooks,
		appList: func(a *appData) *series[*ledger.Webhook] { return &a.webhooks }}
	return k
}

// newMemTx makes a unit whose tables are the store's kinds of record.
func newMemTx(st *Store) *memTx {
	t := &memTx{st: st}
	k := st.kinds
	t.identities = memTable[ledger.Identity, *ledger.Identity]{tx: t, memKind: k.identities}
	t.cards = memTable[ledger.PaymentInstrument, *ledger.PaymentInstrument]{tx: t, memKind: k.cards}
	t.authorizations = memTable[ledger.Authorization, *ledger.Authorization]{tx: t, memKind: k.authorizations}
	t.transfers = memTable[ledger.Transfer, *ledger.Transfer]{tx: t, memKind: k.transfers}
	t.merchants = memTable[ledger.Merchant, *ledger.Merchant]{tx: t, memKind: k.merchants}
	t.disputes = memTable[ledger.Dispute, *ledger.Dispute]{tx: t, memKind: k.disputes}
	t.schedules = memTable[ledger.SubscriptionSchedule, *ledger.SubscriptionSchedule]{tx: t, memKind: k.schedules}
	t.amounts = memTable[ledger.SubscriptionAmount, *ledger.SubscriptionAmount]{tx: t, memKind: k.amounts}
	t.enrollments = memTable[ledger.SubscriptionEnrollment, *ledger.SubscriptionEnrollment]{tx: t, memKind: k.enrollments}
	t.balances = memTable[ledger.BalanceTransfer, *ledger.BalanceTransfer]{tx: t, memKind: k.balances}
	t.evidence = memTable[ledger.Evidence, *ledger.Evidence]{tx: t, memKind: k.evidence}
	t.files = memTable[ledger.File, *ledger.File]{tx: t, memKind: k.files}
	t.links = memTable[ledger.ExternalLink, *ledger.ExternalLink]{tx: t, memKind: k.links}
	t.webhooks = memTable[ledger.Webhook, *ledger.Webhook]{tx: t, memKind: k.webhooks}
	return t
}

func (t *memTx) reset() {
	t.app, t.readOnly, t.admitted, t.bodyBytes = "", false, false, 0
	clear(t.created)
	t.created = t.created[:0]
	clear(t.eff.Events) // let the views and webhooks go
	clear(t.eff.Hooks)
	t.eff = ledger.Effects{Events: t.eff.Events[:0], Timers: t.eff.Timers[:0], Hooks: t.eff.Hooks[:0]}
}

func (t *memTx) Now() time.Time             { return t.now }
func (t *memTx) App() string                { return t.app }
func (t *memTx) NewID(prefix string) string { return t.st.newID(prefix) }

func (t *memTx) AppInfo() (ledger.AppInfo, bool) {
	a := t.st.apps[t.app]
	if a == nil {
		return ledger.AppInfo{}, false
	}
	return ledger.AppInfo{FeeProfile: a.feeProfile, FingerprintKey: a.fingerprintKey}, true
}

func (t *memTx) Identities() ledger.Table[ledger.Identity]            { return &t.identities }
func (t *memTx) Cards() ledger.Table[ledger.PaymentInstrument]        { return &t.cards }
func (t *memTx) Authorizations() ledger.Table[ledger.Authorization]   { return &t.authorizations }
func (t *memTx) Transfers() ledger.Table[ledger.Transfer]             { return &t.transfers }
func (t *memTx) Merchants() ledger.Table[ledger.Merchant]             { return &t.merchants }
func (t *memTx) Disputes() ledger.Table[ledger.Dispute]               { return &t.disputes }
func (t *memTx) Schedules() ledger.Table[ledger.SubscriptionSchedule] { return &t.schedules }
func (t *memTx) Amounts() ledger.Table[ledger.SubscriptionAmount]     { return &t.amounts }
func (t *memTx) Enrollments() ledger.Table[ledger.SubscriptionEnrollment] {
	return &t.enrollments
}
func (t *memTx) BalanceTransfers() ledger.Table[ledger.BalanceTransfer] { return &t.balances }
func (t *memTx) Evidence() ledger.Table[ledger.Evidence]                { return &t.evidence }
func (t *memTx) Files() ledger.Table[ledger.File]                       { return &t.files }
func (t *memTx) Links() ledger.Table[ledger.ExternalLink]               { return &t.links }
func (t *memTx) Webhooks() ledger.Table[ledger.Webhook]                 { return &t.webhooks }
func (t *memTx) Quota() ledger.Quota                                    { return t }
func (t *memTx) Outbox() ledger.Outbox                                  { return t }
func (t *memTx) MerchantByIdentity(id string) (ledger.Merchant, bool) {
	m, ok := t.st.appOf(t.app).merchantByIdentity[id]
	if !ok {
		return ledger.Merchant{}, false
	}
	return *m, true
}

// Limits are the store's bounds; none while seeding before retention.
func (t *memTx) Limits() ledger.Limits {
	if rt := t.st.retention; rt != nil {
		return rt.lim
	}
	return ledger.Limits{}
}

// Usage drops what has aged out and reads the application's counts.
func (t *memTx) Usage() (ledger.Usage, bool) {
	st := t.st
	a := st.apps[t.app]
	if a == nil { // its namespace was dropped after the request authenticated
		return ledger.Usage{}, false
	}
	rt := st.retention
	if rt == nil || st.seeding[t.app] {
		return ledger.Usage{Exempt: true, UploadBytes: a.uploadBytes}, true
	}
	st.expire(t.now)
	r := rt.app(t.app)
	return ledger.Usage{Window: r.window, Created: r.created, Retained: r.live(), Bytes: r.bytes, UploadBytes: a.uploadBytes}, true
}

func (t *memTx) EnabledWebhooks() int {
	n := 0
	for _, w := range t.st.appOf(t.app).webhooks.items {
		if w.Enabled {
			n++
		}
	}
	return n
}

// Count marks the unit as a create: what it creates is kept together at
// commit (keep), and the minute's window starts afresh when it has passed.
func (t *memTx) Count(bodyBytes int) {
	t.admitted, t.bodyBytes = true, bodyBytes
	if rt := t.st.retention; rt != nil && !t.st.seeding[t.app] {
		r := rt.app(t.app)
		if t.now.Sub(r.window) >= time.Minute || t.now.Before(r.window) {
			r.window, r.created = t.now, 0
		}
	}
}

func (t *memTx) AddUpload(n int64) {
	if a := t.st.apps[t.app]; a != nil {
		a.uploadBytes += n
	}
}

// LinkOwner finds the application of an external link by its id alone.
func (st *Store) LinkOwner(_ context.Context, id string) (string, bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	l, ok := st.links[id]
	if !ok {
		return "", false
	}
	return l.App, true
}

func (t *memTx) Listening() bool {
	for _, w := range t.st.appOf(t.app).webhooks.items {
		if w.Enabled {
			return true
		}
	}
	return false
}

func (t *memTx) Emit(entity, typ string, view any) {
	t.eff.Events = append(t.eff.Events, ledger.PendingEvent{Entity: entity, Typ: typ, View: view})
}

func (t *memTx) After(d time.Duration, kind ledger.TimerKind, id, base string) {
	t.eff.Timers = append(t.eff.Timers, ledger.PendingTimer{Kind: kind, Delay: d, ID: id, Base: base})
}

// memTable is a table of the in-memory store: its unit, and its kind of
// record.
type memTable[T any, P interface {
	*T
	ledger.Record
}] struct {
	tx *memTx
	*memKind[T, P]
}

// memKind is a kind of record of the in-memory store: a map by id, the
// application's list (appList, nil when the records are not listed by
// application) and the lists under a parent (parents, keyed by parentOf).
// The store makes each kind once; a created record names its kind, which
// outlives the pooled unit that created it.
type memKind[T any, P interface {
	*T
	ledger.Record
}] struct {
	st       *Store
	m        map[string]P
	appList  func(*appData) *series[P]
	parents  map[string]*series[P]
	parentOf func(P) string
	onPut    func(P) // after a new record is stored
	onDrop   func(P) // after a record is dropped
}

func (tb *memTable[T, P]) Get(id string) (T, error) {
	p, ok := tb.m[id]
	if !ok || p.AppID() != tb.tx.app {
		var zero T
		return zero, ledger.ErrNotFound(id)
	}
	return *p, nil
}

func (tb *memTable[T, P]) Put(v *T) {
	if tb.tx.readOnly {
		panic("memstore: Put in a read-only unit of work")
	}
	_, id := P(v).RecordKey()
	if p := tb.m[id]; p != nil {
		*p = *v
		if tb.appList != nil {
			if a := tb.st.apps[p.AppID()]; a != nil {
				tb.appList(a).touch(p)
			}
		}
		if tb.parentOf != nil {
			tb.parents[tb.parentOf(p)].touch(p)
		}
		return
	}
	p := P(v) // a new record is kept as given: the caller hands it over
	tb.m[id] = p
	if tb.appList != nil {
		tb.appList(tb.st.appOf(p.AppID())).add(p)
	}
	if tb.parentOf != nil {
		if parent := tb.parentOf(p); parent != "" {
			s := tb.parents[parent]
			if s == nil {
				s = &series[P]{}
				tb.parents[parent] = s
			}
			s.add(p)
		}
	}
	if tb.onPut != nil {
		tb.onPut(p)
	}
	tb.tx.created = append(tb.tx.created, created{table: tb.memKind, rec: p})
}

// dropCreated drops rec, a record of this kind a unit created, unless it
// was dropped already.
func (k *memKind[T, P]) dropCreated(rec any) {
	p := rec.(P)
	if _, id := p.RecordKey(); k.m[id] == p {
		k.drop(p)
	}
}

// Delete removes the record with this id and everything listed of it.
func (tb *memTable[T, P]) Delete(id string) error {
	if tb.tx.readOnly {
		panic("memstore: Delete in a read-only unit of work")
	}
	p, ok := tb.m[id]
	if !ok || p.AppID() != tb.tx.app {
		return ledger.ErrNotFound(id)
	}
	tb.drop(p)
	return nil
}

// drop removes p from the map and its lists. Callers hold the lock.
func (k *memKind[T, P]) drop(p P) {
	_, id := p.RecordKey()
	delete(k.m, id)
	if k.appList != nil {
		if a := k.st.apps[p.AppID()]; a != nil {
			k.appList(a).remove(p)
		}
	}
	if k.parentOf != nil {
		if parent := k.parentOf(p); parent != "" {
			k.parents[parent].remove(p)
		}
	}
	if k.onDrop != nil {
		k.onDrop(p)
	}
}

// Page selects one page. The default order is a walk of the list; any other
// is selected in the list's index, which in a read-only unit is done under
// the index's own lock alone (the store's lock is let go meanwhile, as a
// list may be long), and only the page's records are copied under the
// store's lock.
func (tb *memTable[T, P]) Page(parent string, q ledger.ListQuery) ([]T, int) {
	var ser *series[P]
	switch {
	case parent != "":
		ser = tb.parents[parent]
	case tb.appList != nil:
		ser = tb.appList(tb.st.appOf(tb.tx.app))
	}
	if ser == nil {
		return []T{}, 0
	}
	if q.IsDefaultOrder() {
		return pageOf(ser, q, func(p P) T { return *p })
	}
	var picked []P
	var total int
	unlocked := tb.tx.readOnly
	for try := 0; ; try++ {
		if !unlocked || try == pageTries {
			// A writing unit, or one whose pages the writers kept moving:
			// the page under the store's lock.
			picked, total = ser.idx.page(q.Sort, q.Offset, q.Limit)
			break
		}
		// A reading unit takes its page without the store's lock, so that
		// a long page does not hold the writers up. The page's order and
		// the records copied below must be of one moment: a unit that
		// committed meanwhile and moved a record (a newer updated_at) would
		// otherwise be copied at its old place, and the page read out of
		// its order. The writers change the trees only under the store's
		// lock, so an unchanged count of moves, read under it before and
		// after, says the page is still the order now.
		st := tb.st
		before := ser.idx.movesNow()
		st.mu.Unlock()
		func() {
			defer st.mu.Lock() // the unit's end unlocks it, also after a panic (abort)
			picked, total = ser.idx.page(q.Sort, q.Offset, q.Limit)
			if st.pageUnlocked != nil {
				st.pageUnlocked()
			}
		}()
		if ser.idx.movesNow() == before {
			break
		}
	}
	out := make([]T, 0, len(picked))
	for _, p := range picked {
		out = append(out, *p)
	}
	return out, total
}

// pageTries is how many times a reading unit takes a sorted page without
// the store's lock before it takes it under the lock: each try was undone
// by a writer that moved a record of the list meanwhile.
const pageTries = 3

// memTxPool makes the pool of a store's units.
func memTxPool(st *Store) *sync.Pool {
	return &sync.Pool{New: func() any { return newMemTx(st) }}
}
