package campaign

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/conform-kit/conform/reference/pgtest"
)

// TestCauseNormalisesWhatDiffersFromRunToRun: ids and numbers in a cause's
// reason are written as {id} and {n}; the sections of the basis stay.
func TestCauseNormalisesWhatDiffersFromRunToRun(t *testing.T) {
	cases := []struct{ in, want string }{
		{`refused request changes nothing|FAIL|§7, invariant refusal_changes_nothing|transfer = null → "TRGLrXwD3OcMXPZu9fhuVOad"`,
			`refused request changes nothing|FAIL|§7, invariant refusal_changes_nothing|transfer = null → "{id}"`},
		{`list pages walk to page.count|FAIL|§2.12, §4.10|page.count = 37 → 38`, `list pages walk to page.count|FAIL|§2.12, §4.10|page.count = {n} → {n}`},
		{`no 5xx for a request|FAIL|§7, invariant no_server_error|500`, `no 5xx for a request|FAIL|§7, invariant no_server_error|{n}`},
		{`computed field|FAIL|§2.3|last_four`, `computed field|FAIL|§2.3|last_four`},
	}
	for _, c := range cases {
		t.Run(c.in, func(t *testing.T) {
			assert.Equal(t, c.want, normalise(c.in))
		})
	}
}

// TestJoinMakesOnce: processes joining one campaign at once make it once
// and read the same spec; joining with another seed is refused; a spec's
// zero fields take the defaults.
func TestJoinMakesOnce(t *testing.T) {
	dsn := pgtest.Start(t).NewDatabase(t, "join")
	ctx := context.Background()
	var wg sync.WaitGroup
	made := make([]bool, 4)
	specs := make([]Spec, 4)
	for i := range made {
		wg.Go(func() {
			s, err := Open(ctx, dsn) // each migrates: they take turns
			if !assert.NoError(t, err) {
				return
			}
			defer s.Close()
			specs[i], made[i], err = s.Join(ctx, Spec{Name: "nightly", Seed: 9}, time.Hour)
			assert.NoError(t, err)
		})
	}
	wg.Wait()
	n := 0
	for i := range made {
		if made[i] {
			n++
		}
		assert.Equal(t, Spec{Name: "nightly", Seed: 9, Units: DefaultUnits, UnitSize: DefaultUnitSize, MaxSteps: DefaultMaxSteps}, specs[i])
	}
	assert.Equal(t, 1, n, "made once")

	s, err := Open(ctx, dsn)
	require.NoError(t, err)
	defer s.Close()
	_, _, err = s.Join(ctx, Spec{Name: "nightly", Seed: 10}, time.Hour)
	assert.ErrorIs(t, err, ErrSpec, "another seed")
	got, made1, err := s.Join(ctx, Spec{Name: "nightly"}, time.Hour)
	require.NoError(t, err)
	assert.False(t, made1)
	assert.Equal(t, uint64(9), got.Seed, "joined without a seed: the campaign's")
	_, err = s.Report(ctx, "absent")
	assert.ErrorIs(t, err, ErrNotFound)
}
