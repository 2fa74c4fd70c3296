package campaign

import (
	"context"
	"fmt"
	"io"
	"log/slog"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"
)

// migrationLock is the advisory lock the processes joining a database take
// while they migrate it, one after the other ("conform campaign" in ASCII).
const migrationLock = 0x636f6e666f726d

// tables are the campaign's own tables, made idempotently after River's.
//
//   - conform_campaign: one row per campaign: its seed, units and their
//     size, the sequences' length and operations, when it was made, when
//     its last unit was done and when it expires.
//   - conform_campaign_unit: one row per unit done, written in the unit's
//     own transaction with its job's completion: the primary key makes a
//     unit count once.
//   - conform_campaign_finding: one row per fingerprint, its count, first
//     and last seen, and its shortest shrunk scenario.
var tables = []string{
	`CREATE TABLE IF NOT EXISTS conform_campaign (
		name text PRIMARY KEY,
		seed bigint NOT NULL,
		units integer NOT NULL,
		unit_size integer NOT NULL,
		max_steps integer NOT NULL,
		ops text NOT NULL DEFAULT '',
		queue text NOT NULL,
		created_at timestamptz NOT NULL DEFAULT now(),
		finished_at timestamptz,
		expires_at timestamptz NOT NULL
	)`,
	`CREATE TABLE IF NOT EXISTS conform_campaign_unit (
		campaign text NOT NULL REFERENCES conform_campaign (name) ON DELETE CASCADE,
		unit integer NOT NULL,
		first_sequence integer NOT NULL,
		sequences integer NOT NULL,
		requests bigint NOT NULL,
		unanswered integer NOT NULL,
		coverage jsonb NOT NULL,
		worker text NOT NULL,
		attempt integer NOT NULL,
		done_at timestamptz NOT NULL DEFAULT now(),
		PRIMARY KEY (campaign, unit)
	)`,
	`CREATE TABLE IF NOT EXISTS conform_campaign_finding (
		campaign text NOT NULL REFERENCES conform_campaign (name) ON DELETE CASCADE,
		fingerprint text NOT NULL,
		cause text NOT NULL,
		outcome text NOT NULL,
		count integer NOT NULL,
		first_seen timestamptz NOT NULL,
		last_seen timestamptz NOT NULL,
		shrunk integer NOT NULL,
		sequence integer NOT NULL,
		ops text[] NOT NULL,
		record jsonb NOT NULL,
		PRIMARY KEY (campaign, fingerprint)
	)`,
}

// migrate brings River's tables and the campaign's to their current
// version; processes joining at once take turns.
func migrate(ctx context.Context, pool *pgxpool.Pool) error {
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("campaign: connect: %w", err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock($1)`, int64(migrationLock)); err != nil {
		return fmt.Errorf("campaign: migration lock: %w", err)
	}
	defer conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, int64(migrationLock)) //nolint:errcheck // released with the session anyway
	m, err := rivermigrate.New(riverpgxv5.New(pool), &rivermigrate.Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		return fmt.Errorf("campaign: river migrations: %w", err)
	}
	if _, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		return fmt.Errorf("campaign: river migrations: %w", err)
	}
	for _, ddl := range tables {
		if _, err := conn.Exec(ctx, ddl); err != nil {
			return fmt.Errorf("campaign: tables: %w", err)
		}
	}
	return nil
}
