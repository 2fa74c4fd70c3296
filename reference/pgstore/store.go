package pgstore

import (
	"bytes"
	"context"
	"crypto/rand"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/conform-kit/conform/reference/ledger"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

//go:embed migrations/*.sql
var migrations embed.FS

// migrationLock is the advisory lock key under which migrations run, so
// replicas starting at once apply each migration exactly once.
const migrationLock = 0x636f6e666f726d // "conform"

// Store is a PostgreSQL database that Servers (replicas) share. It is a
// ledger.Store: given as a Server's store (reference.Config.Store) it holds
// the Server's whole sandbox (the replicas on it are one sandbox);
// LedgerOnly keeps only the idempotency ledger there. It is safe for
// concurrent use; Close releases its connections.
type Store struct {
	pool *pgxpool.Pool
	// lease is how long a claimed, unfinished key belongs to its replica;
	// after it another replica may take the key over (the first one died).
	lease time.Duration
	// poll is how often a waiting duplicate looks for the outcome.
	poll time.Duration
}

// Open connects to dsn (postgres://…) and applies the embedded migrations
// not applied yet, under an advisory lock (replicas opening at once apply
// each one once).
func Open(ctx context.Context, dsn string) (*Store, error) {
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		return nil, fmt.Errorf("pgstore: postgres: %w", err)
	}
	if err := migrate(ctx, pool); err != nil {
		pool.Close()
		return nil, err
	}
	return &Store{pool: pool, lease: 30 * time.Second, poll: 5 * time.Millisecond}, nil
}

// Close closes the store's connections.
func (p *Store) Close() { p.pool.Close() }

// migrate applies, in one transaction under an advisory lock, every
// embedded migration whose version schema_migrations lacks.
func migrate(ctx context.Context, pool *pgxpool.Pool) error {
	names, err := fs.Glob(migrations, "migrations/*.sql")
	if err != nil {
		return fmt.Errorf("pgstore: migrations: %w", err)
	}
	sort.Strings(names)
	tx, err := pool.Begin(ctx)
	if err != nil {
		return fmt.Errorf("pgstore: migrate: %w", err)
	}
	defer tx.Rollback(ctx) //nolint:errcheck // after Commit it is a no-op
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", migrationLock); err != nil {
		return fmt.Errorf("pgstore: migrate: lock: %w", err)
	}
	if _, err := tx.Exec(ctx, "CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())"); err != nil {
		return fmt.Errorf("pgstore: migrate: %w", err)
	}
	for _, name := range names {
		base := strings.TrimPrefix(name, "migrations/")
		version, err := strconv.Atoi(strings.SplitN(base, "_", 2)[0])
		if err != nil {
			return fmt.Errorf("pgstore: migration %s: the name must start with its version number", base)
		}
		var applied bool
		if err := tx.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM schema_migrations WHERE version = $1)", version).Scan(&applied); err != nil {
			return fmt.Errorf("pgstore: migrate: %w", err)
		}
		if applied {
			continue
		}
		sql, err := migrations.ReadFile(name)
		if err != nil {
			return fmt.Errorf("pgstore: migration %s: %w", base, err)
		}
		if _, err := tx.Exec(ctx, string(sql)); err != nil {
			return fmt.Errorf("pgstore: migration %s: %w", base, err)
		}
		if _, err := tx.Exec(ctx, "INSERT INTO schema_migrations (version) VALUES ($1)", version); err != nil {
			return fmt.Errorf("pgstore: migration %s: %w", base, err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("pgstore: migrate: %w", err)
	}
	return nil
}

// pgLedger is the PostgreSQL ledger of one Server: its application's keys
// bounded by maxKeys (0: no bound), as the in-memory ledger bounds them by
// Limits.MaxRetained.
type pgLedger struct {
	*Store
	maxKeys int
	maxAge  time.Duration // named in the refusal; keys older are expired
	log     *slog.Logger
}

// keys is p's ledger for a Server with these limits.
func (p *Store) keys(lim ledger.Limits, log *slog.Logger) pgLedger {
	return pgLedger{Store: p, maxKeys: lim.MaxRetained, maxAge: lim.MaxAge, log: log}
}

func (l pgLedger) Claim(ctx context.Context, key ledger.IdemKey, hash [32]byte, now time.Time) (*ledger.IdemEntry, bool, error) {
	return l.claimBounded(ctx, key, hash, now, l.maxKeys, l.maxAge)
}

// expire deletes the finished keys past the age limit at now (none when
// there is no limit).
func (l pgLedger) expire(ctx context.Context, now time.Time) {
	if l.maxAge <= 0 {
		return
	}
	if err := l.expireIdempotency(ctx, now.Add(-l.maxAge)); err != nil && ctx.Err() == nil {
		l.log.Error("expire idempotency keys", "error", err)
	}
}

// Claim claims the key in the database's idempotency ledger, with no bound
// on the application's keys (a Server's ledger bounds them by its limits):
// the first claim owns the key, a duplicate waits for its outcome, and a
// claim whose lease has run out is taken over (ledger.SandboxStore's Claim).
func (p *Store) Claim(ctx context.Context, key ledger.IdemKey, hash [32]byte, now time.Time) (*ledger.IdemEntry, bool, error) {
	return p.claimBounded(ctx, key, hash, now, 0, 0)
}

// claimBounded inserts the key; the insert that wins owns it. A loser waits
// for the owner's outcome (polling), takes the key over when the owner's
// lease has run out, or claims it afresh when the owner abandoned it. A new
// key beyond the application's maxKeys (when positive) is 429
// QUOTA_EXCEEDED: a key is never forgotten before its age, or a retry would
// run twice.
func (p *Store) claimBounded(ctx context.Context, key ledger.IdemKey, hash [32]byte, now time.Time, maxKeys int, maxAge time.Duration) (*ledger.IdemEntry, bool, error) {
	// A finished key created before cutoff is past the age limit: absent
	// when read, as in memory, whether or not the sweep has deleted it.
	var cutoff time.Time
	if maxAge > 0 {
		cutoff = now.Add(-maxAge)
	}
	for {
		holder := newHolder()
		won, err := p.insertKey(ctx, key, hash, holder, now, maxKeys, maxAge, cutoff)
		if err != nil {
			return nil, false, err
		}
		if won {
			return &ledger.IdemEntry{Hash: hash, Done: make(chan struct{}), Holder: holder}, true, nil
		}
		e, owner, err := p.await(ctx, key, hash, holder, cutoff)
		if err != nil || e != nil {
			return e, owner, err
		}
		// Abandoned (deleted): claim again.
	}
}

// newHolder is a fresh claim token (ledger.IdemEntry.Holder).
func newHolder() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // never fails on supported platforms
	return hex.EncodeToString(b[:])
}

// insertKey inserts the key, held by holder, and counts it against the
// application's keys, in one transaction: won is false when the key exists. A finished key
// created before cutoff (when not zero) is deleted first, giving its count
// back.
func (p *Store) insertKey(ctx context.Context, key ledger.IdemKey, hash [32]byte, holder string, now time.Time, maxKeys int, maxAge time.Duration, cutoff time.Time) (won bool, err error) {
	tx, err := p.pool.Begin(ctx)
	if err != nil {
		return false, fmt.Errorf("idempotency key %s: %w", key.ID, err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx)) //nolint:errcheck // after Commit it is a no-op
	if !cutoff.IsZero() {
		if _, err := tx.Exec(ctx, `WITH gone AS (
				DELETE FROM idempotency_keys WHERE app = $1 AND op = $2 AND id = $3 AND done AND created_at < $4 RETURNING app)
			UPDATE idempotency_counts c SET keys = c.keys - 1 FROM gone WHERE c.app = gone.app`, key.App, key.Op, key.ID, cutoff); err != nil {
			return false, fmt.Errorf("idempotency key %s: %w", key.ID, err)
		}
	}
	tag, err := tx.Exec(ctx, `INSERT INTO idempotency_keys (app, op, id, hash, created_at, claimed_at, holder)
		VALUES ($1, $2, $3, $4, $5, clock_timestamp(), $6) ON CONFLICT DO NOTHING`, key.App, key.Op, key.ID, hash[:], now, holder)
	if err != nil {
		return false, fmt.Errorf("idempotency key %s: %w", key.ID, err)
	}
	if tag.RowsAffected() == 0 {
		return false, nil
	}
	bound := maxKeys
	if bound <= 0 {
		bound = math.MaxInt32
	}
	tag, err = tx.Exec(ctx, `INSERT INTO idempotency_counts AS c (app, keys) VALUES ($1, 1)
		ON CONFLICT (app) DO UPDATE SET keys = c.keys + 1 WHERE c.keys < $2`, key.App, bound)
	if err != nil {
		return false, fmt.Errorf("idempotency key %s: %w", key.ID, err)
	}
	if tag.RowsAffected() == 0 {
		return false, ledger.ErrQuota("this application holds %d idempotency keys, the most it may; they free up as they reach the age limit (%s)", maxKeys, ledger.AgeText(maxAge))
	}
	if err := tx.Commit(ctx); err != nil {
		return false, fmt.Errorf("idempotency key %s: %w", key.ID, err)
	}
	return true, nil
}

// await polls key until it is done (the outcome in a settled entry, not
// owned), its lease has run out (taken over by holder: an owned entry) or it
// is gone or done before cutoff (a nil entry: claim afresh).
func (p *Store) await(ctx context.Context, key ledger.IdemKey, want [32]byte, holder string, cutoff time.Time) (*ledger.IdemEntry, bool, error) {
	t := time.NewTicker(p.poll)
	defer t.Stop()
	for {
		var (
			hash        []byte
			done        bool
			status      *int32
			contentType *string
			requestID   *string
			body        []byte
			createdAt   time.Time
		)
		err := p.pool.QueryRow(ctx, `SELECT hash, done, status, content_type, request_id, body, created_at FROM idempotency_keys
			WHERE app = $1 AND op = $2 AND id = $3`, key.App, key.Op, key.ID).Scan(&hash, &done, &status, &contentType, &requestID, &body, &createdAt)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			return nil, false, nil
		case err == nil && done && createdAt.Before(cutoff):
			return nil, false, nil // aged out: insertKey deletes it
		case err != nil:
			return nil, false, fmt.Errorf("idempotency key %s: %w", key.ID, err)
		case done || !bytes.Equal(hash, want[:]):
			// Finished, or running with another body (a 422 to the caller
			// whatever its outcome): nothing to wait for.
			e := &ledger.IdemEntry{Done: make(chan struct{}), OK: true}
			copy(e.Hash[:], hash)
			e.Out = ledger.IdemOutcome{Status: int(deref32(status)), ContentType: derefStr(contentType), RequestID: derefStr(requestID), Body: bytes.Clone(body)}
			close(e.Done)
			return e, false, nil
		}
		var resumed *string
		// The new holder fences the old one out: its unit of work, if it is
		// still running, commits nothing (pgTx.commit), and its answer is
		// not recorded (settle). A unit it committed before is named by
		// resource, read here after that commit (the row's lock orders them).
		err = p.pool.QueryRow(ctx, `UPDATE idempotency_keys SET claimed_at = clock_timestamp(), holder = $5
			WHERE app = $1 AND op = $2 AND id = $3 AND NOT done AND claimed_at < clock_timestamp() - $4::interval
			RETURNING resource`,
			key.App, key.Op, key.ID, p.lease.String(), holder).Scan(&resumed)
		switch {
		case err == nil:
			// Taken over: the first claim's replica died, or gave up a claim
			// whose unit committed (settle). Its unit of work may have
			// committed (resource) before it recorded the answer.
			e := &ledger.IdemEntry{Done: make(chan struct{}), Resumed: derefStr(resumed), Holder: holder}
			copy(e.Hash[:], hash)
			return e, true, nil
		case !errors.Is(err, pgx.ErrNoRows):
			return nil, false, fmt.Errorf("idempotency key %s: %w", key.ID, err)
		}
		select {
		case <-ctx.Done():
			return nil, false, fmt.Errorf("wait for idempotent request %s: %w", key.ID, ctx.Err())
		case <-t.C:
		}
	}
}

// Settle stores the outcome (ok) or gives the claim up (abandoned), both
// only while e still holds the key (a claim taken over belongs to its new
// holder). A claim given up is deleted when its unit committed nothing; a
// claim naming a resource (the unit committed, and then the request failed,
// e.g. the commit's answer was lost) stays, its lease ended, so the next
// request takes it over at once and answers that resource: a retry never
// creates a second one.
func (p *Store) Settle(ctx context.Context, key ledger.IdemKey, e *ledger.IdemEntry, ok bool, out ledger.IdemOutcome) error {
	defer close(e.Done)
	e.OK, e.Out = ok, out
	ctx = context.WithoutCancel(ctx)
	var err error
	if ok {
		_, err = p.pool.Exec(ctx, `UPDATE idempotency_keys SET done = true, status = $4, content_type = $5, request_id = $6, body = $7
			WHERE app = $1 AND op = $2 AND id = $3 AND NOT done AND holder = $8`,
			key.App, key.Op, key.ID, out.Status, out.ContentType, out.RequestID, out.Body, e.Holder)
	} else {
		// The DELETE waits for a unit of work still committing on the row
		// (the unit updated it) and then sees its resource; the UPDATE, a
		// statement of its own, reads the row after that commit.
		var tag pgconn.CommandTag
		tag, err = p.pool.Exec(ctx, `WITH gone AS (
				DELETE FROM idempotency_keys WHERE app = $1 AND op = $2 AND id = $3 AND NOT done AND holder = $4 AND resource IS NULL RETURNING app)
			UPDATE idempotency_counts c SET keys = c.keys - 1 FROM gone WHERE c.app = gone.app`, key.App, key.Op, key.ID, e.Holder)
		if err == nil && tag.RowsAffected() == 0 {
			_, err = p.pool.Exec(ctx, `UPDATE idempotency_keys SET claimed_at = '-infinity'
				WHERE app = $1 AND op = $2 AND id = $3 AND NOT done AND holder = $4 AND resource IS NOT NULL`, key.App, key.Op, key.ID, e.Holder)
		}
	}
	if err != nil {
		return fmt.Errorf("idempotency key %s: %w", key.ID, err)
	}
	return nil
}

// expireIdempotency deletes finished keys created before cutoff.
func (p *Store) expireIdempotency(ctx context.Context, cutoff time.Time) error {
	if _, err := p.pool.Exec(ctx, `WITH gone AS (
			DELETE FROM idempotency_keys WHERE done AND created_at < $1 RETURNING app),
		n AS (SELECT app, count(*) AS n FROM gone GROUP BY app)
		UPDATE idempotency_counts c SET keys = c.keys - n.n FROM n WHERE c.app = n.app`, cutoff); err != nil {
		return fmt.Errorf("expire idempotency keys: %w", err)
	}
	return nil
}

func deref32(p *int32) int32 {
	if p == nil {
		return 0
	}
	return *p
}

func derefStr(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// AddAdminToken keeps the SHA-256 of a sandbox admin token a replica
// handed out, so that every replica on the database honours it, after a
// restart too (HasAdminToken).
func (p *Store) AddAdminToken(ctx context.Context, sum [32]byte) error {
	if _, err := p.pool.Exec(ctx, `INSERT INTO admin_tokens (hash) VALUES ($1) ON CONFLICT DO NOTHING`, sum[:]); err != nil {
		return fmt.Errorf("pgstore: keep the admin token: %w", err)
	}
	return nil
}

// HasAdminToken reports whether sum is the SHA-256 of an admin token some
// replica on the database handed out.
func (p *Store) HasAdminToken(ctx context.Context, sum [32]byte) (bool, error) {
	var found bool
	if err := p.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM admin_tokens WHERE hash = $1)`, sum[:]).Scan(&found); err != nil {
		return false, fmt.Errorf("pgstore: check the admin token: %w", err)
	}
	return found, nil
}
