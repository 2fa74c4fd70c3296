package memstore

import (
	"errors"
	"fmt"

	"github.com/conform-kit/conform/reference/ledger"
)

// What the store holds, for tests and diagnostics that observe it from
// outside: they read these instead of its maps.

// Counts is how many entries each of the store's maps and lists holds, by
// name: records of every kind ("cards", "transfers", ...), users,
// applications, the lists under a parent ("evidenceByDispute", ...), the
// idempotency keys and their order, the applications the quotas track and
// the namespaces.
func (st *Store) Counts() map[string]int {
	st.mu.Lock()
	defer st.mu.Unlock()
	retained := 0
	if st.retention != nil {
		retained = len(st.retention.apps)
	}
	return map[string]int{
		"users": len(st.users), "apps": len(st.apps), "identities": len(st.identities), "cards": len(st.cards),
		"auths": len(st.auths), "transfers": len(st.transfers), "merchants": len(st.merchants), "schedules": len(st.schedules),
		"amounts": len(st.amounts), "enrollments": len(st.enrollments), "disputes": len(st.disputes), "evidence": len(st.evidence),
		"balances": len(st.balances), "files": len(st.files), "links": len(st.links), "webhooks": len(st.webhooks),
		"evidenceByDispute": len(st.evidenceByDispute), "adjustmentsByDispute": len(st.adjustmentsByDispute),
		"enrollmentsBySchedule": len(st.enrollmentsBySchedule), "linksByFile": len(st.linksByFile),
		"idem": len(st.idem), "idemOrder": len(st.idemOrder) - st.idemHead, "retention": retained,
		"namespaces": len(st.namespaces), "nsOfApp": len(st.nsOfApp), "seeding": len(st.seeding),
	}
}

// Retention is what the store keeps to enforce one application's quotas,
// by length, dead entries not yet compacted included: what bounds the
// store's memory under a steady creator.
type Retention struct {
	Live      int // client-created resources held
	Queue     int // the retention queue's length
	IdemKeys  int // idempotency keys counted against the quota
	IdemOrder int // the idempotency order's length, every application's
	Idem      int // idempotency keys held, every application's
}

// RetentionOf reads the quota bookkeeping of application app; an
// application that created nothing has zero counts.
func (st *Store) RetentionOf(app string) Retention {
	st.mu.Lock()
	defer st.mu.Unlock()
	r := Retention{IdemOrder: len(st.idemOrder), Idem: len(st.idem)}
	if st.retention != nil {
		if a := st.retention.apps[app]; a != nil {
			r.Live, r.Queue, r.IdemKeys = a.live(), len(a.queue), a.idemKeys
		}
	}
	return r
}

// CheckIndexes reports every list whose index does not hold exactly its
// records with their current sort values: a change of updated_at or
// amount the list was not told of.
func (st *Store) CheckIndexes() error {
	st.mu.Lock()
	defer st.mu.Unlock()
	var errs []error
	for id, a := range st.apps {
		errs = append(errs, checkSeries(id+" disputes", &a.disputes), checkSeries(id+" enrollments", &a.enrollments),
			checkSeries(id+" balance transfers", &a.balanceTransfers), checkSeries(id+" files", &a.files), checkSeries(id+" webhooks", &a.webhooks))
	}
	for id, s := range st.evidenceByDispute {
		errs = append(errs, checkSeries(id+" evidence", s))
	}
	for id, s := range st.adjustmentsByDispute {
		errs = append(errs, checkSeries(id+" adjustments", s))
	}
	for id, s := range st.enrollmentsBySchedule {
		errs = append(errs, checkSeries(id+" enrollments", s))
	}
	for id, s := range st.linksByFile {
		errs = append(errs, checkSeries(id+" links", s))
	}
	return errors.Join(errs...)
}

// checkSeries reports a series whose index does not hold exactly its
// records with their current sort values. Callers hold the store's lock.
func checkSeries[P ledger.Record](name string, s *series[P]) error {
	s.idx.mu.RLock()
	defer s.idx.mu.RUnlock()
	if n := sizeOf(s.idx.roots[byCreated]); n != len(s.items) {
		return fmt.Errorf("%s: the index holds %d records, the series %d", name, n, len(s.items))
	}
	for _, p := range s.items {
		var now sortValues
		now.load(p)
		if e := s.idx.find(p); e == nil || e.id != now.id || e.vals != now.vals {
			return fmt.Errorf("%s: the index lost %s or its current sort values", name, now.id)
		}
	}
	return nil
}
