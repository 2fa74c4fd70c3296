package reference

import (
	"context"

	"github.com/conform-kit/conform/reference/ledger"
)

// The handlers' ways into the store seam: each request is one unit of work.

// update runs fn as one unit of work of app on the Server's store, view as
// a read-only one; runUnit calls fn itself, so fn and the variables it
// shares with its handler stay on the handler's stack (unitRunner).
func (s *Server) update(ctx context.Context, app string, fn func(ledger.Tx) error) error {
	return ledger.RunUnit(s.units, ctx, app, s.now(), false, nil, fn)
}

// view runs fn as a read-only unit of work of app (see update).
func (s *Server) view(ctx context.Context, app string, fn func(ledger.Tx) error) error {
	return ledger.RunUnit(s.units, ctx, app, s.now(), true, nil, fn)
}

// updateClaimed runs fn as the unit of work of a request that holds an
// idempotency claim (rq.claim, nil for none): the store commits it only
// while the claim is held, and names in the claim what it created.
func (s *Server) updateClaimed(rq *request, fn func(ledger.Tx) error) error {
	return ledger.RunUnit(s.units, rq.r.Context(), rq.user.App, s.now(), false, rq.claim, fn)
}

// getOne reads one record of the request's application in a read-only unit.
func getOne[T any](s *Server, rq *request, tbl func(ledger.Tx) ledger.Table[T], id string) (T, error) {
	var out T
	err := s.view(rq.r.Context(), rq.user.App, func(t ledger.Tx) error {
		var err error
		out, err = tbl(t).Get(id)
		return err
	})
	return out, err
}

// listPage reads one page of a list in a read-only unit: the application's
// (parent "") or a parent's, which check (when not nil) finds first; the
// page's views are built after the unit.
func listPage[T any](s *Server, rq *request, tbl func(ledger.Tx) ledger.Table[T], parent string, check func(ledger.Tx) error, q ledger.ListQuery) ([]T, int, error) {
	var items []T
	var total int
	err := s.view(rq.r.Context(), rq.user.App, func(t ledger.Tx) error {
		if check != nil {
			if err := check(t); err != nil {
				return err
			}
		}
		items, total = tbl(t).Page(parent, q)
		return nil
	})
	return items, total, err
}

// change runs fn as the request's unit of work; the view fn returns is the
// answer and, unless entity is "", the event of that entity and type the
// unit emits.
func (s *Server) change(rq *request, entity, typ string, fn func(t ledger.Tx) (any, error)) (any, error) {
	var v any
	err := s.update(rq.r.Context(), rq.user.App, func(t ledger.Tx) error {
		var err error
		if v, err = fn(t); err != nil {
			return err
		}
		if entity != "" {
			t.Outbox().Emit(entity, typ, v)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return v, nil
}

// read runs fn as the request's read-only unit of work.
func (s *Server) read(rq *request, fn func(t ledger.Tx) (any, error)) (any, error) {
	var v any
	err := s.view(rq.r.Context(), rq.user.App, func(t ledger.Tx) error {
		var err error
		v, err = fn(t)
		return err
	})
	if err != nil {
		return nil, err
	}
	return v, nil
}
