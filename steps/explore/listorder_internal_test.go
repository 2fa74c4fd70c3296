package explore

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func item(id string, amount int64, created string) map[string]any {
	return map[string]any{"id": id, "amount": json.Number(jsonInt(amount)), "created_at": created}
}

func jsonInt(n int64) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// TestOutOfOrderJudgesEachKey: each sort value in turn, the next asked
// only where an amount ties; timestamps and ids never break a tie.
func TestOutOfOrderJudgesEachKey(t *testing.T) {
	const t1, t2 = "2030-01-01T00:00:00.000Z", "2030-01-01T00:00:01.000Z"
	tests := []struct {
		name   string
		keys   []sortKey
		a, b   map[string]any
		bad    bool
		byWhat string
	}{
		{"amount desc holds", []sortKey{{"amount", true}}, item("A", 5, t1), item("B", 3, t2), false, ""},
		{"amount desc broken", []sortKey{{"amount", true}}, item("A", 3, t1), item("B", 5, t2), true, "amount"},
		{"amount asc broken", []sortKey{{"amount", false}}, item("A", 5, t1), item("B", 3, t2), true, "amount"},
		{"a single key's tie is not judged", []sortKey{{"amount", true}}, item("B", 3, t2), item("A", 3, t1), false, ""},
		{"the second key on an amount tie", []sortKey{{"amount", true}, {"created_at", false}}, item("B", 3, t2), item("A", 3, t1), true, "created_at"},
		{"the second key holds on an amount tie", []sortKey{{"amount", true}, {"created_at", false}}, item("A", 3, t1), item("B", 3, t2), false, ""},
		{"a timestamp tie says nothing of the next key", []sortKey{{"created_at", true}, {"amount", true}}, item("A", 3, t1), item("B", 5, t1), false, ""},
		{"the default order", defaultOrder, item("A", 0, t1), item("B", 0, t2), true, "created_at"},
		{"ids are never compared", []sortKey{{"id", false}}, item("B", 0, t1), item("A", 0, t1), false, ""},
		{"a field an item lacks", []sortKey{{"amount", true}}, map[string]any{"id": "A"}, item("B", 5, t1), false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k, bad := outOfOrder(tt.keys, tt.a, tt.b)
			assert.Equal(t, tt.bad, bad)
			assert.Equal(t, tt.byWhat, k.Field)
		})
	}
}

// TestSelfLinkMisses: the self link carries the page's offset and limit
// and every sort value sent, in order; more sort values are allowed.
func TestSelfLinkMisses(t *testing.T) {
	sent := []sortKey{{"amount", true}, {"created_at", false}}
	tests := []struct {
		name, href string
		offset     int
		miss       string
	}{
		{"all carried", "http://x/transfers?offset=20&limit=20&sort=amount,desc&sort=created_at,asc", 20, ""},
		{"a tie-break added", "http://x/transfers?offset=0&limit=20&sort=amount,desc&sort=created_at,asc&sort=id,desc", 0, ""},
		{"the second sort value dropped", "http://x/transfers?offset=0&limit=20&sort=amount,desc", 0, "sort=created_at,asc"},
		{"the sort values swapped", "http://x/transfers?offset=0&limit=20&sort=created_at,asc&sort=amount,desc", 0, "sort=created_at,asc"},
		{"another offset", "http://x/transfers?offset=0&limit=20&sort=amount,desc&sort=created_at,asc", 20, `offset=20 (it carries "0")`},
		{"no limit", "http://x/transfers?offset=0&sort=amount,desc&sort=created_at,asc", 0, `limit=20 (it carries "")`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.miss, selfLinkMisses(tt.href, tt.offset, 20, sent))
		})
	}
	// A limit clamped: the self link may carry the limit asked or the page's.
	clamped := "http://x/transfers?offset=0&limit=300&sort=amount,desc&sort=created_at,asc"
	assert.Empty(t, selfLinkMisses(clamped, 0, 250, sent, 300))
	assert.Equal(t, `limit=250 (it carries "300")`, selfLinkMisses(clamped, 0, 250, sent, 20))
}

// TestDrawSortCoversEveryField: the sorts drawn name every sortable
// field of a list in both directions, one and two at a time, the default
// order first.
func TestDrawSortCoversEveryField(t *testing.T) {
	seen := map[string]bool{}
	counts := map[int]int{}
	for seed := range uint64(400) {
		g := &generator{c: newChoices(seed)}
		keys := g.drawSort("transfers")
		counts[len(keys)]++
		for _, k := range keys {
			seen[k.String()] = true
		}
		assert.Equal(t, keys, sortsOf(sortQuery(keys)), "the query reads back as drawn")
	}
	for _, f := range sortFields("transfers") {
		assert.True(t, seen[f+",asc"], f+",asc")
		assert.True(t, seen[f+",desc"], f+",desc")
	}
	for n := range 3 {
		assert.Positive(t, counts[n], "sorts of %d values", n)
	}
	g := &generator{c: replay(nil)} // every draw 0: the simplest
	require.Empty(t, g.drawSort("transfers"), "the simplest sort is the default order")
	assert.NotContains(t, sortFields("webhooks"), "amount", "a webhook shows no amount")
}
