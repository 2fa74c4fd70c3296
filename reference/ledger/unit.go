package ledger

import (
	"context"
	"crypto/sha256"
	"errors"
	"io"
	"time"
)

// The seam between the reference's rules and where its state is kept
// (reference/README.md "The store seam"). A request is one unit of work:
// Update runs a function against a tx and commits everything it wrote (the
// records, what the quotas count, the events it emitted and the timers it
// set) together, or nothing; View runs a read-only one. The rules (capture,
// fees, Level 2/3, the sandbox triggers, quotas, tenancy) are written once
// against tx, outside any implementation of it; the in-memory store
// (package memstore) is one implementation.

// UnitStore keeps the reference's state and runs units of work on it.
type UnitStore interface {
	unitRunner
	// Update runs fn as one unit of work of application app and commits
	// what it wrote when fn returns nil. An error from fn commits nothing:
	// rules check before they write, so a refusal changes nothing.
	// (runUnit with the store's clock and no idempotency claim.)
	Update(ctx context.Context, app string, fn func(Tx) error) error
	// View runs fn as a read-only unit of work of application app.
	View(ctx context.Context, app string, fn func(Tx) error) error
	// LinkOwner is the application of external link id: the link id is the
	// only credential of its upload URL, which names no application.
	LinkOwner(ctx context.Context, id string) (app string, ok bool)
}

// unitRunner begins units of work; runUnit runs one to its end. A unit is
// begun and ended rather than handed a function: a function handed to an
// interface method escapes (the compiler cannot see the callee keep it), so
// each unit would put its closure, and every variable the closure shares
// with its handler, on the heap (a copy of the record a GET reads, a page
// of a list). runUnit calls the function itself, so it stays on the
// handler's stack whatever store the Server runs on.
type unitRunner interface {
	// Begin starts a unit of work of app at now. claim is the idempotency
	// claim of the request the unit runs for (nil for none): a store whose
	// ledger shares the unit's transaction commits the unit only while the
	// claim is still held and names in it what the unit created.
	Begin(ctx context.Context, app string, now time.Time, readOnly bool, claim *IdemRun) (OpenUnit, error)
}

// OpenUnit is a unit of work begun and not ended yet.
type OpenUnit interface {
	Tx
	// End commits what the unit wrote when err is nil, or drops it, and
	// releases the unit; then it hands what a committed unit set in motion
	// to the store's dispatcher. again: the unit lost a race with another
	// (the attempt-th time) and runs again on a fresh unit.
	End(err error, attempt int) (again bool, _ error)
	// Abort ends a unit whose function panicked with p: when p is the
	// store's own way of carrying an error out of the rules, it returns
	// that error and the unit is still to be ended; any other panic drops
	// what the unit wrote, releases it and panics with p again.
	Abort(p any) error
}

// RunUnit runs fn as one unit of work of app at now on r, again as often as
// the store says it lost a race; claim as in begin.
func RunUnit(r unitRunner, ctx context.Context, app string, now time.Time, readOnly bool, claim *IdemRun, fn func(Tx) error) error {
	for attempt := 1; ; attempt++ {
		u, err := r.Begin(ctx, app, now, readOnly, claim)
		if err != nil {
			return err
		}
		again, err := u.End(callUnit(u, fn), attempt)
		if !again {
			return err
		}
	}
}

// callUnit calls fn with the unit, handing a panic to the unit's abort.
func callUnit(u OpenUnit, fn func(Tx) error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = u.Abort(p)
		}
	}()
	return fn(u)
}

// SandboxStore is a unitStore that also keeps the sandbox's users and
// namespaces, decides idempotency keys (its ledger), and sweeps what has
// aged out (idempotency keys included). The Server reaches its state only
// through it.
type SandboxStore interface {
	UnitStore
	ledger
	// User returns the user with this username (the caller compares the
	// password in constant time) and marks its namespace used at now.
	User(ctx context.Context, username string, now time.Time) (User, bool)
	// MintNamespace makes a namespace seeded from src, unless max (> 0)
	// namespaces are held already (429 QUOTA_EXCEEDED, naming idle, the
	// time after which an unused one is dropped).
	MintNamespace(ctx context.Context, src *SeededSource, max int, idle time.Duration, now time.Time) (Namespace, error)
	// DropNamespace removes a namespace with everything in it; false when
	// there is none with this id.
	DropNamespace(ctx context.Context, id string) bool
	// NamespaceCount is how many namespaces are held.
	NamespaceCount(ctx context.Context) int
	// Sweep drops what is older than its age limit at now, and the
	// namespaces nobody used for idle (idle ≤ 0: none).
	Sweep(ctx context.Context, now time.Time, idle time.Duration)
}

// ContentStore is a unitStore that keeps file content apart from the
// file's record and streams it (PostgreSQL): a multipart upload is staged
// as it is read, before its unit of work, which attaches it by putting the
// file with the staged ref (a unit that fails leaves it unattached, dropped
// by DropContent or the sweep); a download writes it piece by piece. A
// store without it keeps content in file.content (memory).
type ContentStore interface {
	// StageContent writes r's bytes as content of file fileID of app, not
	// attached to it yet, and returns its ref and length.
	StageContent(ctx context.Context, app, fileID string, r io.Reader) (ref string, n int64, err error)
	// DropContent removes staged content no unit attached.
	DropContent(ctx context.Context, app, ref string)
	// WriteContent writes the content ref of app to w.
	WriteContent(ctx context.Context, app, ref string, w io.Writer) error
}

// Tx is one unit of work of one application: every table it reaches holds
// that application's records only (another application's id is not found),
// and its clock is read once, when the unit starts.
type Tx interface {
	// Now is the unit's time, the same for everything it writes.
	Now() time.Time
	// App is the application the unit works for.
	App() string
	// NewID is a fresh id with the prefix.
	NewID(prefix string) string
	// AppInfo is what the application has besides its records; ok is false
	// once its namespace was dropped.
	AppInfo() (info AppInfo, ok bool)

	Identities() Table[Identity]
	Cards() Table[PaymentInstrument]
	Authorizations() Table[Authorization]
	// Transfers pages a dispute's adjustment transfers by the dispute's id.
	Transfers() Table[Transfer]
	Merchants() Table[Merchant]
	// MerchantByIdentity finds the application's merchant of an identity.
	MerchantByIdentity(identityID string) (Merchant, bool)
	// Disputes pages the application's disputes (parent "").
	Disputes() Table[Dispute]
	Schedules() Table[SubscriptionSchedule]
	Amounts() Table[SubscriptionAmount]
	// Enrollments pages the application's enrollments (parent "") and a
	// schedule's (parent: the schedule's id).
	Enrollments() Table[SubscriptionEnrollment]
	// BalanceTransfers pages the application's balance transfers.
	BalanceTransfers() Table[BalanceTransfer]
	// Evidence pages a dispute's evidence (parent: the dispute's id).
	Evidence() Table[Evidence]
	// Files pages the application's files; a file carries its content, or,
	// in a contentStore, names it (contentRef, contentSize).
	Files() Table[File]
	// Links pages a file's external links (parent: the file's id).
	Links() Table[ExternalLink]
	// Webhooks pages the application's webhooks.
	Webhooks() Table[Webhook]

	// Quota is what counts against the application's bounds.
	Quota() Quota
	// Outbox takes the webhook events and timers the unit produces; they
	// are delivered and started only once the unit has committed.
	Outbox() Outbox
}

// Table is one kind of record of the unit's application.
type Table[T any] interface {
	// Get returns a copy of the record with this id; errNotFound for an id
	// that is unknown or another application's.
	Get(id string) (T, error)
	// Put stores v: a new record (id not yet stored), or a new version of
	// one (its lists follow a changed updated_at or amount). The caller
	// hands v over: it must not change *v afterwards (a store may keep it).
	Put(v *T)
	// Delete removes the record with this id (errNotFound as Get).
	Delete(id string) error
	// Page returns one page of the list under parent ("" for the
	// application's own list) in q's order, and the list's length.
	Page(parent string, q ListQuery) ([]T, int)
}

// AppInfo is an application's own data.
type AppInfo struct {
	FeeProfile     string
	FingerprintKey []byte
}

// Quota is what a unit knows of its application's bounds and what counts
// against them; the rules that refuse (admit, admitWebhook, takeUpload,
// uploadFits in retention.go) are written against it once.
type Quota interface {
	// Limits are the bounds (a zero field: no bound).
	Limits() Limits
	// Usage is what the application holds at the unit's time, after what
	// has aged out was dropped; ok is false once the application is gone.
	Usage() (u Usage, ok bool)
	// EnabledWebhooks counts the application's enabled webhooks.
	EnabledWebhooks() int
	// Count records that the unit creates: it counts as one resource from a
	// body of bodyBytes, whatever it creates (a sale and the dispute its
	// trigger opens are kept, and expire, together).
	Count(bodyBytes int)
	// AddUpload adds n bytes of file content held (given back when the file
	// expires).
	AddUpload(n int64)
}

// Usage is what an application holds against its bounds.
type Usage struct {
	Exempt      bool      // being seeded: its fixtures count against nothing
	Window      time.Time // start of the current minute of creates
	Created     int       // creates in that minute
	Retained    int       // client-created resources held
	Bytes       int64     // their estimated memory
	UploadBytes int64     // file content held
}

// Outbox takes what a unit sets in motion once it commits.
type Outbox interface {
	// Listening reports whether an event of the application may reach a
	// webhook (one is enabled); a unit builds an event's view only then. A
	// store that cannot tell cheaply answers true.
	Listening() bool
	// Emit publishes a created or updated event of entity with the
	// resource's view to the application's enabled webhooks.
	Emit(entity, typ string, view any)
	// After starts a timer of kind for resource id, due after d; base is
	// the base URL of the links of the events the timer emits.
	After(d time.Duration, kind TimerKind, id, base string)
}

// ledger decides exactly-once for idempotency keys: which of concurrent
// requests with one key runs, and what every other one replays. The
// in-memory store is the default ledger; pgstore.Store decides it in the
// database, so duplicates landing on different replicas run once.
type ledger interface {
	// Claim returns the key's entry and whether the caller owns it (must run
	// the request and call settle). A non-owner's entry may still be
	// running: wait on its done channel.
	Claim(ctx context.Context, key IdemKey, hash [32]byte, now time.Time) (*IdemEntry, bool, error)
	// Settle records the owner's outcome; ok false abandons the key so a
	// retry runs afresh.
	Settle(ctx context.Context, key IdemKey, e *IdemEntry, ok bool, out IdemOutcome) error
}

// IdemKey scopes an idempotency_id to an application and an operation.
type IdemKey struct {
	App, Op, ID string
}

// IdemEntry is the outcome of the first request with an idempotency key;
// done is closed once out is set (or the entry is abandoned).
type IdemEntry struct {
	Hash [sha256.Size]byte
	Done chan struct{}
	OK   bool
	Out  IdemOutcome
	// Resumed is set on a claim taken over from a replica that died
	// (PostgreSQL): the id of the resource its unit of work committed
	// before it could record the answer, "" when it committed none.
	Resumed string
	// Holder is the token of the claim the owner holds (PostgreSQL): its
	// unit of work and its answer count only while the key still names it.
	Holder string
}

// IdemOutcome is the complete response of the first request, replayed to
// every retry: status, content type, the request id of an error envelope
// (its logref, also sent as X-Request-Id) and the body.
type IdemOutcome struct {
	Status      int
	ContentType string
	RequestID   string
	Body        []byte
}

// ErrClaimLost is the error of a unit of work whose request's idempotency
// claim was taken over by another replica while it ran (this one stalled
// past the lease): the unit commits nothing, and the request waits for the
// new holder's answer instead. A store whose ledger is in the unit's
// transaction (PostgreSQL) returns it from the unit's end.
var ErrClaimLost = errors.New("ledger: the idempotency claim was taken over while its request ran")

// IdemRun is the idempotency key a request runs under, and, on a claim
// taken over from a replica that died, the resource the first run's unit
// of work committed ("" for none).
type IdemRun struct {
	Key     IdemKey
	Resumed string
	Holder  string // the claim's token (idemEntry.holder)
}

// TimerKind names what a due timer does.
type TimerKind int

const (
	// TimerDisputeStep moves a dispute opened by the sandbox trigger from
	// INQUIRY to PENDING.
	TimerDisputeStep TimerKind = iota + 1
	// TimerFileReview ends the simulated review of an uploaded file.
	TimerFileReview
)

// PendingEvent is an event a unit emitted, published once it commits.
type PendingEvent struct {
	Entity, Typ string
	View        any
}

// PendingTimer is a timer a unit set, started once it commits.
type PendingTimer struct {
	Kind     TimerKind
	Delay    time.Duration
	ID, Base string
}

// Effects is what a committed unit of application app set in motion: its
// events go to the webhooks enabled when it committed (hooks, copies).
type Effects struct {
	App    string
	Events []PendingEvent
	Timers []PendingTimer
	Hooks  []Webhook
}

// Namespace is an isolated part of a shared sandbox: its own two
// applications (platform and merchant users of one, a platform user of the
// other, all with fresh passwords) and its own seeded fixtures, in the shape
// Seeded has. Nothing in one namespace is visible from another or from the
// applications New seeded.
type Namespace struct {
	ID string
	Seeded
}

// Stamp is the time of one operation, captured once so created_at equals
// updated_at on create.
func Stamp(now func() time.Time) time.Time { return now().UTC() }
