package judging

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/conform-kit/conform/schemas"
	"github.com/conform-kit/conform/validate"
)

// judgingFile is the table of how the kit judges; it is not a schema.
const judgingFile = "judging.json"

// operationsFile names the operations table in errors about its rows.
const operationsFile = "operations.json"

// Judge holds the kit's judging of one contract: the table of
// schemas/judging.json checked against the validator's schemas and
// operations, the reference's profile, and the overlays of the reference's
// exact forms. It is safe for concurrent use.
type Judge struct {
	v       *validate.Validator
	table   Table
	schemas map[string]bool
	profile Profile // the default profile, built from the table
	assumed *assumedCache
}

// New reads judging.json and the overlays of schemas/assumed and checks
// them against v: every clause, invariant and profile key named anywhere
// exists, every normative row names a clause or an invariant, every schema
// and operation has a basis.
func New(v *validate.Validator) (*Judge, error) {
	data, err := fs.ReadFile(schemas.FS, judgingFile)
	if err != nil {
		return nil, fmt.Errorf("judging: reading %s: %w", judgingFile, err)
	}
	j := &Judge{v: v, schemas: map[string]bool{}}
	for _, name := range v.Schemas() {
		j.schemas[name] = true
	}
	if j.table, err = newTable(data, v.Schemas(), v.Operations()); err != nil {
		return nil, err
	}
	if err := checkAssumedRules(v, j.table.Schemas); err != nil {
		return nil, err
	}
	if j.profile, err = newDefaultProfile(j); err != nil {
		return nil, err
	}
	if j.assumed, err = newAssumed(j); err != nil {
		return nil, err
	}
	return j, nil
}

var defaultJudge = sync.OnceValues(func() (*Judge, error) {
	v, err := validate.Default()
	if err != nil {
		return nil, err
	}
	return New(v)
})

// Default returns a Judge of validate.Default, built on first use and
// shared afterwards.
func Default() (*Judge, error) { return defaultJudge() }

// Validator returns the validator the judge reads the contract from.
func (j *Judge) Validator() *validate.Validator { return j.v }

// OperationBasis says whether an operation itself is normative (the spec
// names it: its success and refusals may FAIL) or assumed under a profile
// key (extensions, the webhook create and update routes).
func OperationBasis(op validate.Operation) Basis {
	return Basis{Clauses: slices.Clone(op.Clauses), Assumed: op.Assumed, Says: op.Says}
}

// KeyWebhookRoutes is the profile key of the webhook create and update
// routes: §4.9 shows their bodies and §2.10 their answers, but "the method
// and path of this operation: not shown".
const KeyWebhookRoutes = "webhook_routes"

// RouteAnswered reports whether a target's status on a declared route
// shows the route was there: anything but an unknown route's 404 or a
// known path's 405 (0: no answer).
func RouteAnswered(status int) bool {
	return status != 0 && status != http.StatusNotFound && status != http.StatusMethodNotAllowed
}

// OperationBasisOnRoute is OperationBasis of an operation as a target
// answered it: an operation assumed only for its route (KeyWebhookRoutes)
// is normative once the route answered (RouteAnswered of its status), since
// what the spec states of its body and answer then applies as to any
// operation it names. The suite, explore and the proxy judge it alike.
func OperationBasisOnRoute(op validate.Operation, answered bool) Basis {
	b := OperationBasis(op)
	if b.Assumed == KeyWebhookRoutes && answered {
		b.Assumed = ""
	}
	return b
}

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
// then Clauses (spec sections, keys of Table.Clauses) or Invariants (keys
// of Table.Invariants) name what it enforces, and it may FAIL. Otherwise
// Assumed is the profile key of the reference's choice it checks (a WARN,
// or what the target's profile declares); Clauses may still name the spec
// sections the check is about.
type Basis struct {
	Clauses    []string `json:"clauses,omitempty"`
	Invariants []string `json:"invariants,omitempty"`
	Assumed    string   `json:"assumed,omitempty"`
	// Says is where the spec states a normative rule, in a few words: the
	// sentence or table row of the sections in Clauses ("number: primary
	// account number, digits only"), so that an implementer told of a
	// FAIL can read the sentence and argue with it. A basis that names an
	// invariant has its statement instead (Table.Invariants).
	Says string `json:"says,omitempty"`
}

// Normative reports whether a failure of the check is a FAIL.
func (b Basis) Normative() bool { return b.Assumed == "" }

// Kind says what a failed check means: a normative one breaks what the spec
// states (FAIL), an assumed one a choice the spec leaves open (WARN, or
// what the target's profile declares). The suite's reports and the proxy's
// violations name their checks by these kinds.
type Kind string

// The kinds of a check.
const (
	Normative Kind = "normative"
	Assumed   Kind = "assumed"
)

// Kind is Normative or Assumed.
func (b Basis) Kind() Kind {
	if b.Normative() {
		return Normative
	}
	return Assumed
}

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

// ProfileKey is one assumed decision of the kit (features/README.md, "Assumptions"): its name, what it
// decides, the values it may take when it is a choice among names, the
// reference's default (null for refusals and extensions, whose defaults
// are the refusals table and the extension operations) and an example of
// what another server chooses.
type ProfileKey struct {
	Key         string          `json:"key"`
	Description string          `json:"description"`
	Values      []string        `json:"values,omitempty"`
	Default     json.RawMessage `json:"default"`
	Example     json.RawMessage `json:"example"`
}

// Table is schemas/judging.json: the basis of every check of the kit.
// Operations carry their own basis (OperationBasis).
type Table struct {
	Clauses    map[string]string    `json:"clauses"`     // spec section ("4.1") → title
	Invariants map[string]string    `json:"invariants"`  // safety invariant name → statement
	Refusals   map[string]Refusal   `json:"refusals"`    // refusal kind (Refusal* constants) → row
	IDPrefixes map[string]IDPrefix  `json:"id_prefixes"` // resource kind ("authorization") → prefix
	Schemas    map[string]SchemaRow `json:"schemas"`     // schema name → basis of its violations
	Profile    []ProfileKey         `json:"profile"`     // every profile key, in table order
	// NotJudged are names a profile may not use because the kit does not
	// judge them (a key that was never checked), each with the reason.
	NotJudged map[string]string `json:"not_judged"`
	// Silences is the ledger of the spec's silences (Silence).
	Silences []Silence `json:"silences"`
}

// Table returns a copy of the judging table.
func (j *Judge) Table() Table {
	return j.table.clone()
}

func (t Table) clone() Table {
	c := t
	c.Clauses = maps.Clone(c.Clauses)
	c.Invariants = maps.Clone(c.Invariants)
	c.Refusals = make(map[string]Refusal, len(t.Refusals))
	for k, r := range t.Refusals {
		r.Codes = slices.Clone(r.Codes)
		r.Basis = r.Basis.clone()
		c.Refusals[k] = r
	}
	c.IDPrefixes = make(map[string]IDPrefix, len(t.IDPrefixes))
	for k, p := range t.IDPrefixes {
		p.Basis = p.Basis.clone()
		c.IDPrefixes[k] = p
	}
	c.Schemas = make(map[string]SchemaRow, len(t.Schemas))
	for k, b := range t.Schemas {
		c.Schemas[k] = b.clone()
	}
	c.Profile = slices.Clone(c.Profile)
	c.NotJudged = maps.Clone(c.NotJudged)
	c.Silences = slices.Clone(c.Silences)
	return c
}

// Refusal returns the refusals table's row for a kind (Refusal* constants).
func (j *Judge) Refusal(kind string) (Refusal, bool) {
	r, ok := j.table.Refusals[kind]
	if !ok {
		return Refusal{}, false
	}
	r.Codes = slices.Clone(r.Codes)
	r.Basis = r.Basis.clone()
	return r, true
}

// IDPrefix returns the id prefix of a resource kind ("authorization" →
// "AU"), or "" for an unknown kind.
func (j *Judge) IDPrefix(kind string) string { return j.table.IDPrefixes[kind].Prefix }

// SchemaBasis returns the basis of a schema's violations: normative with
// the spec sections it carries, or assumed under a profile key (payloads
// the spec does not show, extensions).
func (j *Judge) SchemaBasis(schema string) (Basis, bool) {
	b, ok := j.table.Schemas[schema]
	return b.Basis.clone(), ok
}

// Clause returns the title of a spec section ("4.1" → "Authorizations").
func (j *Judge) Clause(section string) (string, bool) {
	t, ok := j.table.Clauses[section]
	return t, ok
}

// ClauseCoverage splits the spec's sections into those at least one
// normative check names (an operation, a refusal, an id prefix or a schema)
// and the rest, each sorted as the clause table's keys.
func (j *Judge) ClauseCoverage() (covered, uncovered []string) {
	seen := map[string]bool{}
	add := func(b Basis) {
		if b.Normative() {
			for _, c := range b.Clauses {
				seen[c] = true
			}
		}
	}
	for _, op := range j.v.Operations() {
		add(OperationBasis(op))
	}
	for _, r := range j.table.Refusals {
		add(r.Basis)
	}
	for _, p := range j.table.IDPrefixes {
		add(p.Basis)
	}
	for _, b := range j.table.Schemas {
		add(b.Basis)
	}
	for _, c := range slices.SortedFunc(maps.Keys(j.table.Clauses), compareSections) {
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
func newTable(data []byte, names []string, ops []validate.Operation) (Table, error) {
	var j Table
	if err := json.Unmarshal(data, &j); err != nil {
		return Table{}, fmt.Errorf("judging: parsing %s: %w", judgingFile, err)
	}
	keys := map[string]bool{}
	for _, k := range j.Profile {
		if keys[k.Key] {
			return Table{}, fmt.Errorf("judging: %s: profile key %q twice", judgingFile, k.Key)
		}
		keys[k.Key] = true
	}
	check := func(where string, b Basis) error {
		for _, c := range b.Clauses {
			if _, ok := j.Clauses[c]; !ok {
				return fmt.Errorf("judging: %s: unknown spec section %q", where, c)
			}
		}
		for _, inv := range b.Invariants {
			if _, ok := j.Invariants[inv]; !ok {
				return fmt.Errorf("judging: %s: unknown invariant %q", where, inv)
			}
		}
		if b.Assumed != "" && !keys[b.Assumed] {
			return fmt.Errorf("judging: %s: assumed under unknown profile key %q", where, b.Assumed)
		}
		if b.Normative() && len(b.Clauses)+len(b.Invariants) == 0 {
			return fmt.Errorf("judging: %s: normative, but names no spec section or invariant", where)
		}
		if b.Normative() && len(b.Invariants) == 0 && strings.TrimSpace(b.Says) == "" {
			return fmt.Errorf("judging: %s: normative, but says no sentence of §%s (want says: the sentence or table row, in a few words)", where, strings.Join(b.Clauses, ", §"))
		}
		return nil
	}
	for _, kind := range slices.Sorted(maps.Keys(j.Refusals)) {
		r := j.Refusals[kind]
		if r.Status < 400 || r.Status > 499 || len(r.Codes) == 0 {
			return Table{}, fmt.Errorf("judging: %s: refusal %s: want a 4xx status and at least one code", judgingFile, kind)
		}
		if err := check(judgingFile+": refusal "+kind, r.Basis); err != nil {
			return Table{}, err
		}
	}
	for _, kind := range slices.Sorted(maps.Keys(j.IDPrefixes)) {
		p := j.IDPrefixes[kind]
		if p.Prefix == "" {
			return Table{}, fmt.Errorf("judging: %s: id prefix of %s is empty", judgingFile, kind)
		}
		if err := check(judgingFile+": id prefix "+kind, p.Basis); err != nil {
			return Table{}, err
		}
	}
	for _, name := range names {
		b, ok := j.Schemas[name]
		if !ok {
			return Table{}, fmt.Errorf("judging: %s: schema %s has no basis", judgingFile, name)
		}
		if err := check(judgingFile+": schema "+name, b.Basis); err != nil {
			return Table{}, err
		}
		for _, r := range b.AssumedRules {
			if !keys[r.Assumed] {
				return Table{}, fmt.Errorf("judging: %s: schema %s: assumed rule %s: unknown profile key %q", judgingFile, name, r, r.Assumed)
			}
		}
		for _, r := range b.StatedRules {
			if err := check(fmt.Sprintf("%s: schema %s: stated rule %s", judgingFile, name, r), r.basis()); err != nil {
				return Table{}, err
			}
		}
	}
	for name := range j.Schemas {
		if !slices.Contains(names, name) {
			return Table{}, fmt.Errorf("judging: %s: basis for %s, which is not a schema", judgingFile, name)
		}
	}
	var opIDs []string
	for _, op := range ops {
		if err := check(operationsFile+": operation "+op.ID, OperationBasis(op)); err != nil {
			return Table{}, err
		}
		opIDs = append(opIDs, op.ID)
	}
	if err := checkSilences(j, keys, names, opIDs); err != nil {
		return Table{}, err
	}
	return j, nil
}
