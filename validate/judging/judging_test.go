package judging_test

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/conform-kit/conform/validate"
	"github.com/conform-kit/conform/validate/judging"
)

// TestEveryNormativeCheckNamesAClause: an operation, a refusal, an id prefix
// or a schema that may FAIL names the spec sections or invariants it
// enforces, and each of them exists; an assumed one names a profile key.
func TestEveryNormativeCheckNamesAClause(t *testing.T) {
	v := newJudge(t)
	j := v.Table()
	keys := map[string]bool{}
	for _, k := range j.Profile {
		keys[k.Key] = true
	}
	check := func(what string, b judging.Basis) {
		t.Helper()
		if b.Normative() && len(b.Clauses)+len(b.Invariants) == 0 {
			t.Errorf("%s is normative but names no spec section or invariant", what)
		}
		if !b.Normative() && !keys[b.Assumed] {
			t.Errorf("%s is assumed under %q, which is no profile key", what, b.Assumed)
		}
		for _, c := range b.Clauses {
			if _, ok := j.Clauses[c]; !ok {
				t.Errorf("%s names spec section %q, which the clause table lacks", what, c)
			}
		}
		for _, inv := range b.Invariants {
			if _, ok := j.Invariants[inv]; !ok {
				t.Errorf("%s names invariant %q, which the table lacks", what, inv)
			}
		}
	}
	for _, op := range v.Validator().Operations() {
		check("operation "+op.ID, judging.OperationBasis(op))
		if op.Source == "extension" && op.Assumed != "extensions" {
			t.Errorf("operation %s is an extension but not assumed under extensions", op.ID)
		}
	}
	for kind, r := range j.Refusals {
		check("refusal "+kind, r.Basis)
	}
	for kind, p := range j.IDPrefixes {
		check("id prefix "+kind, p.Basis)
	}
	for _, name := range v.Validator().Schemas() {
		b, ok := v.SchemaBasis(name)
		if !ok {
			t.Errorf("schema %s has no basis in judging.json", name)
			continue
		}
		check("schema "+name, b)
	}
	if got := len(j.Invariants); got != 5 {
		t.Errorf("%d safety invariants, want tenancy, secrets, capture_total, refusal_changes_nothing and no_server_error", got)
	}
	for _, op := range []string{"webhooks.create", "webhooks.update"} {
		o, _ := v.Validator().Operation(op)
		if o.Assumed != "webhook_routes" {
			t.Errorf("%s assumed %q, want webhook_routes (the spec does not show its route)", op, o.Assumed)
		}
	}
}

// TestRefusalTableIsTheOnePlace: the codes validate renders are the table's.
func TestRefusalTableIsTheOnePlace(t *testing.T) {
	v := newJudge(t)
	tests := []struct {
		kind   string
		status int
		code   string
	}{
		{judging.RefusalMalformed, 400, "BAD_REQUEST"},
		{judging.RefusalUnauthenticated, 401, "UNKNOWN"},
		{judging.RefusalDeclined, 402, "DECLINED"},
		{judging.RefusalForbidden, 403, "FORBIDDEN"},
		{judging.RefusalNotFound, 404, "NOT_FOUND"},
		{judging.RefusalMethodNotAllowed, 405, "METHOD_NOT_ALLOWED"},
		{judging.RefusalNotAcceptable, 406, "NOT_ACCEPTABLE"},
		{judging.RefusalTooLarge, 413, "REQUEST_TOO_LARGE"},
		{judging.RefusalInvalidField, 422, validate.CodeInvalidField},
		{judging.RefusalUnprocessable, 422, validate.CodeUnprocessable},
		{judging.RefusalURITooLong, 414, "URI_TOO_LONG"},
		{judging.RefusalQuotaExceeded, 429, "QUOTA_EXCEEDED"},
	}
	if got := len(v.Table().Refusals); got != len(tests) {
		t.Errorf("%d kinds of refusal in the table, want %d", got, len(tests))
	}
	for _, tt := range tests {
		r, ok := v.Refusal(tt.kind)
		if !ok {
			t.Errorf("Refusal(%q) missing", tt.kind)
			continue
		}
		if r.Status != tt.status || r.Codes[0] != tt.code {
			t.Errorf("Refusal(%q) = %d %v, want %d %s first", tt.kind, r.Status, r.Codes, tt.status, tt.code)
		}
	}
	if _, ok := v.Refusal("teapot"); ok {
		t.Error("Refusal(teapot) found")
	}
}

// TestIDPrefixesMatchTheSchemas: the id definitions of common.json use the
// prefixes of the table, and every prefix the spec gives has a definition.
func TestIDPrefixesMatchTheSchemas(t *testing.T) {
	v := newJudge(t)
	raw, _ := v.Validator().Schema("common")
	var common struct {
		Defs map[string]struct {
			Pattern string `json:"pattern"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(raw, &common); err != nil {
		t.Fatal(err)
	}
	seen := 0
	for kind, p := range v.Table().IDPrefixes {
		if got := v.IDPrefix(kind); got != p.Prefix {
			t.Errorf("IDPrefix(%s) = %q, want %q", kind, got, p.Prefix)
		}
		def, ok := common.Defs["id_"+kind]
		if !ok {
			if p.Normative() {
				t.Errorf("the spec gives prefix %s for %s, but common.json has no id_%s", p.Prefix, kind, kind)
			}
			continue
		}
		seen++
		if want := "^" + regexp.QuoteMeta(p.Prefix) + "["; !strings.HasPrefix(def.Pattern, want) {
			t.Errorf("common.json id_%s pattern %q does not start with the table's prefix %q", kind, def.Pattern, want)
		}
	}
	for name := range common.Defs {
		if kind, ok := strings.CutPrefix(name, "id_"); ok && v.IDPrefix(kind) == "" {
			t.Errorf("common.json %s: no prefix for %s in judging.json", name, kind)
		}
	}
	if seen == 0 {
		t.Error("no id definition checked")
	}
}

// TestBasisCites renders bases for reports.
func TestBasisCites(t *testing.T) {
	tests := []struct {
		b    judging.Basis
		want string
	}{
		{judging.Basis{Clauses: []string{"4.1", "2.1"}}, "§4.1, §2.1"},
		{judging.Basis{Invariants: []string{"tenancy"}}, "invariant tenancy"},
		{judging.Basis{Clauses: []string{"4.9"}, Assumed: "webhook_routes"}, "assumed: webhook_routes (§4.9)"},
		{judging.Basis{Assumed: "extensions"}, "assumed: extensions"},
	}
	for _, tt := range tests {
		if got := tt.b.Cites(); got != tt.want {
			t.Errorf("%+v.Cites() = %q, want %q", tt.b, got, tt.want)
		}
	}
	v := newJudge(t)
	if title, ok := v.Clause("4.1"); !ok || title != "Authorizations" {
		t.Errorf("Clause(4.1) = %q, %v", title, ok)
	}
	o, _ := v.Validator().Operation("authorizations.create")
	if !slices.Contains(o.Clauses, "4.1") || !judging.OperationBasis(o).Normative() {
		t.Errorf("authorizations.create basis %+v, want normative §4.1", judging.OperationBasis(o))
	}
}

// TestClauseCoverage: every section of the spec that states something a
// server can break has a normative check; the rest only say "not shown".
func TestClauseCoverage(t *testing.T) {
	v := newJudge(t)
	covered, uncovered := v.ClauseCoverage()
	if want := []string{"3", "2.14", "9"}; !slices.Equal(sortedCopy(uncovered), sortedCopy(want)) {
		t.Errorf("sections without a normative check: %v, want %v (headings and gaps only)", uncovered, want)
	}
	if len(covered)+len(uncovered) != len(v.Table().Clauses) || covered[0] != "1" {
		t.Errorf("covered %v", covered)
	}
}

func sortedCopy(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return out
}

// TestOperationBasisOnRoute: the webhook create and update are assumed
// only for their route: normative once a target answered the declared
// route with anything but 404 or 405; an extension stays assumed.
func TestOperationBasisOnRoute(t *testing.T) {
	v, err := validate.Default()
	require.NoError(t, err)
	for _, tt := range []struct {
		op     string
		status int
		want   string // the assumed key, "" for normative
	}{
		{"webhooks.create", 201, ""},
		{"webhooks.create", 500, ""},
		{"webhooks.update", 422, ""},
		{"webhooks.update", 405, "webhook_routes"},
		{"webhooks.create", 404, "webhook_routes"},
		{"webhooks.create", 0, "webhook_routes"},
		{"authorizations.get", 200, "extensions"},
		{"transfers.create", 201, ""},
	} {
		op, ok := v.Operation(tt.op)
		require.True(t, ok, tt.op)
		got := judging.OperationBasisOnRoute(op, judging.RouteAnswered(tt.status))
		assert.Equal(t, tt.want, got.Assumed, "%s answered %d", tt.op, tt.status)
	}
}
