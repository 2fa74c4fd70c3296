package explore

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"
)

// An earlier run's idempotency ids: a run's ids are its own (RunID, seed,
// sequence, request), but a target that keeps the ids of an earlier run
// made with the same run id (a long-lived sandbox explored twice with one
// --seed) answers this run's creates as that run's: a replay, or a 422 for
// an id "reused with another body" (the bodies name this run's cards), a
// state rule the spec lets it apply. The model, fresh, accepts: each would
// be a WARN "allowed request not refused" that says nothing of the target.

// heldIDs are the idempotency ids of this run the target already held.
type heldIDs struct {
	mu  sync.Mutex
	ids []string
}

func (h *heldIDs) note(id string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.ids = append(h.ids, id)
}

func (h *heldIDs) list() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.ids...)
}

// sentIdempotencyID is the idempotency_id a body carries ("" for none).
func sentIdempotencyID(body string) string {
	doc, _ := decodeBody(body).(map[string]any)
	id, _ := doc["idempotency_id"].(string)
	return id
}

// withIdempotencyID is body, whose idempotency_id is old
// (sentIdempotencyID), with id in its place: the body is not decoded again.
func withIdempotencyID(body, old, id string) string {
	return strings.Replace(body, strconv.Quote(old), strconv.Quote(id), 1)
}

// heldBefore asks, of a create the target refused and the model accepted,
// whether the refusal was its idempotency_id's: the same request under an
// id of its own (not sent before, by this run or another) is sent to the
// target, outside the judged trace. Accepted, the target refused the id
// alone, which no request of this run had sent: it holds it from an
// earlier run. It returns that request's exchange (nil when none was
// sent) and whether the id was held.
func (r *runner) heldBefore(ctx context.Context, routed Step, target *side) (*Exchange, bool, error) {
	id := sentIdempotencyID(routed.Body)
	if id == "" || r.mintedRunID {
		// A run id this run minted is no earlier run's: a target that
		// refuses its ids as already used confuses ids of its own (it
		// truncates them, say), and is judged on it.
		return nil, false, nil
	}
	again := routed
	again.Body = withIdempotencyID(routed.Body, id, id+"-"+strconv.FormatInt(time.Now().UnixNano(), 36))
	ex, err := target.send(ctx, again, again.Path)
	r.requests.Add(1)
	if err != nil {
		return nil, false, err
	}
	ex.Probe = true
	if !is2xx(ex.Status) {
		return &ex, false, nil
	}
	r.held.note(id)
	return &ex, true, nil
}

// heldNote is the line that says the target held the run's idempotency
// ids from an earlier run ("" when it held none).
func (res Result) heldNote() string {
	if len(res.Held) == 0 {
		return ""
	}
	return fmt.Sprintf("explore: the target replayed %d idempotency ids from an earlier run with the same run id %q (the first: %s): it refused each create as an id reused with another body, and that sequence ended there, unjudged; pass another --run-id",
		len(res.Held), res.RunID, res.Held[0])
}
