package faults

import (
	"net/http"
	"sync"
	"time"
)

// Faults of the idempotency scope and of webhook event delivery: they need
// memory across requests, which each wrapper keeps in its own closure (one
// per Handler call, so no state is shared between servers).

const (
	scenarioRace      = "ten identical sales sent at once with one idempotency id create one sale"
	scenarioEcho      = "a sale carries the idempotency id it was created with"
	scenarioHookQuiet = "a disabled webhook receives no events"
	scenarioHookOnly  = "a webhook enabled only for authorization events receives no sale event"
)

// raceWindow is how long the first request of an idempotency id waits for a
// concurrent duplicate under the idempotency-race-duplicates fault.
const raceWindow = 250 * time.Millisecond

// idempotencyScopeFaults break DESIGN's idempotency scope and concurrency
// decisions, and the echo of idempotency_id on the created resource.
func idempotencyScopeFaults() []Fault {
	return []Fault{
		{
			Name: "idempotency-race-duplicates", Capability: "idempotency", Expect: ExpectWarn, Tags: "@idempotency",
			Breaks:   "DESIGN idempotency: concurrent duplicates create exactly one resource (assumed)",
			Catchers: []string{scenarioRace},
			wrap:     idempotencyRace,
		},
		{
			Name: "idempotency-shared-across-operations", Capability: "idempotency", Expect: ExpectFail, Tags: "@idempotency",
			Breaks:   "DESIGN idempotency: an idempotency_id is scoped per operation (assumed); the replayed authorization answers a transfer create, which §2.2 does not allow",
			Catchers: []string{"an idempotency id is scoped to its operation"},
			wrap:     idempotencyLeak(func(first, later idemUse) bool { return first.route != later.route }),
		},
		{
			Name: "idempotency-shared-across-applications", Capability: "idempotency", Expect: ExpectWarn, Tags: "@idempotency",
			Breaks:   "DESIGN idempotency: an idempotency_id is scoped per application (assumed)",
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

// webhookEventFaults break the delivery rules of webhooks: spec §4.9 (false
// disables) and DESIGN's enabled_events filter.
func webhookEventFaults() []Fault {
	return []Fault{
		{
			Name: "disabled-webhook-still-delivers", Capability: "webhooks", Expect: ExpectFail, Tags: "@webhooks",
			Breaks:   "§4.9 enabled false disables a webhook (it receives no events)",
			Catchers: []string{scenarioHookQuiet},
			wrap:     webhookIgnored("enabled", func(v any) bool { return v == false }),
		},
		{
			Name: "enabled-events-ignored", Capability: "webhooks", Expect: ExpectWarn, Tags: "@webhooks",
			Breaks:   "DESIGN webhooks: a non-empty enabled_events filters by entity and type (assumed)",
			Catchers: []string{scenarioHookOnly},
			wrap: webhookIgnored("enabled_events", func(v any) bool {
				l, ok := v.([]any)
				return ok && len(l) > 0
			}),
		},
	}
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

// webhookIgnored makes the server ignore one webhook field while showing it
// as set: a value ignore accepts is taken out of create and update bodies,
// remembered per webhook and shown again in every representation of that
// webhook (create, update, fetch, list), so only its effect is lost.
func webhookIgnored(field string, ignore func(v any) bool) func(http.Handler, faultDeps) http.Handler {
	return func(next http.Handler, _ faultDeps) http.Handler {
		var mu sync.Mutex
		shown := map[string]any{} // webhook id → value shown
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !matchAny(r, "webhooks.create", "webhooks.update", "webhooks.get", "webhooks.list") {
				next.ServeHTTP(w, r)
				return
			}
			hidden, hide, sent := webhookHide(r, field, ignore)
			if params, ok := faultRoute(r, "webhooks.update"); ok && sent && !hidden {
				mu.Lock()
				delete(shown, params["id"])
				mu.Unlock()
			}
			rec := newFaultRecorder()
			next.ServeHTTP(rec, r)
			out := decodeFaultJSON(rec.body.Bytes())
			if out == nil || !isSuccess(rec.status) {
				rec.flush(w, rec.body.Bytes())
				return
			}
			mu.Lock()
			if id := stringAt(out, "id"); hidden && id != "" {
				shown[id] = hide
			}
			for _, d := range append([]any{out}, listItems(out)...) {
				if m, ok := d.(map[string]any); ok {
					if v, ok := shown[stringAt(m, "id")]; ok {
						m[field] = v
					}
				}
			}
			mu.Unlock()
			writeFaultJSONHeader(w, rec, out)
		})
	}
}

// webhookHide takes field out of a webhook create or update body when ignore
// accepts its value, and returns that value; sent reports the field was in
// the body at all.
func webhookHide(r *http.Request, field string, ignore func(v any) bool) (hidden bool, value any, sent bool) {
	if !matchAny(r, "webhooks.create", "webhooks.update") {
		return false, nil, false
	}
	in := peekJSON(r)
	v, ok := in[field]
	if !ok || !ignore(v) {
		return false, nil, ok
	}
	delete(in, field)
	replaceBody(r, in)
	return true, v, true
}
