package ledger

import (
	"context"
	"log/slog"
	"time"
)

// Store is where a Server keeps its state (reference.Config.Store): in
// memory, the default, or in a PostgreSQL database. The Server reaches it
// only through the store seam (SandboxStore, unit.go) and knows no store
// by its type.
type Store interface {
	// Open binds the store to one Server: its clock, ids, limits, seed and
	// the Server's side of delivery (env). It returns the seam the Server
	// runs on and the seeded fixtures.
	Open(ctx context.Context, env StoreEnv) (SandboxStore, Seeded, error)
}

// StoreEnv is what a store takes from the Server it serves.
type StoreEnv struct {
	Clock  func() time.Time
	NewID  func(prefix string) string
	Seed   int64
	Limits Limits // with the defaults filled in
	// Dispatch publishes a committed unit's events and starts its timers
	// in this process (the memory store's delivery).
	Dispatch func(Effects)
	// Work is the Server's side of the work a shared store queues for any
	// replica (PostgreSQL).
	Work Worker
}

// Worker is what a store that queues timers, events and webhook
// deliveries for every replica asks of the Server that claims them: the
// store claims and settles (in its database), the Server runs, builds and
// posts.
type Worker struct {
	Ctx context.Context // done when the Server closes
	Log *slog.Logger
	// Spawn runs fn in a goroutine the Server's Close waits for; false
	// (fn not run) once the Server is closed.
	Spawn func(fn func()) bool
	// RunTimer runs a due timer.
	RunTimer func(kind TimerKind, app, id, base string)
	// NewEvent builds an event of a resource's view (JSON) for the enabled
	// webhooks whose filters admit it: the targets, its id and its body.
	NewEvent func(enabled []Webhook, entity, typ string, view any) (targets []Webhook, id string, body []byte)
	// Post posts one claimed delivery to its webhook as it is now and
	// says what the store does with it.
	Post func(ctx context.Context, d DeliveryPost) DeliveryVerdict
}

// DeliveryPost is the attempt-th post (from 1) of event to webhook hook of app.
type DeliveryPost struct {
	App, Hook, Event string
	Body             []byte
	Attempt          int
	// Claimed, when set, says whether the delivery is still this claim's
	// and pending (not dropped by the bound, nor taken over). The poster
	// asks it after reading the webhook and before posting: a drop comes
	// before any later change of the webhook, so a delivery posted to a
	// url read after its drop would answer false here.
	Claimed func(ctx context.Context) bool
}

// DeliveryVerdict is what a post made of a claimed delivery.
type DeliveryVerdict struct {
	// Done: delivered, refused, or given up; the delivery is settled.
	Done bool
	// Release: the Server is closing; the claim goes back unposted.
	Release bool
	// RetryIn: otherwise, due again after this long.
	RetryIn time.Duration
}
