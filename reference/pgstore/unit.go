package pgstore

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/conform-kit/conform/reference/ledger"
	"github.com/conform-kit/conform/reference/memstore"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// The PostgreSQL implementation of the store seam (ledger/unit.go): a unit of work
// is one SERIALIZABLE transaction, run again from the start (at the same
// captured time) when PostgreSQL reports a serialization failure (SQLSTATE
// 40001) or a deadlock (40P01). Every resource is one row of records
// (migrations/0002_units.sql); the lists are selected through its indexes.
// The events a unit emits and the timers it sets are rows of outbox and
// timers written in the unit's transaction, so they commit with it; once
// committed they are also handed to the process's dispatcher.

// pgUnits is a ledger.SandboxStore on a PostgreSQL database.
type pgUnits struct {
	pool  *pgxpool.Pool
	clock func() time.Time
	newID func(prefix string) string
	// limits are the quotas' bounds; nil: none (and nothing expires).
	limits *ledger.Limits
	// dispatch publishes a committed unit's events and timers; nil drops them.
	dispatch func(ledger.Effects)
	// keys is the idempotency ledger, in the same database: the unit of an
	// idempotent request records in its key what it created.
	keys pgLedger
}

func (p *pgUnits) Claim(ctx context.Context, key ledger.IdemKey, hash [32]byte, now time.Time) (*ledger.IdemEntry, bool, error) {
	return p.keys.Claim(ctx, key, hash, now)
}

func (p *pgUnits) Settle(ctx context.Context, key ledger.IdemKey, e *ledger.IdemEntry, ok bool, out ledger.IdemOutcome) error {
	return p.keys.Settle(ctx, key, e, ok, out)
}

// newPgUnits runs units of work on pool, which has the migrations applied.
func newPgUnits(pool *pgxpool.Pool, clock func() time.Time, newID func(string) string) *pgUnits {
	return &pgUnits{pool: pool, clock: clock, newID: newID}
}

// maxAttempts bounds how often a unit runs again after serialization failures.
const maxAttempts = 50

// Update runs fn as one read-write unit of work.
func (p *pgUnits) Update(ctx context.Context, app string, fn func(ledger.Tx) error) error {
	return ledger.RunUnit(p, ctx, app, ledger.Stamp(p.clock), false, nil, fn)
}

// View runs fn as one read-only unit of work.
func (p *pgUnits) View(ctx context.Context, app string, fn func(ledger.Tx) error) error {
	return ledger.RunUnit(p, ctx, app, ledger.Stamp(p.clock), true, nil, fn)
}

// LinkOwner finds the application of an external link by its id alone.
func (p *pgUnits) LinkOwner(ctx context.Context, id string) (string, bool) {
	var app string
	err := p.pool.QueryRow(ctx, `SELECT app FROM records WHERE kind = 'link' AND id = $1`, id).Scan(&app)
	return app, err == nil
}

// Begin starts a unit in a SERIALIZABLE transaction of its own (read-only
// for a view). ledger.RunUnit runs it again, at the same now, after a
// serialization conflict, until it commits, fails for another reason or ran
// maxAttempts times.
func (p *pgUnits) Begin(ctx context.Context, app string, now time.Time, readOnly bool, claim *ledger.IdemRun) (ledger.OpenUnit, error) {
	opts := pgx.TxOptions{IsoLevel: pgx.Serializable}
	if readOnly {
		opts.AccessMode = pgx.ReadOnly
	}
	dbtx, err := p.pool.BeginTx(ctx, opts)
	if err != nil {
		return nil, fmt.Errorf("pgstore: begin a unit of work: %w", err)
	}
	t := newPgTx(p, ctx, dbtx, app, now, readOnly)
	t.claim = claim
	return t, nil
}

// End commits the unit when err is nil, else rolls it back; a
// serialization failure or a deadlock is run again (after a pause growing
// with attempt). A committed unit's events and timers go to the dispatcher.
func (t *pgTx) End(err error, attempt int) (bool, error) {
	if err == nil {
		err = t.commit()
	}
	_ = t.tx.Rollback(context.WithoutCancel(t.ctx)) // after Commit it is a no-op
	if err != nil && retryable(err) && attempt < maxAttempts && t.ctx.Err() == nil {
		time.Sleep(time.Duration(attempt) * time.Millisecond)
		return true, nil
	}
	if err == nil && t.p.dispatch != nil && (len(t.eff.Hooks) > 0 || len(t.eff.Timers) > 0) {
		t.eff.App = t.app
		t.p.dispatch(t.eff)
	}
	return false, err
}

// Abort turns a pgAbort panic into the unit's error; any other panic rolls
// the unit back and goes on.
func (t *pgTx) Abort(p any) error {
	if a, ok := p.(pgAbort); ok {
		return a.err
	}
	_ = t.tx.Rollback(context.WithoutCancel(t.ctx))
	panic(p)
}

// retryable reports a serialization failure or a deadlock: the unit lost a
// race with another and may run again.
func retryable(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && (pe.Code == "40001" || pe.Code == "40P01")
}

// pgAbort carries a database error out of the rules: table methods that
// return no error (Put, Page) panic with it, and the unit's abort turns it
// into the unit's error.
type pgAbort struct{ err error }

// pgTx is a unit of work of the PostgreSQL store.
type pgTx struct {
	p         *pgUnits
	ctx       context.Context
	tx        pgx.Tx
	claim     *ledger.IdemRun // the idempotency claim of the unit's request, or nil
	app       string
	now       time.Time
	readOnly  bool
	admitted  bool
	bodyBytes int
	created   []string // ids of the records the unit created
	createdAs []string // their kinds, the primary key's first column
	eff       ledger.Effects

	identities     pgTable[ledger.Identity, *ledger.Identity]
	cards          pgTable[ledger.PaymentInstrument, *ledger.PaymentInstrument]
	authorizations pgTable[ledger.Authorization, *ledger.Authorization]
	transfers      pgTable[ledger.Transfer, *ledger.Transfer]
	merchants      pgTable[ledger.Merchant, *ledger.Merchant]
	disputes       pgTable[ledger.Dispute, *ledger.Dispute]
	schedules      pgTable[ledger.SubscriptionSchedule, *ledger.SubscriptionSchedule]
	amounts        pgTable[ledger.SubscriptionAmount, *ledger.SubscriptionAmount]
	enrollments    pgTable[ledger.SubscriptionEnrollment, *ledger.SubscriptionEnrollment]
	balances       pgTable[ledger.BalanceTransfer, *ledger.BalanceTransfer]
	evidence       pgTable[ledger.Evidence, *ledger.Evidence]
	files          pgTable[ledger.File, *ledger.File]
	links          pgTable[ledger.ExternalLink, *ledger.ExternalLink]
	webhooks       pgTable[ledger.Webhook, *ledger.Webhook]
}

// Record kinds, the kind column of records.
const (
	kindIdentity   = "identity"
	kindCard       = "card"
	kindAuth       = "authorization"
	kindTransfer   = "transfer"
	kindMerchant   = "merchant"
	kindDispute    = "dispute"
	kindSchedule   = "schedule"
	kindAmount     = "amount"
	kindEnrollment = "enrollment"
	kindBalance    = "balance_transfer"
	kindEvidence   = "evidence"
	kindFile       = "file"
	kindLink       = "link"
	kindWebhook    = "webhook"
	noParent       = ""
)

func newPgTx(p *pgUnits, ctx context.Context, dbtx pgx.Tx, app string, now time.Time, readOnly bool) *pgTx {
	t := &pgTx{p: p, ctx: ctx, tx: dbtx, app: app, now: now, readOnly: readOnly}
	t.identities = pgTable[ledger.Identity, *ledger.Identity]{t: t, kind: kindIdentity}
	t.cards = pgTable[ledger.PaymentInstrument, *ledger.PaymentInstrument]{t: t, kind: kindCard}
	t.authorizations = pgTable[ledger.Authorization, *ledger.Authorization]{t: t, kind: kindAuth}
	t.transfers = pgTable[ledger.Transfer, *ledger.Transfer]{t: t, kind: kindTransfer, byParent: true,
		parentOf: func(v *ledger.Transfer) string {
			if v.Adjustment != nil {
				return v.Adjustment.Dispute
			}
			return noParent
		}}
	t.merchants = pgTable[ledger.Merchant, *ledger.Merchant]{t: t, kind: kindMerchant,
		parentOf: func(v *ledger.Merchant) string { return v.Identity }}
	t.disputes = pgTable[ledger.Dispute, *ledger.Dispute]{t: t, kind: kindDispute, byApp: true}
	t.schedules = pgTable[ledger.SubscriptionSchedule, *ledger.SubscriptionSchedule]{t: t, kind: kindSchedule}
	t.amounts = pgTable[ledger.SubscriptionAmount, *ledger.SubscriptionAmount]{t: t, kind: kindAmount}
	t.enrollments = pgTable[ledger.SubscriptionEnrollment, *ledger.SubscriptionEnrollment]{t: t, kind: kindEnrollment,
		byApp: true, byParent: true,
		parentOf: func(v *ledger.SubscriptionEnrollment) string { return v.SubscriptionSchedule }}
	t.balances = pgTable[ledger.BalanceTransfer, *ledger.BalanceTransfer]{t: t, kind: kindBalance, byApp: true}
	t.evidence = pgTable[ledger.Evidence, *ledger.Evidence]{t: t, kind: kindEvidence, byParent: true,
		parentOf: func(v *ledger.Evidence) string { return v.Dispute }}
	t.files = pgTable[ledger.File, *ledger.File]{t: t, kind: kindFile, byApp: true}
	t.links = pgTable[ledger.ExternalLink, *ledger.ExternalLink]{t: t, kind: kindLink, byParent: true,
		parentOf: func(v *ledger.ExternalLink) string { return v.FileID }}
	t.webhooks = pgTable[ledger.Webhook, *ledger.Webhook]{t: t, kind: kindWebhook, byApp: true}
	return t
}

// run runs fn, turning a pgAbort panic into the unit's error.
func (t *pgTx) run(fn func(ledger.Tx) error) (err error) {
	defer recoverAbort(&err)
	return fn(t)
}

// recoverAbort, deferred, turns a pgAbort panic into *err; any other panic
// goes on.
func recoverAbort(err *error) {
	if r := recover(); r != nil {
		a, ok := r.(pgAbort)
		if !ok {
			panic(r)
		}
		*err = a.err
	}
}

// must aborts the unit on a database error.
func (t *pgTx) must(err error) {
	if err != nil {
		panic(pgAbort{err: fmt.Errorf("pgstore: unit of work of %s: %w", t.app, err)})
	}
}

// commit writes what the unit set in motion and what counts against the
// quotas, then commits the transaction.
func (t *pgTx) commit() (err error) {
	defer recoverAbort(&err)
	if t.readOnly {
		return t.tx.Commit(t.ctx)
	}
	nowNS := t.now.UnixNano()
	for _, e := range t.eff.Events {
		view, err := json.Marshal(e.View)
		t.must(err)
		_, err = t.tx.Exec(t.ctx, `INSERT INTO outbox (app, entity, typ, view, created_ns) VALUES ($1, $2, $3, $4, $5)`,
			t.app, e.Entity, e.Typ, string(view), nowNS)
		t.must(err)
	}
	for _, tm := range t.eff.Timers {
		_, err := t.tx.Exec(t.ctx, `INSERT INTO timers (app, kind, resource_id, base, due_ns) VALUES ($1, $2, $3, $4, $5)`,
			t.app, int(tm.Kind), tm.ID, tm.Base, t.now.Add(tm.Delay).UnixNano())
		t.must(err)
	}
	if len(t.eff.Events) > 0 && t.p.dispatch != nil {
		t.eff.Hooks = t.enabledWebhooks()
	}
	if c := t.claim; c != nil && c.Holder != "" {
		// The unit of an idempotent request commits only while its claim
		// is still held (a replica that stalled past the lease may have
		// lost it to another, which runs the request): the claim's holder
		// is checked, and the claim names what the unit created, in the
		// unit's transaction. A replica taking the claim over answers that
		// resource instead of creating it again; one taking it over while
		// this unit runs makes this check fail (the row's lock and
		// SERIALIZABLE order the two), and this unit commits nothing.
		var created *string
		if len(t.created) > 0 {
			created = &t.created[0]
		}
		tag, err := t.tx.Exec(t.ctx, `UPDATE idempotency_keys SET resource = coalesce($5, resource)
			WHERE app = $1 AND op = $2 AND id = $3 AND NOT done AND holder = $4`,
			c.Key.App, c.Key.Op, c.Key.ID, c.Holder, created)
		t.must(err)
		if tag.RowsAffected() == 0 {
			panic(pgAbort{err: ledger.ErrClaimLost})
		}
	}
	if t.admitted && t.p.limits != nil {
		units, bytes := 0, int64(0)
		if len(t.created) > 0 {
			units, bytes = 1, ledger.Cost(t.bodyBytes)
		}
		_, err := t.tx.Exec(t.ctx, `UPDATE apps SET
			window_ns = CASE WHEN $2 - window_ns >= $3 OR $2 < window_ns THEN $2 ELSE window_ns END,
			created = (CASE WHEN $2 - window_ns >= $3 OR $2 < window_ns THEN 0 ELSE created END) + $4,
			retained = retained + $4, retained_bytes = retained_bytes + $5
			WHERE app = $1`, t.app, nowNS, int64(time.Minute), units, bytes)
		t.must(err)
		if len(t.created) > 0 {
			unit := t.created[0]
			_, err = t.tx.Exec(t.ctx, `INSERT INTO retained_units (app, unit, at_ns, cost) VALUES ($1, $2, $3, $4)`,
				t.app, unit, nowNS, bytes)
			t.must(err)
			// By the primary key (kind, id): id alone would scan the whole index.
			_, err = t.tx.Exec(t.ctx, `UPDATE records r SET unit = $2 FROM unnest($3::text[], $4::text[]) AS c(kind, id)
				WHERE r.kind = c.kind AND r.id = c.id AND r.app = $1`, t.app, unit, t.createdAs, t.created)
			t.must(err)
		}
	}
	// A unit that reached its commit finishes it even when its request is
	// cancelled (the client went away): a commit cancelled in flight may
	// have committed or not, and the request could not tell which.
	return t.tx.Commit(context.WithoutCancel(t.ctx))
}

// enabledWebhooks are the application's enabled webhooks.
func (t *pgTx) enabledWebhooks() []ledger.Webhook {
	hooks, err := enabledWebhooksIn(t.ctx, t.tx, t.app)
	t.must(err)
	return hooks
}

// enabledWebhooksIn are the enabled webhooks of app, read in dbtx.
func enabledWebhooksIn(ctx context.Context, dbtx pgx.Tx, app string) ([]ledger.Webhook, error) {
	rows, err := dbtx.Query(ctx, `SELECT `+recordColumns+` FROM records
		WHERE app = $1 AND kind = 'webhook' AND (doc->>'enabled')::boolean ORDER BY created_ns, id`, app)
	if err != nil {
		return nil, err
	}
	return scanRecords[ledger.Webhook](rows)
}

func (t *pgTx) Now() time.Time             { return t.now }
func (t *pgTx) App() string                { return t.app }
func (t *pgTx) NewID(prefix string) string { return t.p.newID(prefix) }

func (t *pgTx) AppInfo() (ledger.AppInfo, bool) {
	var info ledger.AppInfo
	err := t.tx.QueryRow(t.ctx, `SELECT fee_profile, fingerprint_key FROM apps WHERE app = $1`, t.app).Scan(&info.FeeProfile, &info.FingerprintKey)
	if errors.Is(err, pgx.ErrNoRows) {
		return ledger.AppInfo{}, false
	}
	t.must(err)
	return info, true
}

func (t *pgTx) Identities() ledger.Table[ledger.Identity]                { return &t.identities }
func (t *pgTx) Cards() ledger.Table[ledger.PaymentInstrument]            { return &t.cards }
func (t *pgTx) Authorizations() ledger.Table[ledger.Authorization]       { return &t.authorizations }
func (t *pgTx) Transfers() ledger.Table[ledger.Transfer]                 { return &t.transfers }
func (t *pgTx) Merchants() ledger.Table[ledger.Merchant]                 { return &t.merchants }
func (t *pgTx) Disputes() ledger.Table[ledger.Dispute]                   { return &t.disputes }
func (t *pgTx) Schedules() ledger.Table[ledger.SubscriptionSchedule]     { return &t.schedules }
func (t *pgTx) Amounts() ledger.Table[ledger.SubscriptionAmount]         { return &t.amounts }
func (t *pgTx) Enrollments() ledger.Table[ledger.SubscriptionEnrollment] { return &t.enrollments }
func (t *pgTx) BalanceTransfers() ledger.Table[ledger.BalanceTransfer]   { return &t.balances }
func (t *pgTx) Evidence() ledger.Table[ledger.Evidence]                  { return &t.evidence }
func (t *pgTx) Files() ledger.Table[ledger.File]                         { return &t.files }
func (t *pgTx) Links() ledger.Table[ledger.ExternalLink]                 { return &t.links }
func (t *pgTx) Webhooks() ledger.Table[ledger.Webhook]                   { return &t.webhooks }
func (t *pgTx) Quota() ledger.Quota                                      { return t }
func (t *pgTx) Outbox() ledger.Outbox                                    { return t }

// MerchantByIdentity finds the merchant row whose parent is the identity.
func (t *pgTx) MerchantByIdentity(identityID string) (ledger.Merchant, bool) {
	rows, err := t.tx.Query(t.ctx, `SELECT `+recordColumns+` FROM records
		WHERE app = $1 AND kind = 'merchant' AND parent = $2 ORDER BY created_ns, id LIMIT 1`, t.app, identityID)
	t.must(err)
	ms, err := scanRecords[ledger.Merchant](rows)
	t.must(err)
	if len(ms) == 0 {
		return ledger.Merchant{}, false
	}
	return ms[0], true
}

// Limits are the store's bounds; none without them.
func (t *pgTx) Limits() ledger.Limits {
	if t.p.limits != nil {
		return *t.p.limits
	}
	return ledger.Limits{}
}

// Usage drops the application's units older than the age limit, then
// reads its counts.
func (t *pgTx) Usage() (ledger.Usage, bool) {
	var u ledger.Usage
	var windowNS int64
	err := t.tx.QueryRow(t.ctx, `SELECT window_ns, created, upload_bytes, retained, retained_bytes FROM apps WHERE app = $1`, t.app).
		Scan(&windowNS, &u.Created, &u.UploadBytes, &u.Retained, &u.Bytes)
	if errors.Is(err, pgx.ErrNoRows) {
		return ledger.Usage{}, false
	}
	t.must(err)
	lim := t.p.limits
	if lim == nil {
		return ledger.Usage{Exempt: true, UploadBytes: u.UploadBytes}, true
	}
	if lim.MaxAge > 0 && !t.readOnly {
		t.expire(t.now.Add(-lim.MaxAge).UnixNano())
		t.must(t.tx.QueryRow(t.ctx, `SELECT upload_bytes, retained, retained_bytes FROM apps WHERE app = $1`, t.app).
			Scan(&u.UploadBytes, &u.Retained, &u.Bytes))
	}
	u.Window = time.Unix(0, windowNS).UTC()
	return u, true
}

// expire drops the application's units created before cutoff (Unix ns)
// with their records and what hangs off them.
func (t *pgTx) expire(cutoff int64) {
	rows, err := t.tx.Query(t.ctx, `WITH gone AS (
			DELETE FROM retained_units WHERE app = $1 AND at_ns < $2 RETURNING unit, cost),
		totals AS (UPDATE apps SET retained = retained - (SELECT count(*) FROM gone),
			retained_bytes = retained_bytes - (SELECT coalesce(sum(cost), 0) FROM gone) WHERE app = $1)
		DELETE FROM records r USING gone WHERE r.app = $1 AND r.unit = gone.unit
		RETURNING r.kind, r.id, `+contentLength, t.app, cutoff)
	t.must(err)
	type dropped struct {
		kind, id string
		n        int64
	}
	var ds []dropped
	for rows.Next() {
		var d dropped
		t.must(rows.Scan(&d.kind, &d.id, &d.n))
		ds = append(ds, d)
	}
	t.must(rows.Err())
	for _, d := range ds {
		t.cascade(d.kind, d.id, d.n)
	}
}

// contentLength is the length of a file record r's content: its pieces'
// (content_size) or, uploaded before migration 0009, its content column's.
const contentLength = `coalesce(length(r.content), (r.hidden->>'content_size')::bigint, 0)`

// cascade drops what hangs off a dropped record, as the in-memory store
// does: a dispute's evidence and adjustment transfers, a file's links and
// its content's bytes. A webhook's pending deliveries are the sweep's: a
// unit deleting them would conflict with the posts updating them (a
// serialization failure the unit retries, then a 500).
func (t *pgTx) cascade(kind, id string, contentBytes int64) {
	switch kind {
	case kindDispute:
		_, err := t.tx.Exec(t.ctx, `DELETE FROM records WHERE app = $1 AND kind IN ('evidence', 'transfer') AND parent = $2`, t.app, id)
		t.must(err)
	case kindFile:
		_, err := t.tx.Exec(t.ctx, `DELETE FROM records WHERE app = $1 AND kind = 'link' AND parent = $2`, t.app, id)
		t.must(err)
		_, err = t.tx.Exec(t.ctx, `DELETE FROM file_content WHERE app = $1 AND file = $2`, t.app, id)
		t.must(err)
		t.AddUpload(-contentBytes)
	}
}

func (t *pgTx) EnabledWebhooks() int {
	var n int
	t.must(t.tx.QueryRow(t.ctx, `SELECT count(*) FROM records WHERE app = $1 AND kind = 'webhook' AND (doc->>'enabled')::boolean`, t.app).Scan(&n))
	return n
}

// Count marks the unit as a create; what it created is kept together at
// commit.
func (t *pgTx) Count(bodyBytes int) { t.admitted, t.bodyBytes = true, bodyBytes }

func (t *pgTx) AddUpload(n int64) {
	if t.readOnly {
		panic("pgstore: AddUpload in a read-only unit of work")
	}
	_, err := t.tx.Exec(t.ctx, `UPDATE apps SET upload_bytes = upload_bytes + $2 WHERE app = $1`, t.app, n)
	t.must(err)
}

func (t *pgTx) Listening() bool { return t.EnabledWebhooks() > 0 }

func (t *pgTx) Emit(entity, typ string, view any) {
	t.eff.Events = append(t.eff.Events, ledger.PendingEvent{Entity: entity, Typ: typ, View: view})
}

func (t *pgTx) After(d time.Duration, kind ledger.TimerKind, id, base string) {
	t.eff.Timers = append(t.eff.Timers, ledger.PendingTimer{Kind: kind, Delay: d, ID: id, Base: base})
}

// pgTable is one kind of record in the records table.
type pgTable[T any, P pgRecord[T]] struct {
	t    *pgTx
	kind string
	// byApp: Page("") lists the application's records; byParent:
	// Page(parent) lists a parent's. parentOf fills the parent column
	// (also for a lookup only, as a merchant's identity).
	byApp, byParent bool
	parentOf        func(P) string
}

// recordColumns are what scanRecords reads.
const recordColumns = `app, created_ns, updated_ns, doc::text, coalesce(hidden::text, ''), content`

func (tb *pgTable[T, P]) Get(id string) (T, error) {
	rows, err := tb.t.tx.Query(tb.t.ctx, `SELECT `+recordColumns+` FROM records WHERE kind = $1 AND id = $2 AND app = $3`, tb.kind, id, tb.t.app)
	tb.t.must(err)
	vs, err := scanRecords[T, P](rows)
	tb.t.must(err)
	if len(vs) == 0 {
		var zero T
		return zero, ledger.ErrNotFound(id)
	}
	return vs[0], nil
}

func (tb *pgTable[T, P]) Put(v *T) {
	t := tb.t
	if t.readOnly {
		panic("pgstore: Put in a read-only unit of work")
	}
	p := P(v)
	app := p.AppID()
	if app == "" {
		app = t.app
	}
	if f, ok := any(p).(*ledger.File); ok && f.Content != nil {
		// Content a rule put whole is kept in pieces too (the record's
		// content column is only read, for content uploaded before 0009).
		f.ContentRef, f.ContentSize = t.putContentPieces(app, f.ID, f.Content), int64(len(f.Content))
		f.Content = nil
	}
	doc, hidden, content, err := encodeRecord(p)
	t.must(err)
	parent := noParent
	if tb.parentOf != nil {
		parent = tb.parentOf(p)
	}
	m := p.MetaRef()
	var inserted bool
	err = t.tx.QueryRow(t.ctx, `INSERT INTO records (app, kind, id, parent, created_ns, updated_ns, amount, doc, hidden, content)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
		ON CONFLICT (kind, id) DO UPDATE SET parent = EXCLUDED.parent, updated_ns = EXCLUDED.updated_ns,
			amount = EXCLUDED.amount, doc = EXCLUDED.doc, hidden = EXCLUDED.hidden, content = EXCLUDED.content
		RETURNING (xmax = 0)`,
		app, tb.kind, m.ID, parent, time.Time(m.CreatedAt).UnixNano(), time.Time(m.UpdatedAt).UnixNano(),
		p.SortValue("amount").Int, doc, hidden, content).Scan(&inserted)
	t.must(err)
	if inserted {
		t.created = append(t.created, m.ID)
		t.createdAs = append(t.createdAs, tb.kind)
	}
}

func (tb *pgTable[T, P]) Delete(id string) error {
	t := tb.t
	if t.readOnly {
		panic("pgstore: Delete in a read-only unit of work")
	}
	var n int64
	err := t.tx.QueryRow(t.ctx, `DELETE FROM records r WHERE kind = $1 AND id = $2 AND app = $3 RETURNING `+contentLength,
		tb.kind, id, t.app).Scan(&n)
	if errors.Is(err, pgx.ErrNoRows) {
		return ledger.ErrNotFound(id)
	}
	t.must(err)
	t.cascade(tb.kind, id, n)
	return nil
}

// Page selects one page through the list's index: the default order is
// newest first; any other orders by q's keys, ties in creation order.
func (tb *pgTable[T, P]) Page(parent string, q ledger.ListQuery) ([]T, int) {
	t := tb.t
	var where string
	args := []any{tb.kind}
	switch {
	case parent != "" && tb.byParent:
		where, args = `kind = $1 AND parent = $2 AND app = $3`, append(args, parent, t.app)
	case parent == "" && tb.byApp:
		where, args = `app = $2 AND kind = $1`, append(args, t.app)
	default:
		return []T{}, 0
	}
	var total int
	t.must(t.tx.QueryRow(t.ctx, `SELECT count(*) FROM records WHERE `+where, args...).Scan(&total))
	order := `created_ns DESC, id DESC`
	if !q.IsDefaultOrder() {
		keys := make([]string, 0, len(q.Sort)+2)
		for _, k := range q.Sort {
			col := map[string]string{"id": "id", "created_at": "created_ns", "updated_at": "updated_ns", "amount": "amount"}[k.Field]
			if col == "" {
				continue
			}
			dir := " ASC"
			if k.Desc {
				dir = " DESC"
			}
			keys = append(keys, col+dir)
		}
		order = strings.Join(append(keys, "created_ns ASC", "id ASC"), ", ")
	}
	n := len(args)
	rows, err := t.tx.Query(t.ctx, fmt.Sprintf(`SELECT %s FROM records WHERE %s ORDER BY %s OFFSET $%d LIMIT $%d`,
		recordColumns, where, order, n+1, n+2), append(args, q.Offset, q.Limit)...)
	t.must(err)
	out, err := scanRecords[T, P](rows)
	t.must(err)
	return out, total
}

// scanRecords decodes rows of recordColumns.
func scanRecords[T any, P pgRecord[T]](rows pgx.Rows) ([]T, error) {
	defer rows.Close()
	out := []T{}
	for rows.Next() {
		var (
			app                string
			createdNS, updated int64
			doc, hidden        string
			content            []byte
		)
		if err := rows.Scan(&app, &createdNS, &updated, &doc, &hidden, &content); err != nil {
			return nil, err
		}
		var v T
		if err := decodeRecord(P(&v), []byte(doc), []byte(hidden), content); err != nil {
			return nil, err
		}
		m := P(&v).MetaRef()
		m.App = app
		m.CreatedAt, m.UpdatedAt = ledger.JSONTime(time.Unix(0, createdNS).UTC()), ledger.JSONTime(time.Unix(0, updated).UTC())
		out = append(out, v)
	}
	return out, rows.Err()
}

// pgRecord is a pointer to a record the PostgreSQL store keeps.
type pgRecord[T any] interface {
	*T
	ledger.Record
	MetaRef() *ledger.Meta
}

// pgHidden is a record's bookkeeping that its JSON representation leaves
// out (unexported fields), stored beside it in records.hidden.
type pgHidden struct {
	Merchant         string `json:"merchant,omitempty"`
	Adjustment       bool   `json:"adjustment,omitempty"`
	DisputedTransfer string `json:"disputed_transfer,omitempty"`
	Dispute          string `json:"dispute,omitempty"`
	ProducedByUpdate bool   `json:"produced_by_update,omitempty"`
	Updated          bool   `json:"updated,omitempty"`
	ContentType      string `json:"content_type,omitempty"`
	ContentRef       string `json:"content_ref,omitempty"`  // its pieces in file_content
	ContentSize      int64  `json:"content_size,omitempty"` // their length
	AuthUsername     string `json:"auth_username,omitempty"`
	AuthPassword     string `json:"auth_password,omitempty"`
	AuthToken        string `json:"auth_token,omitempty"`
	// PurchaseData is additional_purchase_data byte for byte (json.Marshal
	// compacts a json.RawMessage).
	PurchaseData []byte `json:"purchase_data,omitempty"`
}

// encodeRecord is a record's doc (its JSON representation), its hidden
// fields (nil for none) and a file's content.
func encodeRecord(p any) (doc string, hidden *string, content []byte, err error) {
	var h pgHidden
	switch v := p.(type) {
	case *ledger.Authorization:
		h.Merchant, h.PurchaseData = v.Merchant, v.AdditionalPurchaseData
	case *ledger.Transfer:
		h.PurchaseData = v.AdditionalPurchaseData
		if v.Adjustment != nil {
			h.Adjustment, h.DisputedTransfer, h.Dispute = true, v.Adjustment.DisputedTransfer, v.Adjustment.Dispute
		}
	case *ledger.SubscriptionAmount:
		h.ProducedByUpdate, h.Updated = v.ProducedByUpdate, v.Updated
	case *ledger.File:
		h.ContentType, h.ContentRef, h.ContentSize, content = v.ContentType, v.ContentRef, v.ContentSize, v.Content
	case *ledger.Webhook:
		h.AuthUsername, h.AuthPassword, h.AuthToken = v.Authentication.Username, v.Authentication.Password, v.Authentication.Token
	}
	b, err := json.Marshal(p)
	if err != nil {
		return "", nil, nil, fmt.Errorf("encode record: %w", err)
	}
	if h.Merchant != "" || h.Adjustment || h.ProducedByUpdate || h.Updated || h.ContentType != "" || h.ContentRef != "" ||
		h.AuthUsername != "" || h.AuthPassword != "" || h.AuthToken != "" || h.PurchaseData != nil {
		hb, err := json.Marshal(h)
		if err != nil {
			return "", nil, nil, fmt.Errorf("encode record: %w", err)
		}
		s := string(hb)
		hidden = &s
	}
	return string(b), hidden, content, nil
}

// decodeRecord reverses encodeRecord into p.
func decodeRecord(p any, doc, hidden, content []byte) error {
	var h pgHidden
	if len(hidden) > 0 {
		if err := json.Unmarshal(hidden, &h); err != nil {
			return fmt.Errorf("decode record: %w", err)
		}
	}
	if v, ok := p.(*ledger.Transfer); ok && h.Adjustment {
		// encoding/json cannot allocate an embedded pointer to an
		// unexported struct; given one, it fills it.
		v.Adjustment = &ledger.Adjustment{DisputedTransfer: h.DisputedTransfer, Dispute: h.Dispute}
	}
	if err := json.Unmarshal(doc, p); err != nil {
		return fmt.Errorf("decode record: %w", err)
	}
	switch v := p.(type) {
	case *ledger.Authorization:
		v.Merchant = h.Merchant
		if h.PurchaseData != nil {
			v.AdditionalPurchaseData = h.PurchaseData
		}
	case *ledger.Transfer:
		if h.PurchaseData != nil {
			v.AdditionalPurchaseData = h.PurchaseData
		}
	case *ledger.SubscriptionAmount:
		v.ProducedByUpdate, v.Updated = h.ProducedByUpdate, h.Updated
	case *ledger.File:
		v.ContentType, v.Content, v.ContentRef, v.ContentSize = h.ContentType, content, h.ContentRef, h.ContentSize
	case *ledger.Webhook:
		v.Authentication.Username, v.Authentication.Password, v.Authentication.Token = h.AuthUsername, h.AuthPassword, h.AuthToken
	}
	return nil
}

// importStore copies the applications, users and records of a seeded
// in-memory store into the database in one transaction (none counts
// against a quota): a store seeded in memory becomes the database's seed.
func (p *pgUnits) importStore(ctx context.Context, st *memstore.Store) error {
	if err := p.inTx(ctx, func(dbtx pgx.Tx) error { return p.importInto(ctx, dbtx, st, "") }); err != nil {
		return fmt.Errorf("pgstore: import a seeded store: %w", err)
	}
	return nil
}

// importInto writes st's applications (of namespace ns, "" for none), its
// users with salted hashes of their passwords, and its records.
func (p *pgUnits) importInto(ctx context.Context, dbtx pgx.Tx, st *memstore.Store, ns string) error {
	var nsArg *string
	if ns != "" {
		nsArg = &ns
	}
	for _, a := range st.Apps() {
		if _, err := dbtx.Exec(ctx, `INSERT INTO apps (app, fee_profile, fingerprint_key, upload_bytes, namespace) VALUES ($1, $2, $3, $4, $5)`,
			a.ID, a.FeeProfile, a.FingerprintKey, a.UploadBytes, nsArg); err != nil {
			return err
		}
	}
	for _, u := range st.Users() {
		salt := make([]byte, 16)
		if _, err := rand.Read(salt); err != nil {
			return err
		}
		hash := ledger.SaltedHash(salt, u.Password)
		if _, err := dbtx.Exec(ctx, `INSERT INTO users (username, salt, hash, role, app) VALUES ($1, $2, $3, $4, $5)`,
			u.ID, salt, hash[:], u.Role, u.App); err != nil {
			return err
		}
	}
	t := newPgTx(p, ctx, dbtx, "", p.clock(), false)
	return t.run(func(u ledger.Tx) error {
		st.PutRecords(u)
		return nil
	})
}

// User reads a user and marks its namespace used at now.
func (p *pgUnits) User(ctx context.Context, username string, now time.Time) (ledger.User, bool) {
	u := ledger.User{ID: username}
	var ns *string
	err := p.pool.QueryRow(ctx, `SELECT u.salt, u.hash, u.role, u.app, a.namespace FROM users u JOIN apps a ON a.app = u.app
		WHERE u.username = $1`, username).Scan(&u.Salt, &u.Hash, &u.Role, &u.App, &ns)
	if err != nil {
		return ledger.User{}, false
	}
	if ns != nil {
		// Best effort: a failed mark only lets the namespace idle sooner.
		_, _ = p.pool.Exec(ctx, `UPDATE namespaces SET used_ns = $2 WHERE id = $1 AND used_ns < $2`, *ns, now.UnixNano())
	}
	return u, true
}

// MintNamespace seeds a namespace in a store of its own in memory and
// writes it to the database in one transaction, which also counts the
// namespaces held against max.
func (p *pgUnits) MintNamespace(ctx context.Context, src *ledger.SeededSource, max int, idle time.Duration, now time.Time) (ledger.Namespace, error) {
	mem, ns := memstore.NewSeededNamespace(p.newID, p.clock, src, now)
	err := p.inTx(ctx, func(dbtx pgx.Tx) error {
		if max > 0 {
			var n int
			if err := dbtx.QueryRow(ctx, `SELECT count(*) FROM namespaces`).Scan(&n); err != nil {
				return err
			}
			if n >= max {
				return ledger.ErrQuota("this sandbox holds %d namespaces, the most it may; drop one, or wait for an idle one to be dropped (%s idle)", max, idle)
			}
		}
		if _, err := dbtx.Exec(ctx, `INSERT INTO namespaces (id, used_ns) VALUES ($1, $2)`, ns.ID, now.UnixNano()); err != nil {
			return err
		}
		return p.importInto(ctx, dbtx, mem, ns.ID)
	})
	var de *ledger.DomainError
	if err != nil && !errors.As(err, &de) {
		return ledger.Namespace{}, fmt.Errorf("pgstore: mint a namespace: %w", err)
	}
	if err != nil {
		return ledger.Namespace{}, err
	}
	return ns, nil
}

// DropNamespace removes a namespace with its applications, users and records.
func (p *pgUnits) DropNamespace(ctx context.Context, id string) bool {
	var found bool
	err := p.inTx(ctx, func(dbtx pgx.Tx) error {
		var err error
		found, err = p.dropNamespaces(ctx, dbtx, `id = $1`, id)
		return err
	})
	return err == nil && found
}

// dropNamespaces drops the namespaces matching where (over $1) with what
// belongs to their applications; ON DELETE CASCADE takes apps and users.
func (p *pgUnits) dropNamespaces(ctx context.Context, dbtx pgx.Tx, where string, arg any) (bool, error) {
	rows, err := dbtx.Query(ctx, `SELECT a.app FROM apps a JOIN namespaces n ON n.id = a.namespace WHERE n.`+where, arg)
	if err != nil {
		return false, err
	}
	apps, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return false, err
	}
	for _, q := range []string{
		`DELETE FROM records WHERE app = ANY($1)`,
		`DELETE FROM retained_units WHERE app = ANY($1)`,
		`DELETE FROM outbox WHERE app = ANY($1)`,
		`DELETE FROM deliveries WHERE app = ANY($1)`,
		`DELETE FROM timers WHERE app = ANY($1)`,
		`DELETE FROM file_content WHERE app = ANY($1)`,
		`DELETE FROM idempotency_keys WHERE app = ANY($1)`,
		`DELETE FROM idempotency_counts WHERE app = ANY($1)`,
	} {
		if _, err := dbtx.Exec(ctx, q, apps); err != nil {
			return false, err
		}
	}
	tag, err := dbtx.Exec(ctx, `DELETE FROM namespaces WHERE `+where, arg)
	if err != nil {
		return false, err
	}
	return tag.RowsAffected() > 0, nil
}

// NamespaceCount is how many namespaces the database holds.
func (p *pgUnits) NamespaceCount(ctx context.Context) int {
	var n int
	if err := p.pool.QueryRow(ctx, `SELECT count(*) FROM namespaces`).Scan(&n); err != nil {
		return 0
	}
	return n
}

// SettledKept is how long the sweep keeps a delivery after it settled, so
// that a check comparing deliveries with what its receiver got still finds
// them.
const SettledKept = 10 * time.Minute

// Sweep drops, application by application, the units older than the age
// limit, the idempotency keys past it, the delivered events and run
// timers, then the namespaces nobody used for idle. Every replica may
// sweep: each drop is a transaction of its own.
func (p *pgUnits) Sweep(ctx context.Context, now time.Time, idle time.Duration) {
	if lim := p.limits; lim != nil && lim.MaxAge > 0 {
		cutoff := now.Add(-lim.MaxAge).UnixNano()
		rows, err := p.pool.Query(ctx, `SELECT DISTINCT app FROM retained_units WHERE at_ns < $1`, cutoff)
		if err == nil {
			apps, err := pgx.CollectRows(rows, pgx.RowTo[string])
			if err == nil {
				for _, app := range apps {
					_ = p.Update(ctx, app, func(u ledger.Tx) error {
						u.(*pgTx).expire(cutoff)
						return nil
					})
				}
			}
		}
	}
	p.keys.expire(ctx, now)
	// Published events and run timers are kept until the next sweep only;
	// a settled delivery ten minutes (SettledKept), so that a delivery seen
	// by its receiver can still be read beside its event for a while (a
	// sweep once a minute dropped those of a run still checking them).
	_, _ = p.pool.Exec(ctx, `DELETE FROM outbox WHERE delivered`)
	_, _ = p.pool.Exec(ctx, `DELETE FROM deliveries WHERE done AND (done_at IS NULL OR done_at < clock_timestamp() - $1 * interval '1 microsecond')`,
		SettledKept.Microseconds())
	// Pending deliveries to a webhook that is gone (expired, or an event
	// published while it expired): otherwise each stays until its next
	// retry finds the webhook gone, up to 9 minutes each and 20 over the
	// five retries (a soak of webhooks to a target that is gone, expiring
	// after 10 minutes, held 25,000 such rows of 49 expired webhooks
	// beside 41,000 live ones).
	_, _ = p.pool.Exec(ctx, `DELETE FROM deliveries d WHERE NOT d.done AND NOT EXISTS (
		SELECT 1 FROM records r WHERE r.kind = 'webhook' AND r.id = d.webhook)`)
	_, _ = p.pool.Exec(ctx, `DELETE FROM timers WHERE done`)
	// Content staged for an upload whose unit failed and whose replica
	// died before dropping it: no file names it, an hour on.
	_, _ = p.pool.Exec(ctx, `DELETE FROM file_content c WHERE c.created_ns < $1 AND NOT EXISTS (
		SELECT 1 FROM records r WHERE r.kind = 'file' AND r.id = c.file AND r.hidden->>'content_ref' = c.ref)`, now.Add(-time.Hour).UnixNano())
	if idle > 0 {
		_ = p.inTx(ctx, func(dbtx pgx.Tx) error {
			_, err := p.dropNamespaces(ctx, dbtx, `used_ns <= $1`, now.Add(-idle).UnixNano())
			return err
		})
	}
}

// inTx runs fn in a SERIALIZABLE transaction, again on a serialization
// failure; a pgAbort panic of a pgTx used inside becomes its error. Callers
// wrap what it returns.
func (p *pgUnits) inTx(ctx context.Context, fn func(pgx.Tx) error) error {
	for attempt := 1; ; attempt++ {
		err := func() (err error) {
			dbtx, err := p.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.Serializable})
			if err != nil {
				return err
			}
			defer dbtx.Rollback(context.WithoutCancel(ctx)) //nolint:errcheck // after Commit it is a no-op
			defer recoverAbort(&err)
			if err := fn(dbtx); err != nil {
				return err
			}
			return dbtx.Commit(ctx)
		}()
		if err != nil && retryable(err) && attempt < maxAttempts && ctx.Err() == nil {
			time.Sleep(time.Duration(attempt) * time.Millisecond)
			continue
		}
		return err
	}
}
