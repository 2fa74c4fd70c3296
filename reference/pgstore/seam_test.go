package pgstore

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/conform-kit/conform/reference/ledger"
	"github.com/conform-kit/conform/reference/memstore"
	"github.com/conform-kit/conform/reference/pgtest"
)

// The contract of the store seam (ledger/unit.go), run against the in-memory
// store (package memstore) and this one alike: what any implementation of
// ledger.UnitStore must do for the rules written against ledger.Tx to hold.

// seamStore is a seeded store under test with its two applications.
type seamStore struct {
	ledger.UnitStore
	fx         ledger.Seeded
	appA, appB string
	clock      *clock
	// setDispatch sets what receives a committed unit's effects.
	setDispatch func(func(ledger.Effects))
}

// memFixture is a seeded in-memory store with its two applications.
type memFixture struct {
	st         *memstore.Store
	fx         ledger.Seeded
	appA, appB string
	clock      *clock
	newID      func(string) string // the store's id source
	// dispatch receives the store's committed units' effects; nil drops them.
	dispatch func(ledger.Effects)
}

// seamFixture is a seeded in-memory store with its two applications.
func seamFixture(t *testing.T) *memFixture {
	t.Helper()
	f := &memFixture{clock: newClock(), newID: counterIDs()}
	f.st, f.fx = memstore.Open(ledger.StoreEnv{Clock: f.clock.Now, NewID: f.newID, Seed: 3, Limits: ledger.Limits{MaxAge: -1}.WithDefaults(),
		Dispatch: func(e ledger.Effects) {
			if f.dispatch != nil {
				f.dispatch(e)
			}
		}})
	f.appA = userApp(t, f.st, f.fx.Credentials.Platform, f.clock)
	f.appB = userApp(t, f.st, f.fx.Credentials.OtherApplication, f.clock)
	return f
}

// userApp is the application of a seeded user of st.
func userApp(t *testing.T, st *memstore.Store, u ledger.Credential, c *clock) string {
	t.Helper()
	got, ok := st.User(context.Background(), u.Username, c.Now())
	require.True(t, ok, "user %s", u.Username)
	return got.App
}

// forEachStore runs the contract against every implementation of the
// seam: the in-memory store and the PostgreSQL one (on a throwaway
// cluster, reference/pgtest; a missing server fails, as in TestPostgres),
// both seeded with the same fixtures.
func forEachStore(t *testing.T, contract func(t *testing.T, s seamStore)) {
	t.Run("memory", func(t *testing.T) {
		m := seamFixture(t)
		contract(t, seamStore{UnitStore: m.st, fx: m.fx, appA: m.appA, appB: m.appB, clock: m.clock,
			setDispatch: func(f func(ledger.Effects)) { m.dispatch = f }})
	})
	t.Run("postgres", func(t *testing.T) {
		pg := openSeamPostgres(t)
		contract(t, seamStore{UnitStore: pg.units, fx: pg.fx, appA: pg.appA, appB: pg.appB, clock: pg.clock,
			setDispatch: func(f func(ledger.Effects)) { pg.units.dispatch = f }})
	})
}

// seamPostgres is a PostgreSQL store seeded as seamFixture's.
type seamPostgres struct {
	units      *pgUnits
	fx         ledger.Seeded
	appA, appB string
	clock      *clock
}

func openSeamPostgres(t *testing.T) seamPostgres {
	t.Helper()
	cluster := pgtest.Start(t)
	pg := openStore(t, cluster.NewDatabase(t, "seam"))
	m := seamFixture(t)
	units := newPgUnits(pg.pool, m.clock.Now, m.newID)
	units.limits = &ledger.Limits{MaxAge: -1}
	require.NoError(t, units.importStore(context.Background(), m.st))
	return seamPostgres{units: units, fx: m.fx, appA: m.appA, appB: m.appB, clock: m.clock}
}

func TestSeamTablesAreTheApplications(t *testing.T) {
	forEachStore(t, func(t *testing.T, s seamStore) {
		st, fx, appA, appB := s.UnitStore, s.fx, s.appA, s.appB
		ctx := context.Background()
		for _, tc := range []struct {
			name string
			get  func(ledger.Tx) error
		}{
			{"dispute", func(t ledger.Tx) error { _, err := t.Disputes().Get(fx.Fixtures.Dispute); return err }},
			{"merchant", func(t ledger.Tx) error { _, err := t.Merchants().Get(fx.Fixtures.Merchant); return err }},
			{"balance transfer", func(t ledger.Tx) error { _, err := t.BalanceTransfers().Get(fx.Fixtures.BalanceTransfer); return err }},
			{"schedule", func(t ledger.Tx) error { _, err := t.Schedules().Get(fx.Fixtures.SubscriptionSchedule); return err }},
		} {
			t.Run(tc.name, func(t *testing.T) {
				require.NoError(t, st.View(ctx, appA, tc.get), "its own application reads it")
				var de *ledger.DomainError
				err := st.View(ctx, appB, tc.get)
				if assert.ErrorAs(t, err, &de, "another application") {
					assert.Equal(t, ledger.KindNotFound, de.Kind)
				}
			})
		}
		var items []ledger.Dispute
		var total int
		require.NoError(t, st.View(ctx, appB, func(u ledger.Tx) error {
			items, total = u.Disputes().Page("", ledger.ListQuery{Limit: 10, Sort: ledger.DefaultOrder()})
			return nil
		}))
		assert.Empty(t, items, "another application's disputes")
		assert.Zero(t, total)
	})
}

func TestSeamUnitHasOneTime(t *testing.T) {
	forEachStore(t, func(t *testing.T, s seamStore) {
		st, appA, c := s.UnitStore, s.appA, s.clock
		var first, second time.Time
		require.NoError(t, st.Update(context.Background(), appA, func(u ledger.Tx) error {
			first = u.Now()
			c.Advance(time.Hour)
			second = u.Now()
			return nil
		}))
		assert.Equal(t, first, second, "the clock is read once per unit")
	})
}

func TestSeamPutUpdatesLists(t *testing.T) {
	forEachStore(t, func(t *testing.T, s seamStore) {
		st, appA, c := s.UnitStore, s.appA, s.clock
		ctx := context.Background()
		byAmount := ledger.ListQuery{Limit: 100, Sort: []ledger.SortKey{{Field: "amount", Desc: true}}}
		var created []ledger.BalanceTransfer
		for _, amount := range []int64{300, 100, 200} {
			c.Advance(time.Second)
			require.NoError(t, st.Update(ctx, appA, func(t ledger.Tx) error {
				b, err := ledger.CreateBalanceTransfer(t, ledger.BalanceTransferCreate{Amount: amount, Currency: "USD"})
				created = append(created, b)
				return err
			}))
		}
		ids := func(q ledger.ListQuery) []string {
			var out []string
			require.NoError(t, st.View(ctx, appA, func(t ledger.Tx) error {
				items, _ := t.BalanceTransfers().Page("", q)
				for _, b := range items {
					if b.Amount < 1000 { // not the seeded one
						out = append(out, b.ID)
					}
				}
				return nil
			}))
			return out
		}
		assert.Equal(t, []string{created[0].ID, created[2].ID, created[1].ID}, ids(byAmount), "by amount, descending")
		assert.Equal(t, []string{created[2].ID, created[1].ID, created[0].ID}, ids(ledger.ListQuery{Limit: 100, Sort: ledger.DefaultOrder()}), "newest first")

		// A new version of a record moves in the lists it is indexed in.
		require.NoError(t, st.Update(ctx, appA, func(u ledger.Tx) error {
			b, err := u.BalanceTransfers().Get(created[1].ID)
			if err != nil {
				return err
			}
			b.Amount = 900
			b.UpdatedAt = ledger.JSONTime(u.Now())
			u.BalanceTransfers().Put(&b)
			return nil
		}))
		assert.Equal(t, []string{created[1].ID, created[0].ID, created[2].ID}, ids(byAmount), "after the update of an amount")
	})
}

func TestSeamChildListsAndDelete(t *testing.T) {
	forEachStore(t, func(t *testing.T, s seamStore) {
		st, fx, appA, appB := s.UnitStore, s.fx, s.appA, s.appB
		ctx := context.Background()
		sched := fx.Fixtures.SubscriptionSchedule
		var e ledger.SubscriptionEnrollment
		require.NoError(t, st.Update(ctx, appA, func(t ledger.Tx) error {
			var err error
			e, err = ledger.CreateEnrollment(t, "US", sched, ledger.EnrollmentBody{Merchant: fx.Fixtures.Merchant})
			return err
		}))
		count := func(app, parent string) int {
			var n int
			require.NoError(t, st.View(ctx, app, func(t ledger.Tx) error {
				_, n = t.Enrollments().Page(parent, ledger.ListQuery{Limit: 10, Sort: ledger.DefaultOrder()})
				return nil
			}))
			return n
		}
		assert.Equal(t, 1, count(appA, sched), "the schedule's list")
		assert.Equal(t, 1, count(appA, ""), "the application's list")
		var de *ledger.DomainError
		err := st.Update(ctx, appB, func(t ledger.Tx) error { return t.Enrollments().Delete(e.ID) })
		if assert.ErrorAs(t, err, &de, "a delete by another application") {
			assert.Equal(t, ledger.KindNotFound, de.Kind)
		}
		require.NoError(t, st.Update(ctx, appA, func(t ledger.Tx) error { return t.Enrollments().Delete(e.ID) }))
		assert.Zero(t, count(appA, sched), "the schedule's list after the delete")
		assert.Zero(t, count(appA, ""), "the application's list after the delete")
	})
}

func TestSeamOutboxCommitsWithTheUnit(t *testing.T) {
	forEachStore(t, func(t *testing.T, s seamStore) {
		st, fx, appA := s.UnitStore, s.fx, s.appA
		ctx := context.Background()
		var got []ledger.Effects
		s.setDispatch(func(e ledger.Effects) {
			e.Events = append([]ledger.PendingEvent(nil), e.Events...)
			got = append(got, e)
		})
		require.NoError(t, st.Update(ctx, appA, func(t ledger.Tx) error {
			_, err := ledger.CreateWebhook(t, ledger.WebhookBody{URL: ptr("http://127.0.0.1:9/hook")}, "secret")
			return err
		}))
		refused := errors.New("refused")
		err := st.Update(ctx, appA, func(t ledger.Tx) error {
			t.Outbox().Emit("transfer", "created", "view")
			t.Outbox().After(time.Second, ledger.TimerDisputeStep, fx.Fixtures.Dispute, "")
			return refused
		})
		require.ErrorIs(t, err, refused)
		assert.Empty(t, got, "a failed unit emits nothing and starts no timer")
		var listening bool
		require.NoError(t, st.Update(ctx, appA, func(u ledger.Tx) error {
			listening = u.Outbox().Listening()
			u.Outbox().Emit("transfer", "created", "view")
			u.Outbox().After(time.Second, ledger.TimerDisputeStep, fx.Fixtures.Dispute, "")
			return nil
		}))
		assert.True(t, listening, "an enabled webhook listens")
		require.Len(t, got, 1)
		assert.Equal(t, appA, got[0].App)
		assert.Len(t, got[0].Events, 1)
		assert.Len(t, got[0].Timers, 1)
		assert.Len(t, got[0].Hooks, 1, "the webhooks enabled at the commit")
	})
}

func ptr[T any](v T) *T { return &v }

func TestSeamConcurrentUpdatesLoseNothing(t *testing.T) {
	forEachStore(t, func(t *testing.T, s seamStore) {
		ctx := context.Background()
		id := s.fx.Fixtures.BalanceTransfer
		var before int64
		require.NoError(t, s.View(ctx, s.appA, func(u ledger.Tx) error {
			b, err := u.BalanceTransfers().Get(id)
			before = b.Amount
			return err
		}))
		const writers = 16
		errs := make([]error, writers)
		var wg sync.WaitGroup
		for i := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[i] = s.Update(ctx, s.appA, func(u ledger.Tx) error {
					b, err := u.BalanceTransfers().Get(id)
					if err != nil {
						return err
					}
					b.Amount++
					u.BalanceTransfers().Put(&b)
					return nil
				})
			}()
		}
		wg.Wait()
		for i, err := range errs {
			assert.NoError(t, err, "writer %d", i)
		}
		require.NoError(t, s.View(ctx, s.appA, func(u ledger.Tx) error {
			b, err := u.BalanceTransfers().Get(id)
			assert.Equal(t, before+writers, b.Amount, "every unit's read-modify-write counted once")
			return err
		}))
	})
}

func TestSeamRecordsKeepWhatTheyHide(t *testing.T) {
	forEachStore(t, func(t *testing.T, s seamStore) {
		ctx := context.Background()
		now := s.clock.Now()
		f := ledger.File{Meta: ledger.NewMeta("FI_hidden", s.appA, now), ApplicationID: s.appA, Status: "UPLOADED", Tags: ledger.Tags{"k": "v"},
			Content: []byte("%PDF-1.4 \x00\xff"), ContentType: "application/pdf"}
		w := ledger.Webhook{Meta: ledger.NewMeta("WH_hidden", s.appA, now), Application: s.appA, URL: "http://127.0.0.1:9/hook",
			Authentication: ledger.WebhookAuthentication{Type: ledger.HookAuthBasic, Username: "user", Password: "p4ss"}}
		tr := ledger.Transfer{Meta: ledger.NewMeta("TR_hidden", s.appA, now), Amount: 700, Type: "REVERSAL",
			AdditionalPurchaseData: json.RawMessage(`{"b":1,  "a":[2]}`),
			Adjustment:             &ledger.Adjustment{AmountRequested: 700, DisputedTransfer: "TR_sale", Dispute: s.fx.Fixtures.Dispute}}
		au := ledger.Authorization{Meta: ledger.NewMeta("AU_hidden", s.appA, now), Amount: 5, Merchant: s.fx.Fixtures.Merchant}
		require.NoError(t, s.Update(ctx, s.appA, func(u ledger.Tx) error {
			u.Files().Put(&ledger.File{Meta: f.Meta, ApplicationID: f.ApplicationID, Status: f.Status, Tags: ledger.Tags{"k": "v"},
				Content: bytes.Clone(f.Content), ContentType: f.ContentType})
			w2, tr2, au2 := w, tr, au
			adj := *tr.Adjustment
			tr2.Adjustment = &adj
			u.Webhooks().Put(&w2)
			u.Transfers().Put(&tr2)
			u.Authorizations().Put(&au2)
			return nil
		}))
		require.NoError(t, s.View(ctx, s.appA, func(u ledger.Tx) error {
			gotF, err := u.Files().Get(f.ID)
			require.NoError(t, err)
			if cs, ok := s.UnitStore.(ledger.ContentStore); ok {
				// Its content is kept apart, named by the record, and streamed.
				require.Nil(t, gotF.Content, "a contentStore's record carries no content")
				assert.EqualValues(t, len(f.Content), gotF.ContentSize)
				var b bytes.Buffer
				require.NoError(t, cs.WriteContent(ctx, s.appA, gotF.ContentRef, &b))
				gotF.Content, gotF.ContentRef, gotF.ContentSize = b.Bytes(), "", 0
			}
			assert.Equal(t, f, gotF, "a file with its content")
			gotW, err := u.Webhooks().Get(w.ID)
			require.NoError(t, err)
			assert.Equal(t, w, gotW, "a webhook with its credentials")
			gotT, err := u.Transfers().Get(tr.ID)
			require.NoError(t, err)
			assert.Equal(t, tr, gotT, "an adjustment transfer")
			adjs, n := u.Transfers().Page(s.fx.Fixtures.Dispute, ledger.ListQuery{Limit: 100, Sort: ledger.DefaultOrder()})
			assert.Contains(t, adjs, tr, "listed under its dispute (%d)", n)
			gotA, err := u.Authorizations().Get(au.ID)
			require.NoError(t, err)
			assert.Equal(t, au, gotA, "an authorization with its merchant")
			return nil
		}))
	})
}

func TestSeamQuotaCountsWhatCommitted(t *testing.T) {
	forEachStore(t, func(t *testing.T, s seamStore) {
		ctx := context.Background()
		read := func() ledger.Usage {
			var u ledger.Usage
			require.NoError(t, s.Update(ctx, s.appA, func(tu ledger.Tx) error {
				var ok bool
				u, ok = tu.Quota().Usage()
				require.True(t, ok)
				return nil
			}))
			return u
		}
		before := read()
		refused := errors.New("refused")
		err := s.Update(ctx, s.appA, func(t ledger.Tx) error {
			if _, err := ledger.CreateBalanceTransfer(t, balanceTransferOf(100)); err != nil {
				return err
			}
			return refused
		})
		require.ErrorIs(t, err, refused)
		assert.Equal(t, before.Retained, read().Retained, "a failed unit holds nothing")
		var b ledger.BalanceTransfer
		require.NoError(t, s.Update(ctx, s.appA, func(t ledger.Tx) error {
			b, err = ledger.CreateBalanceTransfer(t, balanceTransferOf(100))
			return err
		}))
		after := read()
		assert.Equal(t, before.Retained+1, after.Retained, "one create held")
		assert.Equal(t, before.Bytes+ledger.Cost(100), after.Bytes)
		assert.Equal(t, before.Created+1, after.Created, "counted in the minute's creates")
		require.NoError(t, s.View(ctx, s.appA, func(t ledger.Tx) error {
			_, err := t.BalanceTransfers().Get(b.ID)
			return err
		}))
	})
}

// balanceTransferOf is a balance transfer of 10 USD from a body of size bytes.
func balanceTransferOf(size int) ledger.BalanceTransferCreate {
	in := ledger.BalanceTransferCreate{Amount: 10, Currency: "USD"}
	in.SetSize(size)
	return in
}
