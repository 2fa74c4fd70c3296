package reference

import "github.com/conform-kit/conform/reference/ledger"

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
