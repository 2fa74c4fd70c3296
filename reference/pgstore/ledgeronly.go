package pgstore

import (
	"context"
	"time"

	"github.com/conform-kit/conform/reference/ledger"
	"github.com/conform-kit/conform/reference/memstore"
)

// LedgerOnly is a ledger.Store that keeps a Server's sandbox in memory
// (package memstore) and only its idempotency keys in p, so Servers
// (replicas) on one database run a request with one idempotency key once
// whichever of them it reaches. The Server does not close p.
func (p *Store) LedgerOnly() ledger.Store { return ledgerOnly{p} }

// ledgerOnly is the ledger.Store of LedgerOnly.
type ledgerOnly struct{ p *Store }

func (l ledgerOnly) Open(_ context.Context, env ledger.StoreEnv) (ledger.SandboxStore, ledger.Seeded, error) {
	mem, fx := memstore.Open(env)
	return &memoryWithLedger{SandboxStore: mem, mem: mem, pg: l.p.keys(env.Limits, env.Work.Log)}, fx, nil
}

// memoryWithLedger is the in-memory store whose idempotency ledger is in
// PostgreSQL: the memory store's seam but for the ledger.
type memoryWithLedger struct {
	ledger.SandboxStore // the memory store, through the seam only
	mem                 *memstore.Store
	pg                  pgLedger
}

// Memory is the in-memory store that holds the sandbox, for reading what
// it holds through memstore's inspection methods (Counts, RetentionOf,
// CheckIndexes) and its copy-out (PutRecords), as the tests of a Server on
// LedgerOnly do.
func (m *memoryWithLedger) Memory() *memstore.Store { return m.mem }

func (m *memoryWithLedger) Claim(ctx context.Context, key ledger.IdemKey, hash [32]byte, now time.Time) (*ledger.IdemEntry, bool, error) {
	return m.pg.Claim(ctx, key, hash, now)
}

func (m *memoryWithLedger) Settle(ctx context.Context, key ledger.IdemKey, e *ledger.IdemEntry, ok bool, out ledger.IdemOutcome) error {
	return m.pg.Settle(ctx, key, e, ok, out)
}

// Sweep sweeps the memory and expires the database's idempotency keys.
func (m *memoryWithLedger) Sweep(ctx context.Context, now time.Time, idle time.Duration) {
	m.SandboxStore.Sweep(ctx, now, idle)
	m.pg.expire(ctx, now)
}

// Every store keeps everything a Server reaches through the seam.
var (
	_ ledger.SandboxStore = (*memoryWithLedger)(nil)
	_ ledger.SandboxStore = (*pgUnits)(nil)
)
