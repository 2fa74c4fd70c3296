package faults

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"regexp"
	"strconv"
	"strings"
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
			Name: "both-merchant-names", Tags: "@authorizations",
			Choice:  "an authorization naming its merchant both by merchant_identity and by merchant is taken, by merchant_identity",
			Profile: `{"authorization_merchant_field": "merchant_identity"}`,
			build:   parts(wrapOnly(takingBothMerchantNames)),
		},
		{
			Name: "tags-any-type", Tags: "@payment_instruments,@transfers,@subscriptions,@webhooks",
			Choice:  "tag values of any JSON type (numbers, booleans, objects, arrays, null) are taken outside authorizations (§2.1 states string pairs for authorizations only) and read back as sent",
			Profile: `{"request_rules": "unchecked"}`,
			build:   parts(wrapOnly(takingAnyTags)),
		},
		{
			Name: "lenient-request-rules", Tags: "@errors,@authorizations,@transfers,@payment_instruments,@subscriptions,@webhooks",
			Choice:  "unknown-fields-ignored, empty-strings-accepted and tags-any-type at once: a server keeping none of the request rules the spec does not state",
			Profile: `{"request_rules": "unchecked"}`,
			build: parts(wrapOnly(func(next http.Handler, d faultDeps) http.Handler {
				return ignoringUnknownFields(takingEmptyStrings(takingAnyTags(next, d), d), d)
			})),
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
	v, err := validate.Default()
	if err != nil {
		return false
	}
	op, _, err := v.Lookup(r.Method, r.URL.Path)
	if err != nil || !op.HasJSONBody() || op.Request == "" {
		return false
	}
	raw, err := json.Marshal(in)
	if err != nil {
		return false
	}
	var ve *validate.Error
	if !errors.As(v.Validate(op.Request, raw), &ve) {
		return false
	}
	dropped := false
	for _, vi := range ve.Violations {
		if vi.In != validate.InBody || vi.Rule != "additionalProperties" {
			continue
		}
		dropped = deleteAt(in, vi.Pointer) || dropped
	}
	return dropped
}

// deleteAt deletes the member a JSON pointer names in doc (objects and
// arrays on the way); it reports whether it did.
func deleteAt(doc any, pointer string) bool {
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
				return false
			}
			node = n[i]
		default:
			return false
		}
	}
	m, ok := node.(map[string]any)
	if !ok {
		return false
	}
	if _, ok := m[segs[len(segs)-1]]; !ok {
		return false
	}
	delete(m, segs[len(segs)-1])
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

// emptyCount makes the placeholders of empty idempotency ids unique: an
// empty id is no key, so two requests carrying one are never a replay.
var emptyCount atomic.Int64

// lenientViolations validates in against r's request schema and returns
// the pointers whose every violation is the keyword rule of an assumed
// rule under request_rules (by its judging.json row).
func lenientViolations(r *http.Request, in map[string]any, rule string) []string {
	v, err := validate.Default()
	if err != nil {
		return nil
	}
	j, err := judging.Default()
	if err != nil {
		return nil
	}
	op, _, err := v.Lookup(r.Method, r.URL.Path)
	if err != nil || !op.HasJSONBody() || op.Request == "" {
		return nil
	}
	raw, err := json.Marshal(in)
	if err != nil {
		return nil
	}
	var ve *validate.Error
	if !errors.As(v.Validate(op.Request, raw), &ve) {
		return nil
	}
	lenient := map[string]bool{}
	var order []string
	for _, vi := range ve.Violations {
		if vi.In != validate.InBody {
			continue
		}
		b, _ := j.RequestBodyBasis(op.Request, vi)
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
				return false
			}
			node = n[i]
		default:
			return false
		}
	}
	last := segs[len(segs)-1]
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
	return restoringMarks(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if in := peekJSON(r); in != nil {
			changed := false
			for _, p := range lenientViolations(r, in, "minLength") {
				changed = setAt(in, p, func(old any) (any, bool) {
					if s, ok := old.(string); !ok || s != "" {
						return nil, false
					}
					if p == "/idempotency_id" {
						return emptyMark + strconv.FormatInt(emptyCount.Add(1), 36), true
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
