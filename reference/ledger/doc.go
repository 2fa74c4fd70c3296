// Package ledger is the reference's rules, written once against the store
// seam: a request is one unit of work (Tx) over tables of the application's
// records (Table), with what counts against its bounds (Quota) and what it
// sets in motion once committed (Outbox). The package holds the records and
// the decoded request bodies, every rule of the API (captures, fees, Level
// 2/3 data, the sandbox triggers, quotas, tenancy), list queries, the
// domain errors, the seeded ids and the idempotency ledger's types. It
// imports neither store nor the HTTP edge: the stores implement the seam
// (SandboxStore, Store), and package reference serves HTTP on top.
package ledger
