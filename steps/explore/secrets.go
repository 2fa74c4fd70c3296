package explore

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
)

// The secrets check: no card number, security code or password the run
// sent in any answer. A secret counts as leaked only where it could only
// have come from the secret. A long one (a card number, a password, 6
// characters or more) cannot be drawn by chance: anywhere in an answer.
// A short one (a security code of 3 or 4 digits) can equal a value the run
// sent elsewhere (a Level 3 item's commodity_code "234", a postal code):
// it counts in a field that carries security codes (security_code, cvv,
// cvc), or as a whole string value anywhere only when the run never sent
// that string in any other field of any request.

// longSecret is the length from which a secret is judged anywhere.
const longSecret = 6

// sentValues are the digit strings the run sent in fields that carry no
// secret, over all its sequences (another sequence's value shows in a list
// this one reads). Only digit strings are kept: the secrets that could
// collide with a drawn value are digits (security codes, card numbers).
type sentValues struct {
	mu   sync.Mutex
	seen map[string]struct{}
}

// note records the digit strings of a JSON body sent to op, less the
// fields that carry its secrets. Called before the request is sent, so a
// read that could show a value finds it noted.
func (s *sentValues) note(op, body string) {
	if body == "" || (body[0] != '{' && body[0] != '[') {
		return
	}
	var doc any
	if json.Unmarshal([]byte(body), &doc) != nil {
		return
	}
	var vals []string
	walkValues(doc, "", func(p string, v any) {
		str, ok := v.(string)
		if !ok || len(str) < 3 || len(str) > 19 || !allDigits(str) || secretField(op, p) {
			return
		}
		vals = append(vals, str)
	})
	if len(vals) == 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.seen == nil {
		s.seen = map[string]struct{}{}
	}
	for _, v := range vals {
		s.seen[v] = struct{}{}
	}
}

// has reports whether the run sent v in a field that carries no secret.
func (s *sentValues) has(v string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.seen[v]
	return ok
}

// lastSegment is the member name of a dotted path ("a.0.cvv" → "cvv").
func lastSegment(p string) string {
	if i := strings.LastIndexByte(p, '.'); i >= 0 {
		return p[i+1:]
	}
	return p
}

// codeField reports whether a member named name carries a security code.
func codeField(name string) bool {
	switch strings.ToLower(name) {
	case "cvv", "cvc", "cvv2", "cvc2", "cid":
		return true
	}
	return strings.HasSuffix(strings.ToLower(name), "security_code")
}

// secretField reports whether path p of a body sent to op carries a secret
// the run sent: a security code anywhere, a card's number on its create.
func secretField(op, p string) bool {
	return codeField(lastSegment(p)) || (op == "payment_instruments.create" && p == "number")
}

// secretsIn: no card number, security code or password in any answer, and
// no signing secret in a list (§2.10 shows it on a single webhook only).
func (r *runner) secretsIn(st Step, tex Exchange, secrets []string) *Finding {
	for _, s := range secrets {
		if len(s) >= longSecret && strings.Contains(tex.Response, s) {
			return r.finding(checkSecrets, st, basisSecrets, fmt.Sprintf("the answer to %s %s holds a secret the run sent", st.Method, tex.Path),
				"no secret", "a secret of "+strconv.Itoa(len(s))+" characters", "the response never contains the card number")
		}
	}
	var hit string
	walkValues(tex.doc, "", func(p string, v any) {
		s, ok := v.(string)
		if !ok || hit != "" || s == "" {
			return
		}
		name := lastSegment(p)
		switch {
		case codeField(name):
			hit = p // a field that carries a security code, returned
			return
		case name == "number" && len(s) >= 12 && allDigits(s) && !r.sent.has(s):
			hit = p // a card number the run did not send as another value
			return
		}
		for _, sec := range secrets {
			if len(sec) < longSecret && s == sec && !r.sent.has(s) {
				hit = p // a short secret, whole, that only the secret could have given
				return
			}
		}
		if strings.Contains(p, "._embedded.") || strings.HasPrefix(p, "_embedded.") {
			if strings.HasSuffix(p, "secret_signing_key") && !strings.HasPrefix(s, "<") {
				hit = p
			}
		}
	})
	if hit != "" {
		return r.finding(checkSecrets, st, basisSecrets, fmt.Sprintf("the answer to %s %s shows a secret at %s", st.Method, tex.Path, hit),
			hit+" absent", "present", fmt.Sprintf(`the response field %q is absent`, hit))
	}
	return nil
}
