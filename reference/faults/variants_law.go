package faults

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/conform-kit/conform/validate"
	"github.com/conform-kit/conform/validate/judging"
)

// Variants whose choice is to take request bodies the reference refuses for
// a rule the spec does not state (profile key request_rules: the assumed
// rules of judging.json's request schemas).

// lawVariants take what only the reference's own request rules refuse.
func lawVariants() []Variant {
	return []Variant{
		{
			Name: "unknown-fields-ignored", Tags: "@errors,@authorizations,@transfers,@payment_instruments,@webhooks",
			Choice:  "a member a request body's table does not list is ignored, not refused (no sentence of the spec refuses unknown fields)",
			Profile: `{"request_rules": "unchecked"}`,
			build:   parts(wrapOnly(ignoringUnknownFields)),
		},
		{
			Name: "empty-strings-accepted", Tags: "@errors,@payment_instruments,@authorizations,@transfers,@subscriptions,@webhooks",
			Choice: "an empty string is taken where the spec does not say non-empty (a card's name, postal code and third_party_token, " +
				"an authorization's processor, an idempotency_id, an amount update's nickname, a webhook's authentication type) and reads back empty",
			Profile: `{"request_rules": "unchecked"}`,
			build:   parts(wrapOnly(takingEmptyStrings)),
		},
		{
			Name: "tags-any-type", Tags: "@payment_instruments,@transfers,@subscriptions,@webhooks",
			Choice:  "tag values of any JSON type (numbers, booleans, objects, arrays, null) are taken outside authorizations (§2.1 states string pairs for authorizations only) and read back as sent",
			Profile: `{"request_rules": "unchecked"}`,
			build:   parts(wrapOnly(takingAnyTags)),
		},
		{
			Name: "negative-amounts-accepted", Tags: "@transfers,@level3",
			Choice: "a negative sale fee and negative Level 3 customs duty, discount, shipping, item cost and item discount amounts are taken on a create " +
				"(the spec does not say they are not negative) and read back as sent",
			Profile: `{"request_rules": "unchecked"}`,
			build:   parts(takingNegativeAmounts),
		},
		{
			Name: "lenient-request-rules", Tags: "@errors,@authorizations,@transfers,@payment_instruments,@subscriptions,@webhooks",
			Choice: "unknown-fields-ignored, empty-strings-accepted, tags-any-type and negative-amounts-accepted at once: " +
				"a server keeping none of the request rules the spec does not state",
			Profile: `{"request_rules": "unchecked"}`,
			build: parts(func() func(http.Handler, faultDeps) http.Handler {
				negative := takingNegativeAmounts()
				return func(next http.Handler, d faultDeps) http.Handler {
					return ignoringUnknownFields(takingEmptyStrings(takingAnyTags(negative(next, d), d), d), d)
				}
			}),
		},
	}
}

// ignoringUnknownFields drops from a JSON request body every member its
// request schema does not know (the additionalProperties violations the
// validator reports, at any depth) before the reference reads it, so the
// body is judged by its other rules alone, as by a server that ignores
// what it does not know.
func ignoringUnknownFields(next http.Handler, _ faultDeps) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if in := peekJSON(r); in != nil && dropUnknown(r, in) {
			replaceBody(r, in)
		}
		next.ServeHTTP(w, r)
	})
}

// dropUnknown deletes the members of in its operation's request schema
// does not know; it reports whether it deleted any.
func dropUnknown(r *http.Request, in map[string]any) bool {
	_, violations := bodyViolations(r, in)
	dropped := false
	for _, vi := range violations {
		if vi.Rule == "additionalProperties" {
			dropped = deleteAt(in, vi.Pointer) || dropped
		}
	}
	return dropped
}

// bodyViolations validates in against the request schema of r's operation
// and returns the schema's name and the violations of the body ("" and
// none for a request with no JSON body or a valid one).
func bodyViolations(r *http.Request, in map[string]any) (string, []validate.Violation) {
	v, err := validate.Default()
	if err != nil {
		return "", nil
	}
	op, _, err := v.Lookup(r.Method, r.URL.Path)
	if err != nil || !op.HasJSONBody() || op.Request == "" {
		return "", nil
	}
	raw, err := json.Marshal(in)
	if err != nil {
		return "", nil
	}
	var ve *validate.Error
	if !errors.As(v.Validate(op.Request, raw), &ve) {
		return "", nil
	}
	var out []validate.Violation
	for _, vi := range ve.Violations {
		if vi.In == validate.InBody {
			out = append(out, vi)
		}
	}
	return op.Request, out
}

// parentAt walks doc to the container of the member or item a JSON
// pointer names: the container and the last segment, unescaped.
func parentAt(doc any, pointer string) (any, string, bool) {
	segs := strings.Split(strings.TrimPrefix(pointer, "/"), "/")
	for i, seg := range segs {
		segs[i] = strings.ReplaceAll(strings.ReplaceAll(seg, "~1", "/"), "~0", "~")
	}
	node := doc
	for _, seg := range segs[:len(segs)-1] {
		switch n := node.(type) {
		case map[string]any:
			node = n[seg]
		case []any:
			i, ok := indexOf(seg, len(n))
			if !ok {
				return nil, "", false
			}
			node = n[i]
		default:
			return nil, "", false
		}
	}
	return node, segs[len(segs)-1], true
}

// deleteAt deletes the member a JSON pointer names in doc (objects and
// arrays on the way); it reports whether it did.
func deleteAt(doc any, pointer string) bool {
	node, last, ok := parentAt(doc, pointer)
	if !ok {
		return false
	}
	m, ok := node.(map[string]any)
	if !ok {
		return false
	}
	if _, ok := m[last]; !ok {
		return false
	}
	delete(m, last)
	return true
}

// indexOf reads an array index below n.
func indexOf(seg string, n int) (int, bool) {
	i := 0
	for _, c := range seg {
		if c < '0' || c > '9' {
			return 0, false
		}
		i = i*10 + int(c-'0')
		if i >= n {
			return 0, false
		}
	}
	return i, seg != ""
}

// Placeholders the lenient variants hand the reference for what it would
// refuse, turned back into what the client sent in every JSON answer.
const (
	emptyMark = "~EMPTY~" // an empty string (7 characters: a postal code's limit)
	jsonMark  = "~JSON~"  // a tag value of another JSON type, as its JSON text
)

// lenientViolations validates in against r's request schema and returns
// the pointers whose every violation is the keyword rule of an assumed
// rule under request_rules (by its judging.json row).
func lenientViolations(r *http.Request, in map[string]any, rule string) []string {
	j, err := judging.Default()
	if err != nil {
		return nil
	}
	schema, violations := bodyViolations(r, in)
	lenient := map[string]bool{}
	var order []string
	for _, vi := range violations {
		b, _ := j.RequestBodyBasis(schema, vi)
		ok := vi.Rule == rule && !b.Normative() && b.Assumed == "request_rules"
		if was, seen := lenient[vi.Pointer]; seen {
			lenient[vi.Pointer] = was && ok
			continue
		}
		lenient[vi.Pointer] = ok
		order = append(order, vi.Pointer)
	}
	var out []string
	for _, p := range order {
		if lenient[p] {
			out = append(out, p)
		}
	}
	return out
}

// setAt replaces the value a JSON pointer names in doc; it reports whether
// it did.
func setAt(doc any, pointer string, value func(old any) (any, bool)) bool {
	node, last, ok := parentAt(doc, pointer)
	if !ok {
		return false
	}
	switch n := node.(type) {
	case map[string]any:
		old, ok := n[last]
		if !ok {
			return false
		}
		nv, ok := value(old)
		if ok {
			n[last] = nv
		}
		return ok
	case []any:
		i, ok := indexOf(last, len(n))
		if !ok {
			return false
		}
		nv, ok := value(n[i])
		if ok {
			n[i] = nv
		}
		return ok
	}
	return false
}

// takingEmptyStrings hands the reference a placeholder for every empty
// string only an assumed minLength refuses (a card's name or postal code,
// an authorization's processor, an idempotency id, an amount update's
// nickname, a webhook's authentication type, ...), and every JSON answer
// shows the empty string again where the placeholder is echoed.
func takingEmptyStrings(next http.Handler, _ faultDeps) http.Handler {
	// empties makes the placeholders of empty idempotency ids unique: an
	// empty id is no key, so two requests carrying one are never a replay.
	var empties atomic.Int64
	return restoringMarks(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if in := peekJSON(r); in != nil {
			changed := false
			for _, p := range lenientViolations(r, in, "minLength") {
				changed = setAt(in, p, func(old any) (any, bool) {
					if s, ok := old.(string); !ok || s != "" {
						return nil, false
					}
					if p == "/idempotency_id" {
						return emptyMark + strconv.FormatInt(empties.Add(1), 36), true
					}
					return emptyMark, true
				}) || changed
			}
			if changed {
				replaceBody(r, in)
			}
		}
		next.ServeHTTP(w, r)
	}))
}

// takingAnyTags hands the reference every tag value only an assumed type
// rule refuses (a number, a boolean, an object, an array or null outside
// an authorization) as a string holding its JSON text, and every JSON
// answer shows the value again as sent.
func takingAnyTags(next http.Handler, _ faultDeps) http.Handler {
	return restoringMarks(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if in := peekJSON(r); in != nil {
			changed := false
			for _, p := range lenientViolations(r, in, "type") {
				if !strings.HasPrefix(p, "/tags/") || strings.Count(p, "/") != 2 {
					continue
				}
				changed = setAt(in, p, func(old any) (any, bool) {
					b, err := json.Marshal(old)
					if err != nil {
						return nil, false
					}
					return jsonMark + string(b), true
				}) || changed
			}
			if changed {
				replaceBody(r, in)
			}
		}
		next.ServeHTTP(w, r)
	}))
}

// restoringMarks turns the placeholders of every JSON answer back into
// what the client sent: an empty string, a tag value of its JSON type.
func restoringMarks(next http.Handler) http.Handler {
	return onJSON(next, func(_ *http.Request, _ *faultRecorder, body []byte) []byte {
		if !bytes.Contains(body, []byte(emptyMark)) && !bytes.Contains(body, []byte(jsonMark)) {
			return body
		}
		doc := decodeFaultJSON(body)
		if doc == nil {
			return body
		}
		out, err := json.Marshal(restoreMarks(doc))
		if err != nil {
			return body
		}
		return out
	})
}

// restoreMarks returns v with every placeholder string replaced by what it
// stands for.
func restoreMarks(v any) any {
	switch n := v.(type) {
	case map[string]any:
		for k, e := range n {
			n[k] = restoreMarks(e)
		}
	case []any:
		for i, e := range n {
			n[i] = restoreMarks(e)
		}
	case string:
		switch {
		case strings.HasPrefix(n, emptyMark):
			return ""
		case strings.HasPrefix(n, jsonMark):
			dec := json.NewDecoder(strings.NewReader(n[len(jsonMark):]))
			dec.UseNumber()
			var orig any
			if dec.Decode(&orig) == nil {
				return orig
			}
		}
	}
	return v
}

// merchantID is the form of a Merchant id (§2: prefix MU).
var merchantID = regexp.MustCompile(`^MU[0-9A-Za-z]+$`)

// takingBothMerchantNames lets an authorization name its merchant both
// ways: with merchant_identity present, a merchant that is a Merchant id is
// ignored (one of another type or form is still refused, by the reference).
func takingBothMerchantNames(next http.Handler, _ faultDeps) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if matchAny(r, "authorizations.create") {
			if in := peekJSON(r); in != nil {
				m, _ := in["merchant"].(string)
				_, mi := in["merchant_identity"]
				if mi && merchantID.MatchString(m) {
					delete(in, "merchant")
					replaceBody(r, in)
				}
			}
		}
		next.ServeHTTP(w, r)
	})
}

// negativeTaken are the members of a create's body whose negative amounts
// negative-amounts-accepted takes (§4.2's fee; the Level 3 amounts no
// computed value depends on: not sales_tax, nor an item's amounts with and
// without tax, from which an omitted sales tax is computed).
var negativeTaken = []string{
	"/fee", "/additional_purchase_data/customs_duty_amount", "/additional_purchase_data/discount_amount",
	"/additional_purchase_data/shipping_amount", "/additional_purchase_data/item_data/*/cost_per_unit",
	"/additional_purchase_data/item_data/*/item_discount_amount",
}

// sentAmount is a negative amount a create carried, at its pointer.
type sentAmount struct {
	pointer string
	value   any
}

// takingNegativeAmounts hands the reference 0 for every negative amount of
// negativeTaken in an authorization or sale create that only the assumed
// minimum refuses, remembers it by the created resource's id, and shows it
// again wherever that resource is answered (its create, fetches, lists).
func takingNegativeAmounts() func(http.Handler, faultDeps) http.Handler {
	var mu sync.Mutex
	sent := map[string][]sentAmount{}
	return func(next http.Handler, _ faultDeps) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			var taken []sentAmount
			if matchAny(r, "authorizations.create", "transfers.create") {
				if in := peekJSON(r); in != nil {
					for _, p := range lenientViolations(r, in, "minimum") {
						if !slices.ContainsFunc(negativeTaken, func(pat string) bool { return judging.PointerMatches(pat, p) }) {
							continue
						}
						setAt(in, p, func(old any) (any, bool) {
							taken = append(taken, sentAmount{pointer: p, value: old})
							return json.Number("0"), true
						})
					}
					if len(taken) > 0 {
						replaceBody(r, in)
					}
				}
			}
			// A capture's Level 3 data replaces what the create sent where it
			// names the same member (item_data as a whole).
			var capturedID string
			var captured map[string]any
			if params, ok := faultRoute(r, "authorizations.capture"); ok {
				if in := peekJSON(r); in != nil {
					capturedID = params["id"]
					captured, _ = in["additional_purchase_data"].(map[string]any)
				}
			}
			onJSON(next, func(_ *http.Request, rec *faultRecorder, body []byte) []byte {
				doc := decodeFaultJSON(body)
				if doc == nil {
					return body
				}
				mu.Lock()
				defer mu.Unlock()
				if id, _ := doc["id"].(string); id != "" && len(taken) > 0 && isSuccess(rec.status) {
					sent[id] = taken
				}
				if captured != nil && isSuccess(rec.status) {
					sent[capturedID] = slices.DeleteFunc(sent[capturedID], func(s sentAmount) bool {
						segs := strings.Split(s.pointer, "/")
						_, again := captured[segs[len(segs)-1]]
						if len(segs) > 3 { // /additional_purchase_data/item_data/N/member
							_, again = captured["item_data"]
						}
						return segs[1] == "additional_purchase_data" && again
					})
				}
				changed := false
				eachResource(doc, func(m map[string]any) {
					id, _ := m["id"].(string)
					for _, s := range sent[id] {
						changed = setAt(m, s.pointer, func(any) (any, bool) { return s.value, true }) || changed
					}
				})
				if !changed {
					return body
				}
				out, err := json.Marshal(doc)
				if err != nil {
					return body
				}
				return out
			}).ServeHTTP(w, r)
		})
	}
}
