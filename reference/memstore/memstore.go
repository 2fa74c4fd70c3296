// Package memstore is the reference's in-memory store: the default
// ledger.Store, which keeps a Server's whole state in the process. It
// implements the store seam of package ledger with one lock held from a
// unit's start to its commit, so units are serial and see each other's
// writes whole; records are copied in and out, never shared with the
// rules, and every list keeps a sorted index per sortable field.
//
// A store that keeps its sandbox elsewhere seeds through it: NewSeeded and
// NewSeededNamespace make a seeded store in memory, and Apps, Users and
// PutRecords copy it out.
package memstore

import (
	"context"

	"github.com/conform-kit/conform/reference/ledger"
)

// New is the in-memory ledger.Store. Each Open makes a store of its own,
// seeded from the environment's seed.
func New() ledger.Store { return memoryStore{} }

// memoryStore is the Store of New.
type memoryStore struct{}

func (memoryStore) Open(_ context.Context, env ledger.StoreEnv) (ledger.SandboxStore, ledger.Seeded, error) {
	st, fx := Open(env)
	return st, fx, nil
}

// Open builds and seeds the in-memory store of one Server: its clock and
// ids, its seed, its limits (with their defaults filled in, as the Server
// hands them) and where a committed unit's events and timers go.
func Open(env ledger.StoreEnv) (*Store, ledger.Seeded) {
	st := newStore(env.NewID, env.Clock)
	st.dispatch = env.Dispatch
	fx := seed(st, env.Seed, ledger.Stamp(env.Clock))
	st.retention = &retention{lim: env.Limits, apps: map[string]*appRetention{}} // env.Limits has its defaults
	return st, fx
}

// The store keeps everything a Server reaches through the seam.
var _ ledger.SandboxStore = (*Store)(nil)
