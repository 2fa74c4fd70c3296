package pgtest

import (
	"context"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestClusterStartsAndIsRemoved: a cluster answers queries on its socket,
// and Stop removes its directory.
func TestClusterStartsAndIsRemoved(t *testing.T) {
	c, err := start()
	require.NoError(t, err)
	dsn := c.NewDatabase(t, "probe")
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	require.NoError(t, err)
	var one int
	require.NoError(t, conn.QueryRow(ctx, "SELECT 1").Scan(&one))
	assert.Equal(t, 1, one)
	require.NoError(t, conn.Close(ctx))
	require.NoError(t, c.Stop())
	_, err = os.Stat(c.dir)
	assert.True(t, os.IsNotExist(err), "the cluster's directory is removed: %v", err)
}
