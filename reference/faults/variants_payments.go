package faults

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/conform-kit/conform/validate"
)

// Variants whose choice is how a payment is decided where the spec is
// silent: sandbox triggers, further captures, the bound of a capture's fee,
// the card number check and the replay of a repeated idempotency_id.

// paymentVariants decide cards, authorizations and sales otherwise.
func paymentVariants() []Variant {
	return []Variant{
		{
			Name: "no-sandbox-triggers", Tags: "@sandbox,@disputes", Choice: "no sandbox triggers: no amount declines, no sale opens a dispute",
			Profile: `{"decline_trigger_amount": 0, "dispute_trigger_amount": 0}`,
			build:   parts(wrapOnly(noTriggers)),
		},
		{
			Name: "multi-capture", Tags: "@authorizations", Choice: "accepts further captures while the total stays within the authorized amount",
			Profile: `{"multi_capture": true}`,
			build:   parts(multiCapture),
		},
		{
			Name: "capture-fee-authorization-bound", Tags: "@authorizations", Choice: "bounds a capture's fee by the authorization amount, not the capture amount",
			Profile: `{"capture_fee_bound": "authorization_amount"}`,
			build:   parts(wrapOnly(feeBoundByAuthorization)),
		},
		{
			Name: "cards-any-length", Tags: "@payment_instruments", Choice: "accepts card numbers of 11 to 20 digits, Luhn check or not",
			Profile: `{"card_number_check": "unchecked"}`,
			build:   parts(wrapOnly(anyCardNumber)),
		},
		{
			Name: "idempotency-replay-409", Tags: "@transfers,@authorizations", Choice: "refuses a repeated idempotency_id with 409 CONFLICT instead of replaying the original",
			Profile: `{"idempotency_replay": "unchecked"}`,
			build:   parts(replayRefused),
		},
	}
}

// noTriggers moves the trigger amounts off by one on the way in and back on
// the way out, so the reference's triggers never fire.
func noTriggers(next http.Handler, _ faultDeps) http.Handler {
	const shift = 1
	triggers := map[int64]bool{102: true, 888888: true}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !matchAny(r, "authorizations.create", "transfers.create") {
			next.ServeHTTP(w, r)
			return
		}
		in := peekJSON(r)
		amount, _ := numberOf(in["amount"])
		if in == nil || !triggers[amount] {
			next.ServeHTTP(w, r)
			return
		}
		in["amount"] = amount + shift
		replaceBody(r, in)
		rec := newFaultRecorder()
		next.ServeHTTP(rec, r)
		out := decodeFaultJSON(rec.body.Bytes())
		if got, ok := numberOf(out["amount"]); ok && got == amount+shift {
			out["amount"] = amount
			writeFaultJSONHeader(w, rec, out)
			return
		}
		rec.flush(w, rec.body.Bytes())
	})
}

// feeBoundByAuthorization lets a capture's fee exceed the capture amount up
// to the authorization amount: the reference sees the fee clamped to the
// capture amount, the client the fee it sent.
func feeBoundByAuthorization(next http.Handler, d faultDeps) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		params, ok := faultRoute(r, "authorizations.capture")
		in := peekJSON(r)
		capture, okC := numberOf(in["capture_amount"])
		fee, okF := numberOf(in["fee"])
		if !ok || !okC || !okF || fee <= capture {
			next.ServeHTTP(w, r)
			return
		}
		status, auth := innerCall(next, r, http.MethodGet, "/authorizations/"+params["id"], nil, nil)
		amount, _ := numberOf(auth["amount"])
		if !isSuccess(status) || fee > amount {
			next.ServeHTTP(w, r)
			return
		}
		in["fee"] = capture
		replaceBody(r, in)
		next.ServeHTTP(w, r)
	})
}

// multiCapture accepts a capture of an authorization already captured when
// the total stays within its amount, answering with the authorization.
func multiCapture() func(http.Handler, faultDeps) http.Handler {
	var mu sync.Mutex
	captured := map[string]int64{}
	return func(next http.Handler, _ faultDeps) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			params, ok := faultRoute(r, "authorizations.capture")
			if !ok {
				next.ServeHTTP(w, r)
				return
			}
			in := peekJSON(r)
			want, _ := numberOf(in["capture_amount"])
			id := params["id"]
			mu.Lock()
			total, seen := captured[id]
			mu.Unlock()
			if seen && want > 0 {
				// A further capture is a capture: its body keeps the
				// contract (§8 limits of a capture's Level 3 data, §4.1
				// fee within the authorized amount) before the variant
				// takes it.
				if err := checkCaptureBody(r); err != nil {
					validate.WriteError(w, r, err)
					return
				}
				status, auth := innerCall(next, r, http.MethodGet, "/authorizations/"+id, nil, nil)
				amount, _ := numberOf(auth["amount"])
				if fee, ok := numberOf(in["fee"]); ok && isSuccess(status) && fee > amount {
					validate.WriteEnvelope(w, r, http.StatusUnprocessableEntity, validate.ErrorItem{Code: "INVALID_FIELD", Message: "fee must not exceed the authorized amount", Field: "fee"})
					return
				}
				if isSuccess(status) && total+want <= amount {
					mu.Lock()
					captured[id] = total + want
					mu.Unlock()
					writeFaultJSON(w, http.StatusOK, auth)
					return
				}
			}
			rec := newFaultRecorder()
			next.ServeHTTP(rec, r)
			if isSuccess(rec.status) && !seen {
				mu.Lock()
				captured[id] = want
				mu.Unlock()
			}
			rec.flush(w, rec.body.Bytes())
		})
	}
}

// checkCaptureBody validates a capture's body against its request schema
// (the body stays readable).
func checkCaptureBody(r *http.Request) error {
	raw, err := io.ReadAll(r.Body)
	_ = r.Body.Close()
	r.Body = io.NopCloser(bytes.NewReader(raw))
	if err != nil {
		return err
	}
	v, err := validate.Default()
	if err != nil {
		return err
	}
	return v.Request("authorizations.capture", raw)
}

// anyCardNumber hands the reference, for a card number of 11 to 20 digits
// it would refuse (length or Luhn check), a 16-digit number with the same
// first six and last four digits that passes.
func anyCardNumber(next http.Handler, _ faultDeps) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		in := peekJSON(r)
		number, _ := in["number"].(string)
		if !matchAny(r, "payment_instruments.create") || len(number) < 11 || len(number) > 20 || strings.Trim(number, "0123456789") != "" ||
			len(number) >= 12 && len(number) <= 19 && validate.LuhnValid(number) {
			next.ServeHTTP(w, r)
			return
		}
		for d := '0'; d <= '9'; d++ {
			if n := number[:6] + "00000" + string(d) + number[len(number)-4:]; validate.LuhnValid(n) {
				in["number"] = n
				break
			}
		}
		replaceBody(r, in)
		next.ServeHTTP(w, r)
	})
}

// replayRefused answers 409 CONFLICT where the reference replays a create
// by its idempotency_id (same operation, same user).
func replayRefused() func(http.Handler, faultDeps) http.Handler {
	var mu sync.Mutex
	seen := map[string]bool{}
	return func(next http.Handler, _ faultDeps) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			op := ""
			for _, id := range []string{"authorizations.create", "transfers.create"} {
				if matchAny(r, id) {
					op = id
				}
			}
			key, _ := peekJSON(r)["idempotency_id"].(string)
			if op == "" || key == "" {
				next.ServeHTTP(w, r)
				return
			}
			user, _, _ := r.BasicAuth()
			key = op + " " + user + " " + key
			rec := newFaultRecorder()
			next.ServeHTTP(rec, r)
			if !isSuccess(rec.status) {
				rec.flush(w, rec.body.Bytes())
				return
			}
			mu.Lock()
			replay := seen[key]
			seen[key] = true
			mu.Unlock()
			if replay {
				writeFaultJSON(w, http.StatusConflict, errorEnvelope(r, "CONFLICT", "idempotency_id already used"))
				return
			}
			rec.flush(w, rec.body.Bytes())
		})
	}
}
