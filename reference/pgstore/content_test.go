package pgstore

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// patternReader yields n bytes of a fixed pattern that no piece repeats
// (a multiplicative hash of the offset), never holding them; past failAt
// (when positive) it fails with errBroken instead.
type patternReader struct{ off, n, failAt int64 }

var errBroken = errors.New("the client went away")

func (r *patternReader) Read(p []byte) (int, error) {
	if r.failAt > 0 && r.off >= r.failAt {
		return 0, errBroken
	}
	if r.off >= r.n {
		return 0, io.EOF
	}
	p = p[:min(int64(len(p)), r.n-r.off)]
	if r.failAt > 0 {
		p = p[:min(int64(len(p)), r.failAt-r.off)]
	}
	for i := range p {
		x := uint64(r.off+int64(i)) * 0x9E3779B97F4A7C15
		p[i] = byte(x >> 56)
	}
	r.off += int64(len(p))
	return len(p), nil
}

// TestPostgresContentInPieces: the store's side of file content (the
// Server's, an upload and a download over HTTP, is reference's
// TestPostgresFileContentStreams). Content staged from a reader is kept in
// pieces of at most ContentPiece bytes under a fresh ref, written back in
// order byte for byte, and dropped by its ref; a reader that fails midway
// stages nothing.
func TestPostgresContentInPieces(t *testing.T) {
	pg := openSeamPostgres(t)
	ctx := context.Background()
	const size = 3*ContentPiece + 100
	ref, n, err := pg.units.StageContent(ctx, pg.appA, "FI_pieces", &patternReader{n: size})
	require.NoError(t, err)
	assert.EqualValues(t, size, n)
	pieces := func(ref string) (count int, longest int64) {
		t.Helper()
		require.NoError(t, pg.units.pool.QueryRow(ctx, `SELECT count(*), coalesce(max(length(data)), 0) FROM file_content WHERE app = $1 AND ref = $2`,
			pg.appA, ref).Scan(&count, &longest))
		return count, longest
	}
	count, longest := pieces(ref)
	assert.Equal(t, 4, count, "pieces of at most ContentPiece bytes")
	assert.EqualValues(t, ContentPiece, longest)

	want := sha256.New()
	_, err = io.Copy(want, &patternReader{n: size})
	require.NoError(t, err)
	got := sha256.New()
	require.NoError(t, pg.units.WriteContent(ctx, pg.appA, ref, got))
	assert.Equal(t, want.Sum(nil), got.Sum(nil), "the content written back byte for byte, in order")
	var other bytes.Buffer
	require.NoError(t, pg.units.WriteContent(ctx, pg.appB, ref, &other))
	assert.Zero(t, other.Len(), "another application's ref names nothing")

	pg.units.DropContent(ctx, pg.appA, ref)
	count, _ = pieces(ref)
	assert.Zero(t, count, "dropped by its ref")

	_, _, err = pg.units.StageContent(ctx, pg.appA, "FI_broken", &patternReader{n: size, failAt: ContentPiece + 10})
	require.ErrorIs(t, err, errBroken, "the reader's error")
	var staged int
	require.NoError(t, pg.units.pool.QueryRow(ctx, `SELECT count(*) FROM file_content WHERE file = 'FI_broken'`).Scan(&staged))
	assert.Zero(t, staged, "a failed read stages nothing")
}
