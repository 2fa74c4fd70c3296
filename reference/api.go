package reference

import (
	"context"

	"github.com/conform-kit/conform/reference/ledger"
	"github.com/conform-kit/conform/reference/memstore"
	"github.com/conform-kit/conform/reference/pgstore"
)

// The reference's API names of what the rules package (ledger) defines.
type (
	// Limits bounds what clients may store (ledger.Limits).
	Limits = ledger.Limits
	// Seeded is what New seeded (ledger.Seeded).
	Seeded = ledger.Seeded
	// Credentials are the seeded users (ledger.Credentials).
	Credentials = ledger.Credentials
	// Credential is one HTTP Basic user (ledger.Credential).
	Credential = ledger.Credential
	// FixtureIDs names the seeded resources of application A (ledger.FixtureIDs).
	FixtureIDs = ledger.FixtureIDs
	// Namespace is an isolated part of a shared sandbox (ledger.Namespace).
	Namespace = ledger.Namespace
)

// Default limits; see Limits.
const (
	DefaultMaxAge            = ledger.DefaultMaxAge
	DefaultMaxRetained       = ledger.DefaultMaxRetained
	DefaultMaxBytes          = ledger.DefaultMaxBytes
	DefaultCreatesPerMinute  = ledger.DefaultCreatesPerMinute
	DefaultWebhooks          = ledger.DefaultWebhooks
	DefaultUploadBytes       = ledger.DefaultUploadBytes
	DefaultTags              = ledger.DefaultTags
	DefaultPendingDeliveries = ledger.DefaultPendingDeliveries
)

// Store is where a Server keeps its state (Config.Store; ledger.Store).
type Store = ledger.Store

// MemoryStore keeps a Server's whole state in memory, in the process: the
// default, what `make run` and `conform serve` without --store use. Each
// Server given it has a store of its own (package memstore).
func MemoryStore() Store { return memstore.New() }

// PostgresStore is a PostgreSQL database that Servers (replicas) share
// (package pgstore): given as Config.Store it holds a Server's whole
// sandbox; PostgresLedger keeps only the idempotency keys there.
type PostgresStore = pgstore.Store

// OpenPostgres connects to dsn (postgres://…) and applies the embedded
// migrations not applied yet (pgstore.Open).
func OpenPostgres(ctx context.Context, dsn string) (*PostgresStore, error) {
	return pgstore.Open(ctx, dsn)
}

// PostgresLedger keeps a Server's sandbox in memory and its idempotency
// keys in p, so Servers (replicas) on one database run a request with one
// idempotency key once whichever of them it reaches. The Server does not
// close p (pgstore.Store.LedgerOnly).
func PostgresLedger(p *PostgresStore) Store { return p.LedgerOnly() }
