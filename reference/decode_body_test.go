package reference

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/conform-kit/conform/reference/ledger"
	"github.com/conform-kit/conform/validate"
	"github.com/stretchr/testify/require"
)

// TestDecodeBodyMatchesDecodeTree: decoding a validated body with the
// validator's decoder builds what decodeTree builds from encoding/json's
// tree, with the same verdict, for every shape decodeTree handles
// (bodyShapes, the table decodeTree is checked against encoding/json with).
func TestDecodeBodyMatchesDecodeTree(t *testing.T) {
	cases := bodyShapes
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dec := json.NewDecoder(bytes.NewReader([]byte(c.body)))
			dec.UseNumber()
			var doc any
			require.NoError(t, dec.Decode(&doc))
			want, got := c.new(), c.new()
			wantErr := decodeTree(doc, want)
			v, err := validate.Default()
			require.NoError(t, err)
			gotErr := decodeBody(v, []byte(c.body), got)
			require.Equal(t, wantErr == nil, gotErr == nil, "decodeBody %v, decodeTree %v", gotErr, wantErr)
			if wantErr != nil {
				require.Equal(t, wantErr.Error(), gotErr.Error())
				var we, ge *ledger.DomainError
				require.Equal(t, errors.As(wantErr, &we), errors.As(gotErr, &ge))
				return
			}
			require.True(t, reflect.DeepEqual(want, got), "decodeBody built\n%#v\ndecodeTree\n%#v", got, want)
		})
	}
}

// TestCountTags counts the members of tags without building them.
func TestCountTags(t *testing.T) {
	for body, want := range map[string]int{
		`{"tags":{}}`:                        0,
		`{"tags":null}`:                      0,
		`{"amount":1}`:                       0,
		`{"tags":{"a":"b"}}`:                 1,
		`{"tags":{ "a" : "b,}" , "c":"\""}}`: 2,
		`{"x":{"a":1,"b":2},"tags":{"a":"","b":"","c":"{"}}`: 3,
	} {
		require.Equal(t, want, countTags([]byte(body)), body)
	}
}
