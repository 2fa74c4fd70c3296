package faults

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/conform-kit/conform/validate/judging"
)

// TestEveryProfileKeyHasAVariant holds the kit to its promise that no
// declared choice goes unproved: every profile key of the judging table is
// declared by at least one conformant variant, whose run the suite must
// neither FAIL nor (with the profile declared) WARN.
func TestEveryProfileKeyHasAVariant(t *testing.T) {
	declared := map[string][]string{}
	for _, v := range Variants() {
		var keys map[string]json.RawMessage
		require.NoError(t, json.Unmarshal([]byte(v.Profile), &keys), "variant %s: profile is not a JSON object", v.Name)
		for k := range keys {
			declared[k] = append(declared[k], v.Name)
		}
	}
	v, err := judging.Default()
	require.NoError(t, err, "judging.Default")
	var keys []string
	for _, p := range v.Table().Profile {
		keys = append(keys, p.Key)
		if p.Key == "observed_once" {
			continue // a note of the writer: it declares no choice to prove
		}
		assert.NotEmpty(t, declared[p.Key], "profile key %s: no variant declares it", p.Key)
	}
	for k, names := range declared {
		assert.Contains(t, keys, k, "variants %v declare %s, which is not a profile key", names, k)
	}
}
