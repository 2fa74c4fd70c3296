// Package pgstore is the reference's PostgreSQL store: a ledger.Store
// whose sandbox's whole state is in one PostgreSQL database, so that
// Servers started on it (replicas, `conform serve --store postgres://…`
// processes on any hosts) are one sandbox that survives restarts.
//
// Open connects and applies the embedded schema migrations (migrations/)
// in one transaction under an advisory lock, so replicas starting together
// apply each one once. A Store given as a Server's store (reference.Config.Store)
// implements the store seam of package ledger on the database: a unit of
// work is one SERIALIZABLE transaction, run again on a serialization
// failure; every resource is a row of records; the idempotency ledger is a
// table whose primary key decides which of concurrent duplicates runs,
// whichever replica they reach, and whose claims are leased, so a replica
// that dies mid-request has its claim taken over. The webhook events and
// timers a unit sets in motion are rows of an outbox written in its
// transaction; every replica claims due rows (FOR UPDATE SKIP LOCKED) and
// hands them to its Server to run and post, each delivery's retries kept
// in the database. File content is kept in pieces, streamed in and out.
// The fixtures are seeded once for every replica, through a seeded
// in-memory store (package memstore) copied into the database.
//
// Store.LedgerOnly keeps only the idempotency ledger in the database and
// the rest of the sandbox in memory. The package imports the rules
// (ledger) and the memory store (for seeding), never the HTTP edge
// (package reference), which gives Store its own names (PostgresStore,
// OpenPostgres, PostgresLedger). See README.md.
package pgstore
