package pgstore

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/conform-kit/conform/reference/internal/fake"
)

// clock is the tests' settable clock (package fake).
type clock = fake.Clock

func newClock() *clock { return fake.NewClock() }

// counterIDs returns an id source producing prefix + a 22-digit counter.
func counterIDs() func(string) string { return fake.CounterIDs() }

// openStore opens the store on dsn, closed when the test ends.
func openStore(t *testing.T, dsn string) *Store {
	t.Helper()
	pg, err := Open(context.Background(), dsn)
	require.NoError(t, err)
	t.Cleanup(pg.Close)
	return pg
}
