package memstore

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/conform-kit/conform/reference/ledger"
)

// TestSortedPageIsOfOneMoment: a reading unit takes a sorted page without
// the store's lock, and a writer may commit meanwhile. A file whose
// updated_at a writer moved then (to the newest) is not copied at its old
// place: the page is in its order, as of one moment. An explore run found
// such a page of /files?sort=updated_at,desc out of order on the bundled
// reference.
func TestSortedPageIsOfOneMoment(t *testing.T) {
	for _, tc := range []struct {
		name   string
		writes int // units that would move a file while the page is taken
		moved  int // those that did: none once the page is taken under the lock
	}{
		{"one write meanwhile", 1, 1},
		{"writes at every try", 10, pageTries}, // then the page under the lock
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, fx, app, now := storeFixture(t)
			var ids []string
			for i := range 5 {
				require.NoError(t, inUnit(st, app, now.Add(time.Duration(i)*time.Second), func(t ledger.Tx) error {
					f, err := ledger.CreateFile(t, ledger.FileCreate{DisplayName: "f", LinkedTo: fx.Fixtures.Merchant, Type: "OTHER"})
					ids = append(ids, f.ID)
					return err
				}))
			}
			writes, later := 0, now.Add(time.Hour)
			st.pageUnlocked = func() {
				if writes == tc.writes {
					return
				}
				writes++
				later = later.Add(time.Second)
				// The oldest-updated file of those left becomes the newest.
				require.NoError(t, inUnit(st, app, later, func(t ledger.Tx) error {
					f, err := t.Files().Get(ids[(writes-1)%len(ids)])
					if err != nil {
						return err
					}
					f.UpdatedAt = ledger.JSONTime(t.Now())
					t.Files().Put(&f)
					return nil
				}))
			}
			var page []ledger.File
			require.NoError(t, ledger.RunUnit(st, context.Background(), app, later, true, nil, func(t ledger.Tx) error {
				page, _ = t.Files().Page("", ledger.ListQuery{Limit: 20, Sort: []ledger.SortKey{{Field: "updated_at", Desc: true}}})
				return nil
			}))
			assert.Equal(t, tc.moved, writes, "the writers committed while the page was taken")
			require.NotEmpty(t, page)
			for i := 1; i < len(page); i++ {
				a, b := time.Time(page[i-1].UpdatedAt), time.Time(page[i].UpdatedAt)
				assert.False(t, b.After(a), "%s (updated_at %s) after %s (updated_at %s)", page[i].ID, b, page[i-1].ID, a)
			}
		})
	}
}
