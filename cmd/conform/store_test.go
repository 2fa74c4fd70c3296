package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/conform-kit/conform/reference/pgtest"
)

// TestExploreAcrossPostgresReplicas: conform explore through the second of
// two conform serve --store replicas on one database, with the first's
// config (its credentials and fixtures are the second's), finds nothing.
// It runs against a real PostgreSQL (reference/pgtest), as TestPostgres.
func TestExploreAcrossPostgresReplicas(t *testing.T) {
	cluster := pgtest.Start(t)
	dsn := cluster.NewDatabase(t, "explore")
	pathA, cfgA := serveFixtures(t, "--store", dsn)
	_, cfgB := serveFixtures(t, "--store", dsn)
	require.NotEqual(t, cfgA.Target, cfgB.Target)
	require.Equal(t, cfgA.Credentials, cfgB.Credentials, "one sandbox: one seed, the same credentials")
	require.Equal(t, cfgA.Fixtures, cfgB.Fixtures)

	code, out, errOut := run(t, "", "explore", "--target", cfgB.Target, "--config", pathA, "--budget", "1500", "--seed", "5")
	require.Equal(t, exitOK, code, "%s\n%s", out, errOut)
	assert.Contains(t, out, "0 FAIL, 0 WARN (replay: --seed 5 ")
}
