package judging_test

import (
	"testing"

	"github.com/conform-kit/conform/validate"
	"github.com/conform-kit/conform/validate/judging"
	"github.com/stretchr/testify/require"
)

// newJudge builds a Judge over a fresh Validator.
func newJudge(t testing.TB) *judging.Judge {
	t.Helper()
	v, err := validate.New()
	require.NoError(t, err, "validate.New")
	j, err := judging.New(v)
	require.NoError(t, err, "judging.New")
	return j
}
