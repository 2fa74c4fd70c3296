package faults

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/conform-kit/conform/reference"
	"github.com/conform-kit/conform/validate"
)

// exploreQuestionFaults live between requests, where a real implementation
// keeps state of its own in front of the store: a response cache in front
// of the password or the tenancy check, a capture that checks the
// authorization, calls the processor and then writes (two at once both
// pass the check), a soft delete an update revives or a list query
// forgets, a delivery worker that keeps a webhook's first url or its
// enabled as created, an idempotency cache
// keyed without the application. Each request alone is answered right; the
// questions conform explore asks of a resource find them.
func exploreQuestionFaults() []Fault {
	return []Fault{
		{Name: "fetch-cache-skips-password", Capability: "auth", Expect: ExpectFail, Tags: "@authentication",
			Breaks: "§5 items 1 and 4: invalid credentials are refused (a fetch by id is answered from a 30 s cache keyed by the user name and the URL, before the password is checked)",
			wrap: fetchCache(func(r *http.Request, _ faultDeps, owner string) bool {
				user, _, _ := r.BasicAuth()
				return user != "" && user == owner
			})},
		{Name: "fetch-cache-shared-across-applications", Capability: "auth", Expect: ExpectFail, Tags: "@authentication",
			Breaks: "invariant tenancy: another application's resources are not found (a fetch by id is answered from a 30 s cache keyed by the URL, after the credentials are checked and before the application is)",
			wrap: fetchCache(func(r *http.Request, d faultDeps, _ string) bool {
				user, pw, ok := r.BasicAuth()
				if !ok {
					return false
				}
				c := d.fx.Credentials
				for _, cr := range []reference.Credential{c.Platform, c.Merchant, c.OtherApplication} {
					if cr.Username == user && cr.Password == pw {
						return true
					}
				}
				return false
			})},
		{Name: "captures-race-past-the-amount", Capability: "authorizations", Expect: ExpectFail, Tags: "@authorizations",
			Breaks: "invariant capture_total, §4.1: capture_amount <= the amount (a capture reads the authorization, calls the processor, then writes: a second capture in flight passes the same check and is answered captured too)",
			wrap:   checkThenWriteRace("authorizations.capture")},
		{Name: "amount-updates-race", Capability: "subscriptions", Expect: ExpectWarn, Tags: "@subscriptions",
			Breaks: "the reference's rule (reference_rules, §3.2): an amount is updated once (an update reads the amount as not updated, writes the new one, then marks the original: a second update in flight passes the same check)",
			wrap:   checkThenWriteRace("subscription_amounts.update")},
		{Name: "merchant-role-creates-balance-transfers", Capability: "auth", Expect: ExpectWarn, Tags: "@balance_transfers",
			Breaks: "operation_roles: balance_transfers.create is the platform's (the role check sits in the list handler and was left out of the create)",
			wrap: rewriteHeaders(func(r *http.Request, d faultDeps) {
				c := d.fx.Credentials
				if u, pw, ok := r.BasicAuth(); ok && u == c.Merchant.Username && pw == c.Merchant.Password {
					r.SetBasicAuth(c.Platform.Username, c.Platform.Password)
				}
			}, "balance_transfers.create")},
		{Name: "enrollment-soft-delete-revived-by-update", Capability: "subscriptions", Expect: ExpectFail, Tags: "@subscriptions",
			Breaks: "§4.5/§7 a deleted enrollment does not exist for fetch, update and delete (a delete sets a flag the fetch honours and an update clears)",
			wrap:   softDeleteRevived},
		{Name: "enrollment-soft-delete-still-listed", Capability: "subscriptions", Expect: ExpectFail, Tags: "@subscriptions",
			Breaks: "§4.5 DELETE removes an enrollment; §2.12 page.count is the total number of records (a delete sets a flag the fetch, the update and the delete honour; the list query forgets the deleted filter, so the enrollment is listed and counted)",
			wrap:   softDeleteListed},
		{Name: "webhook-worker-keeps-first-url", Capability: "webhooks", Expect: ExpectFail, Tags: "@webhooks",
			Breaks: "§2.10/§6 events go by POST to the webhook's url (the delivery worker keeps the url each webhook was created with; the API shows the updated one)",
			wrap:   webhookFirstURL},
		{Name: "webhook-worker-keeps-create-enabled", Capability: "webhooks", Expect: ExpectFail, Tags: "@webhooks",
			Breaks: "§2.10/§4.9 enabled false disables a webhook, §6 (the delivery worker reads each webhook's enabled as it was created: an update's enabled is shown in every answer about the webhook but never reaches the store the worker reads)",
			wrap:   webhookCreateEnabled},
		{Name: "idempotency-cache-ignores-application", Capability: "idempotency", Expect: ExpectFail, Tags: "@idempotency",
			Breaks: "invariant tenancy: each application's create is its own (an idempotency cache keyed by the route, the idempotency_id and the body, not the application, replays one application's resource to another)",
			wrap:   idempotencyByBody},
	}
}

// cacheTTL is how long the fetch caches of the faults keep an answer.
const cacheTTL = 30 * time.Second

// cachedFetch is one answer a fetch cache keeps, with the user it answered.
type cachedFetch struct {
	user   string
	at     time.Time
	status int
	header http.Header
	body   []byte
}

// kept is the answer rec recorded, as a cache keeps it.
func kept(rec *faultRecorder) cachedFetch {
	return cachedFetch{at: time.Now(), status: rec.status, header: rec.header.Clone(), body: bytes.Clone(rec.body.Bytes())}
}

// replay writes the kept answer again.
func (c cachedFetch) replay(w http.ResponseWriter) {
	rec := &faultRecorder{header: c.header.Clone(), status: c.status}
	rec.flush(w, c.body)
}

// fetchCache answers a fetch by id from a cache keyed by its path when
// serve lets the request have the entry (owner: the user it was made
// for); a request that changes the path (an update, a capture, a delete)
// drops its entry, so every answer but the cached request's is right.
func fetchCache(serve func(r *http.Request, d faultDeps, owner string) bool) func(http.Handler, faultDeps) http.Handler {
	fetches := []string{"payment_instruments.get", "authorizations.get", "transfers.get", "webhooks.get",
		"subscription_enrollments.get", "balance_transfers.get"}
	return func(next http.Handler, d faultDeps) http.Handler {
		var mu sync.Mutex
		cache := map[string]cachedFetch{}
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method != http.MethodGet {
				mu.Lock()
				delete(cache, r.URL.Path)
				mu.Unlock()
				next.ServeHTTP(w, r)
				return
			}
			if !matchAny(r, fetches...) {
				next.ServeHTTP(w, r)
				return
			}
			mu.Lock()
			c, ok := cache[r.URL.Path]
			mu.Unlock()
			if ok && time.Since(c.at) < cacheTTL && serve(r, d, c.user) {
				c.replay(w)
				return
			}
			rec := newFaultRecorder()
			next.ServeHTTP(rec, r)
			if isSuccess(rec.status) {
				user, _, _ := r.BasicAuth()
				mu.Lock()
				c := kept(rec)
				c.user = user
				cache[r.URL.Path] = c
				mu.Unlock()
			}
			rec.flush(w, rec.body.Bytes())
		})
	}
}

// raceFlight is a request between its check and its write.
type raceFlight struct {
	second chan struct{} // a second request on the resource arrived
	done   chan struct{} // closed once the first is answered
	status int
	header http.Header
	body   []byte
}

// checkThenWriteRace checks a request of the operation against its
// resource as read before a slow call (a capture's processor call) and
// writes after it: a second request on the same resource arriving in
// between passes the same check, and is answered as the first was. The
// first waits (at most raceWindow, the slow call) for such a second, so
// the overlap does not depend on timing.
func checkThenWriteRace(opID string) func(http.Handler, faultDeps) http.Handler {
	return func(next http.Handler, _ faultDeps) http.Handler {
		return raceOn(next, opID)
	}
}

// raceOn is checkThenWriteRace's handler.
func raceOn(next http.Handler, opID string) http.Handler {
	var mu sync.Mutex
	inflight := map[string]*raceFlight{}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, ok := faultRoute(r, opID); !ok {
			next.ServeHTTP(w, r)
			return
		}
		id := r.URL.Path // the resource
		mu.Lock()
		f, busy := inflight[id]
		if busy {
			mu.Unlock()
			select {
			case f.second <- struct{}{}:
			default:
			}
			<-f.done
			if !isSuccess(f.status) {
				next.ServeHTTP(w, r)
				return
			}
			rec := &faultRecorder{header: f.header.Clone(), status: f.status}
			rec.flush(w, f.body)
			return
		}
		f = &raceFlight{second: make(chan struct{}, 1), done: make(chan struct{})}
		inflight[id] = f
		mu.Unlock()
		timer := time.NewTimer(raceWindow)
		select {
		case <-f.second:
		case <-timer.C:
		case <-r.Context().Done():
		}
		timer.Stop()
		rec := newFaultRecorder()
		next.ServeHTTP(rec, r)
		f.status, f.header, f.body = rec.status, rec.header.Clone(), bytes.Clone(rec.body.Bytes())
		mu.Lock()
		delete(inflight, id)
		mu.Unlock()
		close(f.done)
		rec.flush(w, rec.body.Bytes())
	})
}

// softDeleteRevived deletes an enrollment by flagging it: the fetch and a
// second delete answer as for an id that does not exist, and an update,
// which writes every column, clears the flag and brings it back.
func softDeleteRevived(next http.Handler, _ faultDeps) http.Handler {
	var mu sync.Mutex
	deleted := map[string]bool{}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		params, ok := match(r, []string{"subscription_enrollments.get", "subscription_enrollments.update", "subscription_enrollments.delete"})
		if !ok {
			next.ServeHTTP(w, r)
			return
		}
		id := params["id"]
		mu.Lock()
		gone := deleted[id]
		mu.Unlock()
		switch {
		case r.Method == http.MethodDelete && !gone:
			if status, _ := innerCall(next, r, http.MethodGet, r.URL.Path, nil, nil); !isSuccess(status) {
				next.ServeHTTP(w, r)
				return
			}
			mu.Lock()
			deleted[id] = true
			mu.Unlock()
			w.WriteHeader(http.StatusNoContent)
		case r.Method == http.MethodPut && gone:
			mu.Lock()
			delete(deleted, id)
			mu.Unlock()
			next.ServeHTTP(w, r)
		case gone:
			// As for an id that does not exist: the store's own answer.
			r.URL.Path = strings.Replace(r.URL.Path, id, id+"0", 1)
			next.ServeHTTP(w, r)
		default:
			next.ServeHTTP(w, r)
		}
	})
}

// softDeleteListed deletes an enrollment by flagging it: the fetch, the
// update and a second delete answer as for an id that does not exist, but
// the lists read the store without the flag, so the enrollment is still
// listed and counted.
func softDeleteListed(next http.Handler, _ faultDeps) http.Handler {
	var mu sync.Mutex
	deleted := map[string]bool{}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		params, ok := match(r, []string{"subscription_enrollments.get", "subscription_enrollments.update", "subscription_enrollments.delete"})
		if !ok {
			next.ServeHTTP(w, r)
			return
		}
		id := params["id"]
		mu.Lock()
		gone := deleted[id]
		mu.Unlock()
		switch {
		case gone:
			// As for an id that does not exist: the store's own answer.
			r.URL.Path = strings.Replace(r.URL.Path, id, id+"0", 1)
			next.ServeHTTP(w, r)
		case r.Method == http.MethodDelete:
			if status, _ := innerCall(next, r, http.MethodGet, r.URL.Path, nil, nil); !isSuccess(status) {
				next.ServeHTTP(w, r)
				return
			}
			mu.Lock()
			deleted[id] = true
			mu.Unlock()
			w.WriteHeader(http.StatusNoContent)
		default:
			next.ServeHTTP(w, r)
		}
	})
}

// idempotencyByBody replays the first successful answer to a create with
// the same route, idempotency_id and body, whoever sends it: the cache key
// leaves out the application.
func idempotencyByBody(next http.Handler, _ faultDeps) http.Handler {
	var mu sync.Mutex
	seen := map[string]cachedFetch{}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := idempotencyID(r)
		if id == "" {
			next.ServeHTTP(w, r)
			return
		}
		raw, _ := io.ReadAll(r.Body)
		_ = r.Body.Close()
		r.Body = io.NopCloser(bytes.NewReader(raw))
		key := r.URL.Path + " " + id + " " + string(raw)
		mu.Lock()
		first, ok := seen[key]
		mu.Unlock()
		if ok {
			first.replay(w)
			return
		}
		rec := newFaultRecorder()
		next.ServeHTTP(rec, r)
		if isSuccess(rec.status) {
			mu.Lock()
			seen[key] = kept(rec)
			mu.Unlock()
		}
		rec.flush(w, rec.body.Bytes())
	})
}

// webhookFirstURL keeps, where the deliveries read it, the url each webhook
// was created with: an update's valid url is shown in every answer about
// the webhook but never reaches the store the delivery worker reads. The
// store is sent the first url instead (a webhook whose create was not seen
// is updated as asked); an update without a url, {} among them, passes.
func webhookFirstURL(next http.Handler, _ faultDeps) http.Handler {
	return webhookWorkerKeeps(next, keptField{name: "url", record: true,
		sent: func(v any) bool { u, _ := v.(string); return u != "" },
		hold: func(in map[string]any, first any, known bool) bool {
			if !known {
				return false
			}
			in["url"], _ = first.(string)
			return true
		}})
}

// webhookCreateEnabled keeps, where the deliveries read it, the enabled
// each webhook was created with: an update's enabled is left out of what
// the store takes and shown in every later answer about the webhook. An
// update of enabled alone reaches the store as {}; one without enabled,
// {} among them, passes.
func webhookCreateEnabled(next http.Handler, _ faultDeps) http.Handler {
	return webhookWorkerKeeps(next, keptField{name: "enabled",
		sent: func(v any) bool { _, ok := v.(bool); return ok },
		hold: func(in map[string]any, _ any, _ bool) bool {
			delete(in, "enabled")
			return true
		}})
}

// keptField is a webhook field a valid update never brings to the store
// the delivery worker reads (webhookWorkerKeeps).
type keptField struct {
	name string
	// record reads the answers to creates for the value each webhook was
	// created with, which hold is given.
	record bool
	// sent reports whether an update's value of the field (nil: absent)
	// is one kept from the store.
	sent func(v any) bool
	// hold rewrites a valid update's body so the store keeps the field as
	// it was; first is the value the webhook was created with, known
	// whether one was recorded. false leaves the update as it was sent.
	hold func(in map[string]any, first any, known bool) bool
}

// webhookWorkerKeeps is the mechanism of the webhook worker faults: a
// valid update's value of the field is held from the store the delivery
// worker reads, and shown in every later answer about the webhook (the
// update's own, a fetch's, a list's, and a create's where creates are
// read).
func webhookWorkerKeeps(next http.Handler, k keptField) http.Handler {
	var mu sync.Mutex
	first, shown := map[string]any{}, map[string]any{}
	show := func(doc map[string]any) {
		id, _ := doc["id"].(string)
		mu.Lock()
		v, ok := shown[id]
		mu.Unlock()
		if ok {
			doc[k.name] = v
		}
	}
	reads := []string{"webhooks.get", "webhooks.list"}
	if k.record {
		reads = append(reads, "webhooks.create")
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		params, isUpdate := faultRoute(r, "webhooks.update")
		switch {
		case isUpdate:
			in := peekJSON(r)
			sent := in[k.name]
			v, err := validate.Default()
			mu.Lock()
			was, known := first[params["id"]]
			mu.Unlock()
			keep := k.sent(sent) && err == nil && v.Request("webhooks.update", mustJSON(in)) == nil && k.hold(in, was, known)
			if keep {
				replaceBody(r, in)
			}
			rec := newFaultRecorder()
			next.ServeHTTP(rec, r)
			out := decodeFaultJSON(rec.body.Bytes())
			if !isSuccess(rec.status) || out == nil {
				rec.flush(w, rec.body.Bytes())
				return
			}
			if keep {
				mu.Lock()
				shown[params["id"]] = sent
				mu.Unlock()
			}
			show(out)
			writeFaultJSONHeader(w, rec, out)
		case matchAny(r, reads...):
			rec := newFaultRecorder()
			next.ServeHTTP(rec, r)
			out := decodeFaultJSON(rec.body.Bytes())
			if !isSuccess(rec.status) || out == nil {
				rec.flush(w, rec.body.Bytes())
				return
			}
			if id, _ := out["id"].(string); id != "" && k.record && r.Method == http.MethodPost {
				mu.Lock()
				first[id] = out[k.name]
				mu.Unlock()
			}
			eachResource(out, show)
			writeFaultJSONHeader(w, rec, out)
		default:
			next.ServeHTTP(w, r)
		}
	})
}

// mustJSON is doc as JSON (nil when it cannot be one).
func mustJSON(doc map[string]any) []byte {
	b, err := json.Marshal(doc)
	if err != nil {
		return nil
	}
	return b
}
