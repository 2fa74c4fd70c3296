package memstore

import (
	"context"
	"maps"
	"slices"
	"time"

	"github.com/conform-kit/conform/reference/ledger"
)

// namespacePrefix starts a namespace id; a namespace is the sandbox's, not
// a resource of the API.
const namespacePrefix = "NS"

// namespace is what the store knows of one: its applications and users and
// when a request last authenticated as one of them.
type namespace struct {
	id    string
	apps  []string
	users []string
	used  time.Time
}

// The in-memory store's namespaces: minted, used, dropped and swept.

// MintNamespace makes a namespace seeded from src in the in-memory store.
func (st *Store) MintNamespace(_ context.Context, src *ledger.SeededSource, max int, idle time.Duration, now time.Time) (ledger.Namespace, error) {
	st.mu.Lock()
	if max > 0 && len(st.namespaces) >= max {
		st.mu.Unlock()
		return ledger.Namespace{}, ledger.ErrQuota("this sandbox holds %d namespaces, the most it may; drop one, or wait for an idle one to be dropped (%s idle)", max, idle)
	}
	ns := &namespace{id: src.ID(namespacePrefix), used: now}
	st.namespaces[ns.id] = ns
	st.mu.Unlock()

	fx := seedInto(st, src, now, ns)

	st.mu.Lock()
	for _, app := range ns.apps {
		delete(st.seeding, app)
	}
	st.mu.Unlock()
	return ledger.Namespace{ID: ns.id, Seeded: fx}, nil
}

// NamespaceCount is how many namespaces the store holds.
func (st *Store) NamespaceCount(context.Context) int {
	st.mu.Lock()
	defer st.mu.Unlock()
	return len(st.namespaces)
}

// Sweep expires what has aged out and drops idle namespaces.
func (st *Store) Sweep(_ context.Context, now time.Time, idle time.Duration) {
	st.expireNow(now)
	st.dropIdleNamespaces(now, idle)
}

// dropIdleNamespaces drops every namespace nobody authenticated into for
// ttl; ttl ≤ 0 keeps them. Idleness is judged and the namespaces dropped
// under one lock, so a namespace used meanwhile stays, and in one pass over
// the store however many are idle.
func (st *Store) dropIdleNamespaces(now time.Time, ttl time.Duration) {
	if ttl <= 0 {
		return
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	var idle []*namespace
	for _, ns := range st.namespaces {
		if now.Sub(ns.used) >= ttl {
			idle = append(idle, ns)
		}
	}
	st.dropNamespaces(idle)
}

// touchApp marks the namespace of app as used at now. Callers hold the lock.
func (st *Store) touchApp(app string, now time.Time) {
	if ns := st.nsOfApp[app]; ns != nil && now.After(ns.used) {
		ns.used = now
	}
}

// DropNamespace removes namespace id and everything of its applications.
func (st *Store) DropNamespace(_ context.Context, id string) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	ns := st.namespaces[id]
	if ns == nil {
		return false
	}
	st.dropNamespaces([]*namespace{ns})
	return true
}

// dropNamespaces removes the namespaces and everything of their
// applications, in one pass over the store. Callers hold the lock.
func (st *Store) dropNamespaces(nss []*namespace) {
	if len(nss) == 0 {
		return
	}
	apps := map[string]bool{}
	for _, ns := range nss {
		for _, a := range ns.apps {
			apps[a] = true
			delete(st.nsOfApp, a)
			delete(st.apps, a)
			delete(st.seeding, a)
			if st.retention != nil {
				delete(st.retention.apps, a)
			}
		}
		for _, u := range ns.users {
			delete(st.users, u)
		}
		delete(st.namespaces, ns.id)
	}
	dropOf(st.identities, apps)
	dropOf(st.cards, apps)
	dropOf(st.auths, apps)
	dropOf(st.transfers, apps)
	dropOf(st.merchants, apps)
	dropOf(st.schedules, apps)
	dropOf(st.amounts, apps)
	dropOf(st.enrollments, apps)
	dropOf(st.disputes, apps)
	dropOf(st.evidence, apps)
	dropOf(st.balances, apps)
	dropOf(st.files, apps)
	dropOf(st.links, apps)
	dropOf(st.webhooks, apps)
	orphans(st.evidenceByDispute, st.disputes)
	orphans(st.adjustmentsByDispute, st.disputes)
	orphans(st.enrollmentsBySchedule, st.schedules)
	orphans(st.linksByFile, st.files)
	maps.DeleteFunc(st.idem, func(k ledger.IdemKey, _ *ledger.IdemEntry) bool { return apps[k.App] })
	st.idemOrder = slices.DeleteFunc(st.idemOrder[st.idemHead:], func(k idemAt) bool { return apps[k.key.App] })
	st.idemOrder = slices.Clip(st.idemOrder)
	st.idemHead = 0
}

// dropOf deletes the records of the given applications from m.
func dropOf[P ledger.Record](m map[string]P, apps map[string]bool) {
	maps.DeleteFunc(m, func(_ string, p P) bool { return apps[p.AppID()] })
}

// orphans deletes the series whose parent is no longer in parents.
func orphans[S any, P any](series map[string]S, parents map[string]P) {
	maps.DeleteFunc(series, func(id string, _ S) bool {
		_, ok := parents[id]
		return !ok
	})
}
