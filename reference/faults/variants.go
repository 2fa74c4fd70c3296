package faults

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"mime"
	"net/http"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/conform-kit/conform/reference"
	"github.com/conform-kit/conform/validate/judging"
)

// Variant is the reference with another choice where the spec is silent:
// a conformant server that differs from the reference only in assumed
// decisions. The suite must never FAIL it, and must PASS it without a WARN
// once its profile is declared. Like a fault, a variant wraps the reference
// from the outside (its handler, its webhook client, at most its clock).
type Variant struct {
	// Name identifies the variant, e.g. "create-200".
	Name string
	// Choice says what the variant does differently.
	Choice string
	// Profile declares the variant's choices: a JSON object of profile keys.
	Profile string
	// Tags is a godog tag expression selecting the features where the
	// choice shows, for a quick run.
	Tags string

	// build makes the variant's parts for one server; state they share
	// (an id mapping, the webhooks' secrets) lives in its closure.
	build func() variantParts
}

// variantParts are the pieces of one variant server; any may be nil.
type variantParts struct {
	wrap      func(next http.Handler, d faultDeps) http.Handler
	transport func(base http.RoundTripper) http.RoundTripper
	config    func(cfg *reference.Config)
	seeded    func(reference.Seeded) reference.Seeded
}

// Variants returns the catalog of conformant variants, one or a few profile
// keys each.
func Variants() []Variant {
	return append([]Variant{
		{
			Name: "create-200", Tags: "@transfers", Choice: "answers every create with 200 instead of 201",
			Profile: `{"create_status": 200}`,
			build:   parts(wrapOnly(createdAs200)),
		},
		{
			Name: "validation-400", Tags: "@authorizations", Choice: "refuses invalid fields with 400 VALIDATION_ERROR and business rules with 409 CONFLICT",
			Profile: `{"refusals": {"invalid_field": {"status": 400, "codes": ["VALIDATION_ERROR"]}, "unprocessable": {"status": 409, "codes": ["CONFLICT"]}}}`,
			build: parts(wrapOnly(recodeRefusals(map[string]recode{
				"INVALID_FIELD":        {400, "VALIDATION_ERROR"},
				"UNPROCESSABLE_ENTITY": {409, "CONFLICT"},
			}))),
		},
		{
			Name: "ids-base58-21", Tags: "@transfers,@disputes", Choice: "ids of 21 base58 characters after the prefix",
			Profile: `{"id_form": "[1-9A-HJ-NP-Za-km-z]{21}"}`,
			build:   base58IDs,
		},
		{
			Name: "timestamps-ms", Tags: "@transfers", Choice: "timestamps with millisecond precision",
			Profile: `{"timestamp_precision": 3}`,
			build: func() variantParts {
				return variantParts{
					wrap: wrapOnly(millisecondTimestamps)(),
					config: func(cfg *reference.Config) {
						now := cfg.Now
						if now == nil {
							now = time.Now
						}
						cfg.Now = func() time.Time { return now().Truncate(time.Millisecond) }
					},
				}
			},
		},
		{
			Name: "plain-json", Tags: "@transfers", Choice: "answers with Content-Type application/json",
			Profile: `{"response_content_type": "application/json"}`,
			build:   parts(wrapOnly(plainJSON)),
		},
		{
			Name: "event-layout-and-signature", Tags: "@files,@webhooks", Choice: `delivers {"event": "<entity>.<type>", "data": resource} signed with another scheme`,
			Profile: `{"event_layout": "unchecked", "signature_scheme": "unchecked"}`,
			build:   func() variantParts { return variantParts{transport: otherEventLayout} },
		},
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
			Name: "list-max-50-clamped", Tags: "@lists", Choice: "lists hold at most 50 items and clamp a larger limit",
			Profile: `{"list_max_limit": 50, "list_over_max": "clamp"}`,
			build:   parts(wrapOnly(clampLimit(50))),
		},
		{
			Name: "merchant-role-no-charges", Tags: "@authentication", Choice: "the merchant role may not create cards or sales",
			Profile: `{"operation_roles": {"payment_instruments.create": ["ROLE_PLATFORM"], "transfers.create": ["ROLE_PLATFORM"]}}`,
			build:   parts(merchantNoCharges),
		},
		{
			Name: "api-key-redacted", Tags: "@merchants", Choice: `returns processor_details.api_key as "<REDACTED>"`,
			Profile: `{"api_key_literal": "<REDACTED>"}`,
			build:   parts(wrapOnly(redactAPIKey)),
		},
		{
			Name: "expiry-24h", Tags: "@authorizations", Choice: "authorizations expire 24 hours after creation",
			Profile: `{"authorization_expiry_hours": 24}`,
			build:   parts(wrapOnly(expiry24h)),
		},
		{
			Name: "capture-202", Tags: "@authorizations", Choice: "answers a capture with 202 Accepted instead of 200",
			Profile: `{"success_status": {"authorizations.capture": 202}}`,
			build:   parts(wrapOnly(successStatus("authorizations.capture", http.StatusAccepted))),
		},
		{
			Name: "signing-key-whsec", Tags: "@webhooks", Choice: `webhook secrets of the form "whsec_" and 43 base64url characters`,
			Profile: `{"signing_key_form": "whsec_[A-Za-z0-9_-]{43}"}`,
			build:   whsecSecrets,
		},
		{
			Name: "file-reject-deny", Tags: "@files", Choice: `the file review rejects a display name containing "deny", not "reject"`,
			Profile: `{"file_reject_trigger": "deny"}`,
			build:   denyTrigger,
		},
		{
			Name: "webhook-update-patch", Tags: "@webhooks", Choice: "updates a webhook with PATCH /webhooks/{id}; PUT there is 405",
			Profile: `{"webhook_routes": {"webhooks.update": "PATCH /webhooks/{id}"}}`,
			build:   parts(wrapOnly(webhookUpdateByPatch)),
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
		{
			Name: "no-created-events", Tags: "@webhooks", Choice: "sends only the spec's file alerts: no created event for sales and authorizations",
			Profile: `{"resource_events": "unchecked"}`,
			build:   func() variantParts { return variantParts{transport: dropCreatedEvents} },
		},
		{
			Name: "updated-after-created", Tags: "@transfers", Choice: "a resource's updated_at is a millisecond after its created_at on create",
			Profile: `{"resource_values": "unchecked"}`,
			build:   parts(wrapOnly(updatedAfterCreated)),
		},
		{
			Name: "file-name-field", Tags: "@files", Choice: "files show their display name as \"name\"",
			Profile: `{"file_payloads": "unchecked"}`,
			build:   parts(wrapOnly(fileNameField)),
		},
		{
			Name: "vnd-api-json-only", Tags: "@errors,@transfers", Choice: "takes JSON request bodies only as application/vnd.api+json (406 for the other types)",
			Profile: `{"request_content_type": "application/vnd.api+json"}`,
			build:   parts(wrapOnly(onlyRequestType("application/vnd.api+json"))),
		},
		{
			Name: "authorization-merchant-field", Tags: "@authorizations", Choice: "names an authorization's merchant only by merchant (the Merchant id); merchant_identity is an unknown field",
			Profile: `{"authorization_merchant_field": "merchant"}`,
			build:   parts(wrapOnly(merchantFieldOnly)),
		},
		{
			Name: "amount-update-top-level", Tags: "@subscriptions", Choice: "takes a subscription amount update's amount only at the top level; inside fee_amount_data it is an unknown field",
			Profile: `{"subscription_amount_update_form": "top_level"}`,
			build:   parts(wrapOnly(amountUpdateTopLevelOnly)),
		},
		{
			Name: "vnd-json-api-only", Tags: "@errors", Choice: "takes JSON request bodies only as application/vnd.json+api, the default (406 for the other types)",
			Profile: `{"request_media_types": ["application/vnd.json+api"]}`,
			build:   parts(wrapOnly(onlyRequestType("application/vnd.json+api"))),
		},
		{
			Name: "signature-header-renamed", Tags: "@files,@webhooks", Choice: "signs deliveries in the same scheme under X-Payments-Signature",
			Profile: `{"signature_header": "X-Payments-Signature"}`,
			build:   func() variantParts { return variantParts{transport: renamedSignature} },
		},
		{
			Name: "no-reference-rules", Tags: "@errors,@payment_instruments",
			Choice:  "none of the reference's own business rules: one violation reported, a fingerprint per card, an enrollment without a merchant and a tax-exempt sale with a sales tax accepted",
			Profile: `{"reference_rules": "unchecked"}`,
			build:   parts(wrapOnly(withoutReferenceRules)),
		},
		{
			Name: "no-extensions", Tags: "@balance_transfers,@subscriptions",
			Choice:  "only the operations the spec names: the 9 extensions answer as unknown routes (404, or 405 where the path has a spec operation)",
			Profile: `{"extensions": []}`,
			build:   parts(wrapOnly(withoutExtensions)),
		},
	}, realisticVariants()...)
}

// parts makes a build of a handler-only variant.
func parts(wrap func() func(http.Handler, faultDeps) http.Handler) func() variantParts {
	return func() variantParts { return variantParts{wrap: wrap()} }
}

// wrapOnly lifts a stateless wrapper into parts' form.
func wrapOnly(w func(http.Handler, faultDeps) http.Handler) func() func(http.Handler, faultDeps) http.Handler {
	return func() func(http.Handler, faultDeps) http.Handler { return w }
}

// VariantByName returns the catalog entry called name.
func VariantByName(name string) (Variant, bool) {
	for _, v := range Variants() {
		if v.Name == name {
			return v, true
		}
	}
	return Variant{}, false
}

// ServeVariant builds a reference from cfg as the named variant: serve the
// returned handler; the Seeded is what a client of the variant sees (its
// ids). Close the server when done.
func ServeVariant(cfg reference.Config, name string) (*reference.Server, http.Handler, reference.Seeded, error) {
	return ServeVariants(cfg, name)
}

// ServeVariants builds a reference from cfg with the choices of every named
// variant at once, as a server differing from the reference in many assumed
// decisions would. The first name's wrapper is nearest the reference, the
// last one's meets the client. A name twice is refused: the choices would
// be applied twice. Close the server when done.
func ServeVariants(cfg reference.Config, names ...string) (*reference.Server, http.Handler, reference.Seeded, error) {
	if len(names) == 0 {
		return nil, nil, reference.Seeded{}, fmt.Errorf("%w variant: none named", ErrUnknown)
	}
	var all []variantParts
	for i, name := range names {
		v, ok := VariantByName(name)
		if !ok {
			return nil, nil, reference.Seeded{}, fmt.Errorf("%w variant %q", ErrUnknown, name)
		}
		if slices.Contains(names[:i], name) {
			return nil, nil, reference.Seeded{}, fmt.Errorf("%w variant %q: named twice", ErrUnknown, name)
		}
		all = append(all, v.build())
	}
	for _, p := range all {
		if p.config != nil {
			p.config(&cfg)
		}
		if p.transport != nil {
			c := cfg.WebhookClient
			if c == nil {
				c = &http.Client{Timeout: 10 * time.Second}
			}
			cp := *c
			base := cp.Transport
			if base == nil {
				base = http.DefaultTransport
			}
			cp.Transport = p.transport(base)
			cfg.WebhookClient = &cp
		}
	}
	srv, err := reference.New(cfg)
	if err != nil {
		return nil, nil, reference.Seeded{}, err
	}
	seeded := srv.Seeded()
	var h http.Handler = srv
	for _, p := range all {
		if p.wrap != nil {
			h = p.wrap(h, faultDeps{fx: seeded})
		}
	}
	for _, p := range all {
		if p.seeded != nil {
			seeded = p.seeded(seeded)
		}
	}
	return srv, h, seeded, nil
}

// ---- response rewriting ----

// onJSON runs edit on every JSON response body (with its recorded status
// and headers); edit returns the body to send.
func onJSON(next http.Handler, edit func(r *http.Request, rec *faultRecorder, body []byte) []byte) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := newFaultRecorder()
		next.ServeHTTP(rec, r)
		body := rec.body.Bytes()
		if mt, _, _ := mime.ParseMediaType(rec.header.Get("Content-Type")); strings.Contains(mt, "json") {
			body = edit(r, rec, body)
		}
		rec.flush(w, body)
	})
}

func createdAs200(next http.Handler, _ faultDeps) http.Handler {
	return onJSON(next, func(_ *http.Request, rec *faultRecorder, body []byte) []byte {
		if rec.status == http.StatusCreated {
			rec.status = http.StatusOK
		}
		return body
	})
}

// successStatus answers the operation's success with status.
func successStatus(opID string, status int) func(http.Handler, faultDeps) http.Handler {
	return func(next http.Handler, _ faultDeps) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !matchAny(r, opID) {
				next.ServeHTTP(w, r)
				return
			}
			rec := newFaultRecorder()
			next.ServeHTTP(rec, r)
			if isSuccess(rec.status) {
				rec.status = status
			}
			rec.flush(w, rec.body.Bytes())
		})
	}
}

// recode is another status and code for a refusal code.
type recode struct {
	status int
	code   string
}

func recodeRefusals(by map[string]recode) func(http.Handler, faultDeps) http.Handler {
	return func(next http.Handler, _ faultDeps) http.Handler {
		return onJSON(next, func(_ *http.Request, rec *faultRecorder, body []byte) []byte {
			doc := decodeFaultJSON(body)
			items, _ := objectAt(doc, "_embedded")["errors"].([]any)
			changed := false
			for _, it := range items {
				m, _ := it.(map[string]any)
				code, _ := m["code"].(string)
				if rc, ok := by[code]; ok {
					m["code"], rec.status, changed = rc.code, rc.status, true
				}
			}
			if !changed {
				return body
			}
			b, err := json.Marshal(doc)
			if err != nil {
				return body
			}
			return b
		})
	}
}

// msTimestamp matches a timestamp whose microseconds are whole milliseconds.
var msTimestamp = regexp.MustCompile(`(T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3})000Z`)

func millisecondTimestamps(next http.Handler, _ faultDeps) http.Handler {
	return onJSON(next, func(_ *http.Request, _ *faultRecorder, body []byte) []byte {
		return msTimestamp.ReplaceAll(body, []byte("${1}Z"))
	})
}

func plainJSON(next http.Handler, _ faultDeps) http.Handler {
	return onJSON(next, func(_ *http.Request, rec *faultRecorder, body []byte) []byte {
		rec.header.Set("Content-Type", "application/json; charset=utf-8")
		return body
	})
}

// anyCardNumber hands the reference, for a card number of 11 to 20 digits
// it would refuse (length or Luhn check), a 16-digit number with the same
// first six and last four digits that passes.
func anyCardNumber(next http.Handler, _ faultDeps) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		in := peekJSON(r)
		number, _ := in["number"].(string)
		if !matchAny(r, "payment_instruments.create") || len(number) < 11 || len(number) > 20 || strings.Trim(number, "0123456789") != "" ||
			len(number) >= 12 && len(number) <= 19 && luhnValid(number) {
			next.ServeHTTP(w, r)
			return
		}
		for d := '0'; d <= '9'; d++ {
			if n := number[:6] + "00000" + string(d) + number[len(number)-4:]; luhnValid(n) {
				in["number"] = n
				break
			}
		}
		replaceBody(r, in)
		next.ServeHTTP(w, r)
	})
}

// luhnValid reports whether a string of digits passes the Luhn check.
func luhnValid(number string) bool {
	sum := 0
	for i := range len(number) {
		d := int(number[len(number)-1-i] - '0')
		if i%2 == 1 {
			if d *= 2; d > 9 {
				d -= 9
			}
		}
		sum += d
	}
	return sum%10 == 0
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

// updatedAfterCreated moves an updated_at equal to its created_at a
// millisecond later, in a response and in each of its list items.
func updatedAfterCreated(next http.Handler, _ faultDeps) http.Handler {
	return rewriteResponse(func(x *faultExchange) bool {
		changed := false
		visit := func(m map[string]any) {
			created, _ := m["created_at"].(string)
			if updated, _ := m["updated_at"].(string); created == "" || updated != created {
				return
			}
			if t, err := time.Parse(time.RFC3339Nano, created); err == nil {
				m["updated_at"] = t.Add(time.Millisecond).UTC().Format("2006-01-02T15:04:05.000000Z")
				changed = true
			}
		}
		eachResource(x.out, visit)
		return changed
	})(next, faultDeps{})
}

// fileNameField renames a file's display_name to name, in a response and
// in each of its list items.
func fileNameField(next http.Handler, _ faultDeps) http.Handler {
	return rewriteResponse(func(x *faultExchange) bool {
		changed := false
		visit := func(m map[string]any) {
			id, _ := m["id"].(string)
			if name, ok := m["display_name"]; ok && strings.HasPrefix(id, "FILE_") {
				delete(m, "display_name")
				m["name"], changed = name, true
			}
		}
		eachResource(x.out, visit)
		return changed
	})(next, faultDeps{})
}

func redactAPIKey(next http.Handler, _ faultDeps) http.Handler {
	return onJSON(next, func(_ *http.Request, _ *faultRecorder, body []byte) []byte {
		body = bytes.ReplaceAll(body, []byte(`"<API_KEY>"`), []byte(`"<REDACTED>"`))
		return bytes.ReplaceAll(body, []byte(`"\u003cAPI_KEY\u003e"`), []byte(`"<REDACTED>"`))
	})
}

func expiry24h(next http.Handler, _ faultDeps) http.Handler {
	return rewriteResponse(func(x *faultExchange) bool {
		changed := false
		visit := func(m map[string]any) {
			created, _ := m["created_at"].(string)
			if _, ok := m["expires_at"].(string); !ok || created == "" {
				return
			}
			if t, err := time.Parse(time.RFC3339Nano, created); err == nil {
				m["expires_at"] = t.Add(24 * time.Hour).UTC().Format("2006-01-02T15:04:05.000000Z")
				changed = true
			}
		}
		if id, _ := x.out["id"].(string); strings.HasPrefix(id, "AU") {
			visit(x.out)
		}
		for _, it := range listItems(x.out) {
			if m, ok := it.(map[string]any); ok {
				visit(m)
			}
		}
		return changed
	}, "authorizations.create", "authorizations.capture", "authorizations.get")(next, faultDeps{})
}

// ---- requests ----

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
				status, auth := innerCall(next, r, http.MethodGet, "/authorizations/"+id, nil, nil)
				amount, _ := numberOf(auth["amount"])
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

// clampLimit clamps every list's limit to max.
func clampLimit(max int) func(http.Handler, faultDeps) http.Handler {
	return func(next http.Handler, _ faultDeps) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			q := r.URL.Query()
			if n, err := strconv.Atoi(q.Get("limit")); err == nil && n > max && r.Method == http.MethodGet {
				q.Set("limit", strconv.Itoa(max))
				r.URL.RawQuery = q.Encode()
			}
			next.ServeHTTP(w, r)
		})
	}
}

// merchantNoCharges refuses card and sale creates by the merchant user (403).
func merchantNoCharges() func(http.Handler, faultDeps) http.Handler {
	return func(next http.Handler, d faultDeps) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			user, _, _ := r.BasicAuth()
			if user == d.fx.Credentials.Merchant.Username && matchAny(r, "payment_instruments.create", "transfers.create") {
				writeFaultJSON(w, http.StatusForbidden, errorEnvelope(r, "FORBIDDEN", "Access is denied"))
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

// errorEnvelope is a §7 error envelope with one item.
func errorEnvelope(r *http.Request, code, message string) map[string]any {
	self := "http://" + r.Host + r.URL.Path
	return map[string]any{
		"total": 1,
		"_embedded": map[string]any{"errors": []any{map[string]any{
			"code": code, "message": message, "logref": map[string]any{"logref": "variant"},
			"_links": map[string]any{"self": map[string]any{"href": self}, "source": map[string]any{"href": self}},
		}}},
	}
}

// ---- webhook deliveries ----

// otherEventLayout re-delivers each event as {"event": "<entity>.<type>",
// "data": resource} with an X-Signature header of another scheme.
func otherEventLayout(base http.RoundTripper) http.RoundTripper {
	return &faultTransport{base: base, fn: func(base http.RoundTripper, req *http.Request) (*http.Response, error) {
		body, err := deliveryBody(req)
		if err != nil {
			return nil, err
		}
		ev := decodeFaultJSON(body)
		entity, _ := ev["entity"].(string)
		typ, _ := ev["type"].(string)
		var data any
		if items := listItems(ev); len(items) > 0 {
			data = items[0]
		}
		out, err := json.Marshal(map[string]any{"event": entity + "." + typ, "data": data})
		if err != nil {
			return nil, err
		}
		sum := sha256.Sum256(out)
		req.Header.Del("Finix-Signature")
		req.Header.Set("X-Signature", "v2="+hex.EncodeToString(sum[:]))
		req.Body = io.NopCloser(bytes.NewReader(out))
		req.ContentLength = int64(len(out))
		return base.RoundTrip(req)
	}}
}

// webhookUpdateByPatch serves the webhook update as PATCH and answers PUT
// on a webhook with 405 (Allow: GET, PATCH).
func webhookUpdateByPatch(next http.Handler, _ faultDeps) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case matchAny(r, "webhooks.update"):
			w.Header().Set("Allow", "GET, PATCH")
			writeFaultJSON(w, http.StatusMethodNotAllowed, errorEnvelope(r, "METHOD_NOT_ALLOWED", "Use PATCH to update a webhook"))
			return
		case r.Method == http.MethodPatch && strings.HasPrefix(r.URL.Path, "/webhooks/"):
			r.Method = http.MethodPut
		}
		next.ServeHTTP(w, r)
	})
}

// ---- webhook secrets ----

// hexSecret matches the reference's secret_signing_key in a JSON body.
var hexSecret = regexp.MustCompile(`("secret_signing_key"\s*:\s*")([0-9a-f]{64})"`)

// whsecSecrets shows each webhook secret as "whsec_" and the base64url of
// its bytes, and signs each delivery again with the secret shown: the
// original secret is the one whose signature the delivery carries.
func whsecSecrets() variantParts {
	var mu sync.Mutex
	shown := map[string]string{} // reference secret → secret shown
	reform := func(orig string) string {
		raw, err := hex.DecodeString(orig)
		if err != nil {
			return orig
		}
		out := "whsec_" + base64.RawURLEncoding.EncodeToString(raw)
		mu.Lock()
		shown[orig] = out
		mu.Unlock()
		return out
	}
	return variantParts{
		wrap: func(next http.Handler, _ faultDeps) http.Handler {
			return onJSON(next, func(_ *http.Request, _ *faultRecorder, body []byte) []byte {
				return hexSecret.ReplaceAllFunc(body, func(m []byte) []byte {
					sub := hexSecret.FindSubmatch(m)
					return []byte(string(sub[1]) + reform(string(sub[2])) + `"`)
				})
			})
		},
		transport: func(base http.RoundTripper) http.RoundTripper {
			return &faultTransport{base: base, fn: func(base http.RoundTripper, req *http.Request) (*http.Response, error) {
				body, err := deliveryBody(req)
				if err != nil {
					return nil, err
				}
				signed := req.Header.Get("Finix-Signature")
				ts, _ := judging.ParseSignature(signed)
				mu.Lock()
				for orig, out := range shown {
					if judging.VerifySignature(signed, orig, body) == nil {
						req.Header.Set("Finix-Signature", judging.SignatureValue(out, ts, body))
						break
					}
				}
				mu.Unlock()
				req.Body = io.NopCloser(bytes.NewReader(body))
				req.ContentLength = int64(len(body))
				return base.RoundTrip(req)
			}}
		},
	}
}

// resigner signs a delivery whose body a variant changed again, with the
// webhook secret that signed the original: the secrets are read from the
// responses.
type resigner struct {
	mu      sync.Mutex
	secrets map[string]bool
}

// note remembers the webhook secrets in a JSON response body.
func (rs *resigner) note(body []byte) {
	for _, m := range hexSecret.FindAllSubmatch(body, -1) {
		rs.mu.Lock()
		if rs.secrets == nil {
			rs.secrets = map[string]bool{}
		}
		rs.secrets[string(m[2])] = true
		rs.mu.Unlock()
	}
}

// resign signs out with the secret whose signature req carries for in.
func (rs *resigner) resign(req *http.Request, in, out []byte) {
	signed := req.Header.Get("Finix-Signature")
	ts, _ := judging.ParseSignature(signed)
	rs.mu.Lock()
	defer rs.mu.Unlock()
	for secret := range rs.secrets {
		if judging.VerifySignature(signed, secret, in) == nil {
			req.Header.Set("Finix-Signature", judging.SignatureValue(secret, ts, out))
			return
		}
	}
}

// ---- files ----

// rejectWord is the reference's file reject trigger, matched case-insensitively.
var rejectWord = regexp.MustCompile(`(?i)reject`)

// denyTrigger makes "deny" the file reject trigger instead of "reject": a
// file create's display name is renamed on the way in (a name with "deny"
// gains "reject", one with "reject" loses it) and back in every response
// and delivery, deliveries signed again.
func denyTrigger() variantParts {
	var mu sync.Mutex
	names := map[string]string{} // JSON of the name the reference holds → JSON of the client's
	rs := &resigner{}
	restore := func(b []byte) []byte {
		mu.Lock()
		defer mu.Unlock()
		for held, orig := range names {
			b = bytes.ReplaceAll(b, []byte(held), []byte(orig))
		}
		return b
	}
	return variantParts{
		wrap: func(next http.Handler, _ faultDeps) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if matchAny(r, "files.create") {
					in := peekJSON(r)
					if name, ok := in["display_name"].(string); ok {
						held := rejectWord.ReplaceAllString(name, "rej-ect")
						if strings.Contains(strings.ToLower(name), "deny") {
							held = "reject " + held
						}
						if held != name {
							hq, _ := json.Marshal(held)
							oq, _ := json.Marshal(name)
							mu.Lock()
							names[string(hq)] = string(oq)
							mu.Unlock()
							in["display_name"] = held
							replaceBody(r, in)
						}
					}
				}
				onJSON(next, func(_ *http.Request, _ *faultRecorder, body []byte) []byte {
					rs.note(body)
					return restore(body)
				}).ServeHTTP(w, r)
			})
		},
		transport: func(base http.RoundTripper) http.RoundTripper {
			return &faultTransport{base: base, fn: func(base http.RoundTripper, req *http.Request) (*http.Response, error) {
				body, err := deliveryBody(req)
				if err != nil {
					return nil, err
				}
				out := restore(body)
				if !bytes.Equal(out, body) {
					rs.resign(req, body, out)
				}
				req.Body = io.NopCloser(bytes.NewReader(out))
				req.ContentLength = int64(len(out))
				return base.RoundTrip(req)
			}}
		},
	}
}

// dropCreatedEvents answers the reference's deliveries of created events of
// transfers and authorizations itself (204) without sending them.
func dropCreatedEvents(base http.RoundTripper) http.RoundTripper {
	return &faultTransport{base: base, fn: func(base http.RoundTripper, req *http.Request) (*http.Response, error) {
		body, err := deliveryBody(req)
		if err != nil {
			return nil, err
		}
		ev := decodeFaultJSON(body)
		entity, _ := ev["entity"].(string)
		if ev["type"] == "created" && (entity == "transfer" || entity == "authorization") {
			return &http.Response{StatusCode: http.StatusNoContent, Status: "204 No Content", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
				Header: http.Header{}, Body: http.NoBody, Request: req}, nil
		}
		return base.RoundTrip(req)
	}}
}

// ---- ids ----

// base58IDs maps every id the reference makes to its prefix and 21 base58
// characters, both ways: in responses and deliveries out, in paths,
// queries, JSON bodies and Basic usernames in.
// Deliveries are signed again with the webhook's secret.
func base58IDs() variantParts {
	m := &idMap{out: map[string]string{}, in: map[string]string{}, secrets: map[string]string{}}
	j, err := judging.Default()
	if err == nil {
		for _, p := range j.Table().IDPrefixes {
			m.prefixes = append(m.prefixes, p.Prefix)
		}
	}
	sort.Slice(m.prefixes, func(i, j int) bool { return len(m.prefixes[i]) > len(m.prefixes[j]) })
	alt := strings.Join(quoteAll(m.prefixes), "|")
	m.orig = regexp.MustCompile(`(` + alt + `)([0-9A-Za-z]{22})`)
	m.mapped = regexp.MustCompile(`(` + alt + `)([1-9A-HJ-NP-Za-km-z]{21})`)
	return variantParts{
		wrap: func(next http.Handler, _ faultDeps) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if user, pw, ok := r.BasicAuth(); ok {
					r.SetBasicAuth(string(m.replace(m.mapped, []byte(user), m.back)), pw)
				}
				r.URL.Path = string(m.replace(m.mapped, []byte(r.URL.Path), m.back))
				r.URL.RawPath = ""
				r.URL.RawQuery = string(m.replace(m.mapped, []byte(r.URL.RawQuery), m.back))
				if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); strings.Contains(mt, "json") {
					if b, err := io.ReadAll(r.Body); err == nil {
						b = m.replace(m.mapped, b, m.back)
						r.Body = io.NopCloser(bytes.NewReader(b))
						r.ContentLength = int64(len(b))
						r.Header.Set("Content-Length", strconv.Itoa(len(b)))
					}
				}
				onJSON(next, func(_ *http.Request, _ *faultRecorder, body []byte) []byte {
					m.noteSecret(body)
					return m.replace(m.orig, body, m.forth)
				}).ServeHTTP(w, r)
			})
		},
		transport: func(base http.RoundTripper) http.RoundTripper {
			return &faultTransport{base: base, fn: func(base http.RoundTripper, req *http.Request) (*http.Response, error) {
				body, err := deliveryBody(req)
				if err != nil {
					return nil, err
				}
				out := m.replace(m.orig, body, m.forth)
				if secret := m.secret(req.URL.String()); secret != "" {
					req.Header.Set("Finix-Signature", judging.SignatureValue(secret, strconv.FormatInt(time.Now().Unix(), 10), out))
				}
				req.Body = io.NopCloser(bytes.NewReader(out))
				req.ContentLength = int64(len(out))
				return base.RoundTrip(req)
			}}
		},
		seeded: func(s reference.Seeded) reference.Seeded {
			for _, c := range []*reference.Credential{&s.Credentials.Platform, &s.Credentials.Merchant, &s.Credentials.OtherApplication} {
				c.Username = string(m.replace(m.orig, []byte(c.Username), m.forth))
			}
			f := &s.Fixtures
			for _, p := range []*string{&f.BuyerIdentity, &f.Merchant, &f.MerchantIdentity, &f.PlainMerchant, &f.PlainMerchantIdentity,
				&f.SubscriptionSchedule, &f.SubscriptionAmount, &f.Dispute, &f.BalanceTransfer} {
				*p = string(m.replace(m.orig, []byte(*p), m.forth))
			}
			return s
		},
	}
}

func quoteAll(list []string) []string {
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = regexp.QuoteMeta(s)
	}
	return out
}

// idMap is the variant's id mapping and the webhooks' secrets by url.
type idMap struct {
	prefixes     []string
	orig, mapped *regexp.Regexp
	mu           sync.Mutex
	out, in      map[string]string // original id → variant id, and back
	secrets      map[string]string // webhook url → secret_signing_key
}

// replace rewrites every whole match of re in b with fn(prefix, rest).
func (m *idMap) replace(re *regexp.Regexp, b []byte, fn func(prefix, rest string) string) []byte {
	var out bytes.Buffer
	last := 0
	for _, loc := range re.FindAllSubmatchIndex(b, -1) {
		start, end := loc[0], loc[1]
		if start > 0 && isAlnum(b[start-1]) || end < len(b) && isAlnum(b[end]) {
			continue
		}
		out.Write(b[last:start])
		out.WriteString(fn(string(b[loc[2]:loc[3]]), string(b[loc[4]:loc[5]])))
		last = end
	}
	out.Write(b[last:])
	return out.Bytes()
}

func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z'
}

const base58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"

// forth maps an original id to the variant's (stable: a hash of it).
func (m *idMap) forth(prefix, rest string) string {
	orig := prefix + rest
	m.mu.Lock()
	defer m.mu.Unlock()
	if v, ok := m.out[orig]; ok {
		return v
	}
	sum := sha256.Sum256([]byte(orig))
	n := new(big.Int).SetBytes(sum[:])
	var b strings.Builder
	for range 21 {
		mod := new(big.Int)
		n.DivMod(n, big.NewInt(58), mod)
		b.WriteByte(base58[mod.Int64()])
	}
	v := prefix + b.String()
	m.out[orig], m.in[v] = v, orig
	return v
}

// back maps a variant id to the original, or leaves an unknown one as is.
func (m *idMap) back(prefix, rest string) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	if o, ok := m.in[prefix+rest]; ok {
		return o
	}
	return prefix + rest
}

// noteSecret remembers the secret of a single-webhook response by its url.
func (m *idMap) noteSecret(body []byte) {
	doc := decodeFaultJSON(body)
	url, _ := doc["url"].(string)
	key, _ := doc["secret_signing_key"].(string)
	if url != "" && key != "" {
		m.mu.Lock()
		m.secrets[url] = key
		m.mu.Unlock()
	}
}

func (m *idMap) secret(url string) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.secrets[url]
}

// VariantNames lists the catalog's names.
func VariantNames() []string {
	var out []string
	for _, v := range Variants() {
		out = append(out, v.Name)
	}
	return slices.Clip(out)
}
