package pgstore

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/conform-kit/conform/reference/ledger"
	"github.com/jackc/pgx/v5"
)

// File content on PostgreSQL (migration 0009): pieces of at most
// ContentPiece bytes in file_content, under a ref the file's record names
// (its hidden content_ref). An upload is staged piece by piece as it is
// read, before the unit of work that attaches it; a download is written
// piece by piece. Memory for either is one piece, whatever the file's size.

// ContentPiece is the most content one row of file_content holds.
const ContentPiece = 256 << 10

// StageContent writes r's bytes in pieces under a fresh ref, attached to
// no file until a unit puts the file with the ref. The pieces go in one
// COPY, each read into the one buffer as the previous one is sent.
func (p *pgUnits) StageContent(ctx context.Context, app, fileID string, r io.Reader) (string, int64, error) {
	ref := p.newID("FC")
	buf := make([]byte, ContentPiece)
	at := ledger.Stamp(p.clock).UnixNano()
	var total int64
	seq, done := 0, false
	var readErr error
	rows := pgx.CopyFromFunc(func() ([]any, error) {
		if done {
			return nil, nil
		}
		n, err := io.ReadFull(r, buf)
		switch {
		case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
			done = true
		case err != nil:
			readErr = err
			return nil, err
		}
		if n == 0 {
			return nil, nil
		}
		total += int64(n)
		seq++
		return []any{app, fileID, ref, seq - 1, at, buf[:n]}, nil
	})
	if _, err := p.pool.CopyFrom(ctx, pgx.Identifier{"file_content"}, []string{"app", "file", "ref", "seq", "created_ns", "data"}, rows); err != nil {
		if readErr != nil {
			return "", total, readErr // nothing was staged: the COPY failed whole
		}
		return "", total, fmt.Errorf("pgstore: stage file content: %w", err)
	}
	return ref, total, nil
}

// DropContent deletes content staged under ref (best effort: the sweep
// deletes what no file names).
func (p *pgUnits) DropContent(ctx context.Context, app, ref string) {
	_, _ = p.pool.Exec(ctx, `DELETE FROM file_content WHERE app = $1 AND ref = $2`, app, ref)
}

// WriteContent writes the pieces of ref to w in order, each straight from
// the connection's buffer.
func (p *pgUnits) WriteContent(ctx context.Context, app, ref string, w io.Writer) error {
	rows, err := p.pool.Query(ctx, `SELECT data FROM file_content WHERE app = $1 AND ref = $2 ORDER BY seq`, app, ref)
	if err != nil {
		return fmt.Errorf("pgstore: read file content: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		if _, err := w.Write(rows.RawValues()[0]); err != nil {
			return fmt.Errorf("pgstore: write file content: %w", err)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("pgstore: read file content: %w", err)
	}
	return nil
}

// putContentPieces writes content a rule put whole (an external link's
// upload, the seeded evidence) in pieces in the unit's transaction, and
// returns its ref.
func (t *pgTx) putContentPieces(app, fileID string, content []byte) string {
	ref := t.p.newID("FC")
	for seq := 0; len(content) > 0 || seq == 0; seq++ {
		n := min(len(content), ContentPiece)
		_, err := t.tx.Exec(t.ctx, `INSERT INTO file_content (app, file, ref, seq, created_ns, data) VALUES ($1, $2, $3, $4, $5, $6)`,
			app, fileID, ref, seq, t.now.UnixNano(), content[:n])
		t.must(err)
		content = content[n:]
	}
	return ref
}

// pgUnits streams file content.
var _ ledger.ContentStore = (*pgUnits)(nil)
