package reference

import (
	"context"
	"time"

	"github.com/conform-kit/conform/reference/ledger"
	"github.com/conform-kit/conform/reference/memstore"
)

// MemoryStore keeps a Server's whole state in memory, in the process: the
// default, what `make run` and `conform serve` without --store use. Each
// Server given it has a store of its own (package memstore).
func MemoryStore() ledger.Store { return memstore.New() }

// PostgresLedger keeps a Server's sandbox in memory and its idempotency
// keys in p, so Servers (replicas) on one database run a request with one
// idempotency key once whichever of them it reaches. The Server does not
// close p.
func PostgresLedger(p *PostgresStore) ledger.Store { return pgLedgerStore{p} }

// pgLedgerStore is the Store of PostgresLedger.
type pgLedgerStore struct{ p *PostgresStore }

func (l pgLedgerStore) Open(ctx context.Context, env ledger.StoreEnv) (ledger.SandboxStore, ledger.Seeded, error) {
	st, fx, err := MemoryStore().Open(ctx, env)
	if err != nil {
		return nil, ledger.Seeded{}, err
	}
	return &memoryWithLedger{SandboxStore: st, pg: l.p.ledger(env.Limits, env.Work.Log)}, fx, nil
}

// memoryWithLedger is the in-memory store whose idempotency ledger is in
// PostgreSQL: the memory store's seam but for the ledger.
type memoryWithLedger struct {
	ledger.SandboxStore
	pg pgLedger
}

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
