package validate

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// judgingFile is the table of how the kit judges; it is not a schema.
const judgingFile = "judging.json"

// Kinds of refusal: the keys of the refusals table of schemas/judging.json.
// Every refused request is one of these; the table gives the reference's
// status and error codes for each, a Profile may declare others.
const (
	RefusalMalformed        = "malformed"          // body not JSON, or the wrong JSON type (400 BAD_REQUEST)
	RefusalUnauthenticated  = "unauthenticated"    // credentials missing or invalid (401 UNKNOWN)
	RefusalDeclined         = "declined"           // a sandbox decline (402 DECLINED)
	RefusalForbidden        = "forbidden"          // the role may not do this (403 FORBIDDEN)
	RefusalNotFound         = "not_found"          // unknown id or another application's (404 NOT_FOUND)
	RefusalMethodNotAllowed = "method_not_allowed" // known path, wrong method (405 METHOD_NOT_ALLOWED)
	RefusalNotAcceptable    = "not_acceptable"     // Accept or Content-Type not served (406 NOT_ACCEPTABLE)
	RefusalTooLarge         = "too_large"          // body over the limit (413 REQUEST_TOO_LARGE)
	RefusalInvalidField     = "invalid_field"      // a field breaks a schema or limit rule (422 INVALID_FIELD)
	RefusalUnprocessable    = "unprocessable"      // a state or business rule (422 UNPROCESSABLE_ENTITY)
	RefusalURITooLong       = "uri_too_long"       // a request target over the limit (414 URI_TOO_LONG)
	RefusalQuotaExceeded    = "quota_exceeded"     // a per-application quota is used up (429 QUOTA_EXCEEDED)
)

// Basis says why a check exists. A check is normative when Assumed is empty:
// then Clauses (spec sections, keys of Judging.Clauses) or Invariants (keys
// of Judging.Invariants) name what it enforces, and it may FAIL. Otherwise
// Assumed is the profile key of the reference's choice it checks (a WARN,
// or what the target's profile declares); Clauses may still name the spec
// sections the check is about.
type Basis struct {
	Clauses    []string `json:"clauses,omitempty"`
	Invariants []string `json:"invariants,omitempty"`
	Assumed    string   `json:"assumed,omitempty"`
}

// Normative reports whether a failure of the check is a FAIL.
func (b Basis) Normative() bool { return b.Assumed == "" }

// Cites renders the basis for a report: "§4.1, §2.1", "invariant tenancy",
// or "assumed: webhook_routes (§4.9)".
func (b Basis) Cites() string {
	var parts []string
	for _, c := range b.Clauses {
		parts = append(parts, "§"+c)
	}
	for _, inv := range b.Invariants {
		parts = append(parts, "invariant "+inv)
	}
	s := strings.Join(parts, ", ")
	if b.Assumed == "" {
		return s
	}
	if s == "" {
		return "assumed: " + b.Assumed
	}
	return "assumed: " + b.Assumed + " (" + s + ")"
}

func (b Basis) clone() Basis {
	b.Clauses = slices.Clone(b.Clauses)
	b.Invariants = slices.Clone(b.Invariants)
	return b
}

// Refusal is one row of the refusals table: the reference's status and
// error codes for a kind of refusal (Codes[0] is the code the reference
// sends; any of them is the reference's form), when it applies, and why a
// refusal at all is normative (any 4xx with the §7 envelope) or assumed.
type Refusal struct {
	Status int      `json:"status"`
	Codes  []string `json:"codes"`
	When   string   `json:"when"`
	Basis
}

// IDPrefix is one row of the id prefixes table.
type IDPrefix struct {
	Prefix string `json:"prefix"`
	Basis
}

// ProfileKey is one assumed decision of DESIGN.md: its name, what it
// decides, the values it may take when it is a choice among names, and the
// reference's default (null for refusals and extensions, whose defaults
// are the refusals table and the extension operations).
type ProfileKey struct {
	Key         string          `json:"key"`
	Description string          `json:"description"`
	Values      []string        `json:"values,omitempty"`
	Default     json.RawMessage `json:"default"`
}

// Judging is schemas/judging.json: the basis of every check of the kit.
// Operations carry their own basis (Operation.Basis).
type Judging struct {
	Clauses    map[string]string   `json:"clauses"`     // spec section ("4.1") → title
	Invariants map[string]string   `json:"invariants"`  // safety invariant name → statement
	Refusals   map[string]Refusal  `json:"refusals"`    // refusal kind (Refusal* constants) → row
	IDPrefixes map[string]IDPrefix `json:"id_prefixes"` // resource kind ("authorization") → prefix
	Schemas    map[string]Basis    `json:"schemas"`     // schema name → basis of its violations
	Profile    []ProfileKey        `json:"profile"`     // every profile key, in table order
	// NotJudged are names a profile may not use because the kit does not
	// judge them (a key that was never checked), each with the reason.
	NotJudged map[string]string `json:"not_judged"`
}

// Judging returns a copy of the judging table.
func (v *Validator) Judging() Judging {
	j := v.judging
	j.Clauses = maps.Clone(j.Clauses)
	j.Invariants = maps.Clone(j.Invariants)
	j.Refusals = make(map[string]Refusal, len(v.judging.Refusals))
	for k, r := range v.judging.Refusals {
		r.Codes = slices.Clone(r.Codes)
		r.Basis = r.Basis.clone()
		j.Refusals[k] = r
	}
	j.IDPrefixes = make(map[string]IDPrefix, len(v.judging.IDPrefixes))
	for k, p := range v.judging.IDPrefixes {
		p.Basis = p.Basis.clone()
		j.IDPrefixes[k] = p
	}
	j.Schemas = make(map[string]Basis, len(v.judging.Schemas))
	for k, b := range v.judging.Schemas {
		j.Schemas[k] = b.clone()
	}
	j.Profile = slices.Clone(j.Profile)
	j.NotJudged = maps.Clone(j.NotJudged)
	return j
}

// Refusal returns the refusals table's row for a kind (Refusal* constants).
func (v *Validator) Refusal(kind string) (Refusal, bool) {
	r, ok := v.judging.Refusals[kind]
	if !ok {
		return Refusal{}, false
	}
	r.Codes = slices.Clone(r.Codes)
	r.Basis = r.Basis.clone()
	return r, true
}

// defaultRefusal is the status and first code of a kind of refusal in the
// refusals table, for the package functions that render errors without a
// Validator at hand (WriteError). Only a broken embedded table (which New
// refuses, and every test would show) falls back to 500.
func defaultRefusal(kind string) (int, string) {
	v, err := Default()
	if err != nil {
		return http.StatusInternalServerError, "INTERNAL_SERVER_ERROR"
	}
	r, ok := v.judging.Refusals[kind]
	if !ok {
		return http.StatusInternalServerError, "INTERNAL_SERVER_ERROR"
	}
	return r.Status, r.Codes[0]
}

// IDPrefix returns the id prefix of a resource kind ("authorization" →
// "AU"), or "" for an unknown kind.
func (v *Validator) IDPrefix(kind string) string { return v.judging.IDPrefixes[kind].Prefix }

// SchemaBasis returns the basis of a schema's violations: normative with
// the spec sections it carries, or assumed under a profile key (payloads
// the spec does not show, extensions).
func (v *Validator) SchemaBasis(schema string) (Basis, bool) {
	b, ok := v.judging.Schemas[schema]
	return b.clone(), ok
}

// Clause returns the title of a spec section ("4.1" → "Authorizations").
func (v *Validator) Clause(section string) (string, bool) {
	t, ok := v.judging.Clauses[section]
	return t, ok
}

// ClauseCoverage splits the spec's sections into those at least one
// normative check names (an operation, a refusal, an id prefix or a schema)
// and the rest, each sorted as the clause table's keys.
func (v *Validator) ClauseCoverage() (covered, uncovered []string) {
	seen := map[string]bool{}
	add := func(b Basis) {
		if b.Normative() {
			for _, c := range b.Clauses {
				seen[c] = true
			}
		}
	}
	for _, op := range v.tab.ops {
		add(op.Basis())
	}
	for _, r := range v.judging.Refusals {
		add(r.Basis)
	}
	for _, p := range v.judging.IDPrefixes {
		add(p.Basis)
	}
	for _, b := range v.judging.Schemas {
		add(b)
	}
	for _, c := range slices.SortedFunc(maps.Keys(v.judging.Clauses), compareSections) {
		if seen[c] {
			covered = append(covered, c)
		} else {
			uncovered = append(uncovered, c)
		}
	}
	return covered, uncovered
}

// compareSections orders section numbers numerically ("2.9" before "2.10").
func compareSections(a, b string) int {
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(as) && i < len(bs); i++ {
		x, _ := strconv.Atoi(as[i])
		y, _ := strconv.Atoi(bs[i])
		if x != y {
			return x - y
		}
	}
	return len(as) - len(bs)
}

// newJudging parses judging.json and checks it against itself, the schemas
// and the operations table: every clause, invariant and profile key named
// anywhere exists; every normative row names a clause or an invariant;
// every schema has a row.
func newJudging(data []byte, names []string, t table) (Judging, error) {
	var j Judging
	if err := json.Unmarshal(data, &j); err != nil {
		return Judging{}, fmt.Errorf("validate: parsing %s: %w", judgingFile, err)
	}
	keys := map[string]bool{}
	for _, k := range j.Profile {
		if keys[k.Key] {
			return Judging{}, fmt.Errorf("validate: %s: profile key %q twice", judgingFile, k.Key)
		}
		keys[k.Key] = true
	}
	check := func(where string, b Basis) error {
		for _, c := range b.Clauses {
			if _, ok := j.Clauses[c]; !ok {
				return fmt.Errorf("validate: %s: unknown spec section %q", where, c)
			}
		}
		for _, inv := range b.Invariants {
			if _, ok := j.Invariants[inv]; !ok {
				return fmt.Errorf("validate: %s: unknown invariant %q", where, inv)
			}
		}
		if b.Assumed != "" && !keys[b.Assumed] {
			return fmt.Errorf("validate: %s: assumed under unknown profile key %q", where, b.Assumed)
		}
		if b.Normative() && len(b.Clauses)+len(b.Invariants) == 0 {
			return fmt.Errorf("validate: %s: normative, but names no spec section or invariant", where)
		}
		return nil
	}
	for _, kind := range slices.Sorted(maps.Keys(j.Refusals)) {
		r := j.Refusals[kind]
		if r.Status < 400 || r.Status > 499 || len(r.Codes) == 0 {
			return Judging{}, fmt.Errorf("validate: %s: refusal %s: want a 4xx status and at least one code", judgingFile, kind)
		}
		if err := check(judgingFile+": refusal "+kind, r.Basis); err != nil {
			return Judging{}, err
		}
	}
	for _, kind := range slices.Sorted(maps.Keys(j.IDPrefixes)) {
		p := j.IDPrefixes[kind]
		if p.Prefix == "" {
			return Judging{}, fmt.Errorf("validate: %s: id prefix of %s is empty", judgingFile, kind)
		}
		if err := check(judgingFile+": id prefix "+kind, p.Basis); err != nil {
			return Judging{}, err
		}
	}
	for _, name := range names {
		b, ok := j.Schemas[name]
		if !ok {
			return Judging{}, fmt.Errorf("validate: %s: schema %s has no basis", judgingFile, name)
		}
		if err := check(judgingFile+": schema "+name, b); err != nil {
			return Judging{}, err
		}
	}
	for name := range j.Schemas {
		if !slices.Contains(names, name) {
			return Judging{}, fmt.Errorf("validate: %s: basis for %s, which is not a schema", judgingFile, name)
		}
	}
	for _, op := range t.ops {
		if err := check(operationsFile+": operation "+op.ID, op.Basis()); err != nil {
			return Judging{}, err
		}
	}
	return j, nil
}
