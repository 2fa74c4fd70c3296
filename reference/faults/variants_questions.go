package faults

import (
	"net/http"
	"sync"
	"time"

	"github.com/conform-kit/conform/validate"
)

// questionVariants answer the questions conform explore asks of a resource
// otherwise where the spec leaves the answer open: another application's
// id is refused as forbidden rather than not found (§7 names both
// conditions, the status of neither), and a capture of an authorization
// another capture of which is in flight is refused at once (§4.1 bounds the
// total; how a server orders two captures is not shown). Explore judges
// neither choice (a refusal's status and code are the suite's to judge,
// under refusals), so their profiles declare nothing: explore must give
// them 0 FAIL and no finding.
func questionVariants() []Variant {
	return []Variant{
		{
			Name: "other-application-403", Tags: "@authentication",
			Choice:  "another application's ids answered 403 FORBIDDEN (the id exists, the caller may not see it), not 404",
			Profile: `{}`,
			build:   parts(wrapOnly(otherApplicationForbidden)),
		},
		{
			Name: "captures-serialised-409", Tags: "@authorizations",
			Choice:  "a capture of an authorization another capture of which is in flight is refused 409 CONFLICT at once (a lock per authorization)",
			Profile: `{}`,
			build:   parts(wrapOnly(capturesSerialised)),
		},
	}
}

// otherApplicationForbidden answers the other application's user 403
// FORBIDDEN where the reference answers an operation's route 404.
func otherApplicationForbidden(next http.Handler, d faultDeps) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		oa := d.fx.Credentials.OtherApplication
		user, pw, ok := r.BasicAuth()
		v, err := validate.Default()
		if !ok || user != oa.Username || pw != oa.Password || err != nil {
			next.ServeHTTP(w, r)
			return
		}
		if _, _, err := v.Lookup(r.Method, r.URL.Path); err != nil {
			next.ServeHTTP(w, r)
			return
		}
		rec := newFaultRecorder()
		next.ServeHTTP(rec, r)
		if rec.status == http.StatusNotFound {
			validate.WriteEnvelope(w, r, http.StatusForbidden, validate.ErrorItem{Code: "FORBIDDEN", Message: "Access is denied"})
			return
		}
		rec.flush(w, rec.body.Bytes())
	})
}

// capturesSerialised takes a lock per authorization for a capture's
// processor call: a second capture arriving meanwhile is refused 409
// CONFLICT. The first capture holds the lock at most raceWindow or until a
// second arrives, so the overlap does not depend on timing.
func capturesSerialised(next http.Handler, _ faultDeps) http.Handler {
	var mu sync.Mutex
	held := map[string]chan struct{}{}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		params, ok := faultRoute(r, "authorizations.capture")
		if !ok {
			next.ServeHTTP(w, r)
			return
		}
		id := params["id"]
		mu.Lock()
		second, busy := held[id]
		if busy {
			mu.Unlock()
			select {
			case second <- struct{}{}:
			default:
			}
			validate.WriteEnvelope(w, r, http.StatusConflict, validate.ErrorItem{Code: "CONFLICT", Message: "a capture of " + id + " is in progress"})
			return
		}
		second = make(chan struct{}, 1)
		held[id] = second
		mu.Unlock()
		defer func() {
			mu.Lock()
			delete(held, id)
			mu.Unlock()
		}()
		timer := time.NewTimer(raceWindow)
		select {
		case <-second:
		case <-timer.C:
		case <-r.Context().Done():
		}
		timer.Stop()
		next.ServeHTTP(w, r)
	})
}
