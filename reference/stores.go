package reference

import (
	"context"
	"github.com/conform-kit/conform/reference/ledger"
	"log/slog"
	"time"
)

// Store is where a Server keeps its state (Config.Store): MemoryStore, the
// default, or a PostgreSQL database (OpenPostgres; PostgresLedger keeps
// only the idempotency keys there). The Server reaches it only through the
// store seam (unit.go) and knows no store by its type.
type Store interface {
	// open binds the store to one Server: its clock, ids, limits, seed and
	// the Server's side of delivery (env). It returns the seam the Server
	// runs on and the seeded fixtures.
	open(ctx context.Context, env storeEnv) (ledger.SandboxStore, ledger.Seeded, error)
}

// storeEnv is what a store takes from the Server it serves.
type storeEnv struct {
	clock  func() time.Time
	newID  func(prefix string) string
	seed   int64
	limits ledger.Limits // with the defaults filled in
	// dispatch publishes a committed unit's events and starts its timers
	// in this process (the memory store's delivery).
	dispatch func(ledger.Effects)
	// work is the Server's side of the work a shared store queues for any
	// replica (PostgreSQL).
	work worker
}

// worker is what a store that queues timers, events and webhook
// deliveries for every replica asks of the Server that claims them: the
// store claims and settles (in its database), the Server runs, builds and
// posts.
type worker struct {
	ctx context.Context // done when the Server closes
	log *slog.Logger
	// spawn runs fn in a goroutine the Server's Close waits for; false
	// (fn not run) once the Server is closed.
	spawn func(fn func()) bool
	// runTimer runs a due timer.
	runTimer func(kind ledger.TimerKind, app, id, base string)
	// newEvent builds an event of a resource's view (JSON) for the enabled
	// webhooks whose filters admit it: the targets, its id and its body.
	newEvent func(enabled []ledger.Webhook, entity, typ string, view any) (targets []ledger.Webhook, id string, body []byte)
	// post posts one claimed delivery to its webhook as it is now and
	// says what the store does with it.
	post func(ctx context.Context, d deliveryPost) deliveryVerdict
}

// deliveryPost is the attempt-th post (from 1) of event to webhook hook of app.
type deliveryPost struct {
	app, hook, event string
	body             []byte
	attempt          int
}

// deliveryVerdict is what a post made of a claimed delivery.
type deliveryVerdict struct {
	// done: delivered, refused, or given up; the delivery is settled.
	done bool
	// release: the Server is closing; the claim goes back unposted.
	release bool
	// retryIn: otherwise, due again after this long.
	retryIn time.Duration
}

// MemoryStore keeps a Server's whole state in memory, in the process: the
// default, what `make run` and `conform serve` without --store use. Each
// Server given it has a store of its own.
func MemoryStore() Store { return memoryStore{} }

// memoryStore is the Store of MemoryStore.
type memoryStore struct{}

func (memoryStore) open(_ context.Context, env storeEnv) (ledger.SandboxStore, ledger.Seeded, error) {
	st, fx := openMemory(env)
	return st, fx, nil
}

// openMemory builds and seeds the in-memory store of one Server.
func openMemory(env storeEnv) (*store, ledger.Seeded) {
	st := newStore(env.newID, env.clock)
	st.dispatch = env.dispatch
	fx := seed(st, env.seed, stamp(env.clock))
	st.retention = &retention{lim: env.limits, apps: map[string]*appRetention{}} // env.limits has its defaults
	return st, fx
}

// PostgresLedger keeps a Server's sandbox in memory and its idempotency
// keys in p, so Servers (replicas) on one database run a request with one
// idempotency key once whichever of them it reaches. The Server does not
// close p.
func PostgresLedger(p *PostgresStore) Store { return pgLedgerStore{p} }

// pgLedgerStore is the Store of PostgresLedger.
type pgLedgerStore struct{ p *PostgresStore }

func (l pgLedgerStore) open(_ context.Context, env storeEnv) (ledger.SandboxStore, ledger.Seeded, error) {
	st, fx := openMemory(env)
	return &memoryWithLedger{store: st, pg: l.p.ledger(env.limits, env.work.log)}, fx, nil
}

// memoryWithLedger is the in-memory store whose idempotency ledger is in
// PostgreSQL.
type memoryWithLedger struct {
	*store
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
	m.store.Sweep(ctx, now, idle)
	m.pg.expire(ctx, now)
}

// Every store keeps everything a Server reaches through the seam.
var (
	_ ledger.SandboxStore = (*store)(nil)
	_ ledger.SandboxStore = (*memoryWithLedger)(nil)
	_ ledger.SandboxStore = (*pgUnits)(nil)
)
