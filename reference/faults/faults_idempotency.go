package faults

import (
	"net/http"
	"strings"
	"sync"
	"time"
)

// Faults of idempotency: a replay that ignores the body, a repeated id, the
// scope an id is remembered in and concurrent duplicates. The scope faults
// need memory across requests, which each wrapper keeps in its own closure
// (one per Handler call, so no state is shared between servers).

// Names of the scenarios that catch the idempotency scope faults.
const (
	scenarioRace = "ten identical sales sent at once with one idempotency id create one sale"
	scenarioEcho = "a sale carries the idempotency id it was created with"
)

// raceWindow is how long the first request of an idempotency id waits for a
// concurrent duplicate under the idempotency-race-duplicates fault.
const raceWindow = 250 * time.Millisecond

// idempotencyFaults break the kit's assumed idempotency decisions (assumed).
func idempotencyFaults() []Fault {
	return []Fault{
		{
			Name: "idempotent-replay-duplicates", Capability: "idempotency", Expect: ExpectWarn, Tags: "@idempotency",
			Breaks: "the kit's idempotency: a replay returns the original, no new resource (assumed)",
			Catchers: []string{
				"an authorization replayed with the same idempotency id returns the original",
				"a sale replayed with the same idempotency id returns the original",
			},
			wrap: idempotencyIgnored,
		},
		{
			Name: "idempotency-conflict-accepted", Capability: "idempotency", Expect: ExpectWarn, Tags: "@idempotency",
			Breaks: "the kit's idempotency: an id reused with another body is refused (assumed)",
			Catchers: []string{
				"an idempotency id reused with another body is refused",
				"a sale idempotency id reused with another amount is refused",
			},
			wrap: idempotencyConflictAccepted,
		},
	}
}

// idempotencyScopeFaults break the kit's assumed idempotency scope and concurrency
// decisions, and the echo of idempotency_id on the created resource.
func idempotencyScopeFaults() []Fault {
	return []Fault{
		{
			Name: "idempotency-race-duplicates", Capability: "idempotency", Expect: ExpectWarn, Tags: "@idempotency",
			Breaks:   "the kit's idempotency: concurrent duplicates create exactly one resource (assumed)",
			Catchers: []string{scenarioRace},
			wrap:     idempotencyRace,
		},
		{
			Name: "idempotency-shared-across-operations", Capability: "idempotency", Expect: ExpectFail, Tags: "@idempotency",
			Breaks:   "the kit's idempotency: an idempotency_id is scoped per operation (assumed); the replayed authorization answers a transfer create, which §2.2 does not allow",
			Catchers: []string{"an idempotency id is scoped to its operation"},
			wrap:     idempotencyLeak(func(first, later idemUse) bool { return first.route != later.route }),
		},
		{
			Name: "idempotency-shared-across-applications", Capability: "idempotency", Expect: ExpectWarn, Tags: "@idempotency",
			Breaks:   "the kit's idempotency: an idempotency_id is scoped per application (assumed)",
			Catchers: []string{"an idempotency id is scoped to its application"},
			wrap:     idempotencyLeak(func(first, later idemUse) bool { return first.user != later.user }),
		},
		{
			Name: "idempotency-id-not-echoed", Capability: "idempotency", Expect: ExpectFail, Tags: "@transfers",
			Breaks:   "§2.2 idempotency_id of the created Transfer is the one sent",
			Catchers: []string{scenarioEcho},
			wrap: rewriteResponse(func(x *faultExchange) bool {
				if !isSuccess(x.status) || x.out["idempotency_id"] == nil {
					return false
				}
				x.out["idempotency_id"] = nil
				return true
			}, "transfers.create"),
		},
	}
}

// idempotencyConflictAccepted replays a request refused for reusing an
// idempotency id with another body without the id, so it succeeds.
func idempotencyConflictAccepted(next http.Handler, _ faultDeps) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !matchAny(r, "authorizations.create", "transfers.create") {
			next.ServeHTTP(w, r)
			return
		}
		in := peekJSON(r)
		rec := newFaultRecorder()
		next.ServeHTTP(rec, r)
		if rec.status == http.StatusUnprocessableEntity && in["idempotency_id"] != nil &&
			strings.Contains(rec.body.String(), `"UNPROCESSABLE_ENTITY"`) {
			delete(in, "idempotency_id")
			status, doc := innerCall(next, r, r.Method, r.URL.Path, in, nil)
			if isSuccess(status) {
				writeFaultJSON(w, status, doc)
				return
			}
		}
		rec.flush(w, rec.body.Bytes())
	})
}

// idempotencyIgnored runs every authorization or sale create as a new request
// (its idempotency_id taken out of the body) and shows the id sent on the
// resource created, so only the replay is lost.
func idempotencyIgnored(next http.Handler, _ faultDeps) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := idempotencyID(r)
		if id == "" {
			next.ServeHTTP(w, r)
			return
		}
		in := peekJSON(r)
		delete(in, "idempotency_id")
		replaceBody(r, in)
		rec := newFaultRecorder()
		next.ServeHTTP(rec, r)
		out := decodeFaultJSON(rec.body.Bytes())
		if out == nil || !isSuccess(rec.status) {
			rec.flush(w, rec.body.Bytes())
			return
		}
		out["idempotency_id"] = id
		writeFaultJSONHeader(w, rec, out)
	})
}

// idemUse is who sent an idempotency id, and to which operation.
type idemUse struct{ route, user string }

// idemFirst is the first successful response to an idempotency id.
type idemFirst struct {
	use    idemUse
	status int
	header http.Header
	body   []byte
}

// idempotencyLeak answers a request whose idempotency id was first used by a
// use that leak reports as sharing it with the first response, as a server
// whose idempotency store is keyed too coarsely would.
func idempotencyLeak(leak func(first, later idemUse) bool) func(http.Handler, faultDeps) http.Handler {
	return func(next http.Handler, _ faultDeps) http.Handler {
		var mu sync.Mutex
		seen := map[string]idemFirst{}
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			id := idempotencyID(r)
			if id == "" {
				next.ServeHTTP(w, r)
				return
			}
			user, _, _ := r.BasicAuth()
			use := idemUse{route: r.URL.Path, user: user}
			mu.Lock()
			first, ok := seen[id]
			mu.Unlock()
			if ok && leak(first.use, use) {
				rec := &faultRecorder{header: first.header.Clone(), status: first.status}
				rec.flush(w, first.body)
				return
			}
			rec := newFaultRecorder()
			next.ServeHTTP(rec, r)
			if !ok && isSuccess(rec.status) {
				mu.Lock()
				if _, dup := seen[id]; !dup {
					seen[id] = idemFirst{use: use, status: rec.status, header: rec.header.Clone(), body: rec.body.Bytes()}
				}
				mu.Unlock()
			}
			rec.flush(w, rec.body.Bytes())
		})
	}
}

// idempotencyRace lets concurrent duplicates through as new requests: a
// request arriving while another with the same idempotency id and route is in
// flight loses its idempotency id. The first request waits (at most
// raceWindow) for such a duplicate, so the overlap does not depend on timing.
func idempotencyRace(next http.Handler, _ faultDeps) http.Handler {
	var mu sync.Mutex
	inflight := map[string]chan struct{}{}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := idempotencyID(r)
		if id == "" {
			next.ServeHTTP(w, r)
			return
		}
		key := r.URL.Path + " " + id
		mu.Lock()
		owner, busy := inflight[key]
		if busy {
			mu.Unlock()
			select {
			case owner <- struct{}{}:
			default:
			}
			in := peekJSON(r)
			delete(in, "idempotency_id")
			replaceBody(r, in)
			next.ServeHTTP(w, r)
			return
		}
		ch := make(chan struct{}, 1)
		inflight[key] = ch
		mu.Unlock()
		t := time.NewTimer(raceWindow)
		select {
		case <-ch:
		case <-t.C:
		case <-r.Context().Done():
		}
		t.Stop()
		next.ServeHTTP(w, r)
		mu.Lock()
		delete(inflight, key)
		mu.Unlock()
	})
}

// idempotencyID returns the idempotency_id of an authorization or sale
// create, or "" for any other request.
func idempotencyID(r *http.Request) string {
	if !matchAny(r, "authorizations.create", "transfers.create") {
		return ""
	}
	id, _ := peekJSON(r)["idempotency_id"].(string)
	return id
}
