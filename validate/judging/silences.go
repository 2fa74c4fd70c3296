package judging

import (
	"fmt"
	"slices"
	"strings"
)

// Silence is one sentence of the spec that leaves something open ("not
// shown", "observed", a choice between two forms): the profile keys that
// carry the choice a server makes there, and what it governs. No
// normative check may rest on what a silence governs; TestNoNormativeCheck
// RestsOnASilence holds the table's bases to the ledger, and the suite's
// and the proxy's tests hold their own checks to it.
type Silence struct {
	Clause  string         `json:"clause"`
	Says    string         `json:"says"`
	Keys    []string       `json:"keys"`
	Governs SilenceGoverns `json:"governs"`
}

// SilenceGoverns is what a silence leaves open, each member a kind of
// check the kit makes.
type SilenceGoverns struct {
	// Operations the spec does not name (or names without a payload):
	// their basis is assumed.
	Operations []string `json:"operations,omitempty"`
	// Routes are operations whose method and path are not shown.
	Routes []string `json:"routes,omitempty"`
	// AlsoMethods are operations the reference answers with methods the
	// spec does not name.
	AlsoMethods []string `json:"also_methods,omitempty"`
	// Schemas whose payload the spec does not show: assumed as a whole.
	Schemas []string `json:"schemas,omitempty"`
	// Keywords of normative request schemas the sentence leaves open.
	Keywords []SilentKeyword `json:"keywords,omitempty"`
	// OpenValues are resource fields whose values the spec lists as
	// observed or not in full: no normative schema fixes them.
	OpenValues []SilentField `json:"open_values,omitempty"`
	// IDPrefixes the spec does not give.
	IDPrefixes []string `json:"id_prefixes,omitempty"`
	// Query are list parameters whose bounds the spec does not give.
	Query []string `json:"query,omitempty"`
	// SuccessStatuses, RefusalForms and Roles say the silence governs
	// every operation's success status, every refusal's status and codes,
	// and which roles may call what.
	SuccessStatuses bool `json:"success_statuses,omitempty"`
	RefusalForms    bool `json:"refusal_forms,omitempty"`
	Roles           bool `json:"roles,omitempty"`
	// What says in words what the silence governs beyond the above.
	What string `json:"what,omitempty"`
}

// SilentKeyword is a keyword of a request schema at a pointer.
type SilentKeyword struct {
	Schema  string `json:"schema"`
	Pointer string `json:"pointer"`
	Rule    string `json:"rule"`
}

// SilentField is a field of a resource schema.
type SilentField struct {
	Schema  string `json:"schema"`
	Pointer string `json:"pointer"`
}

// Silences returns the ledger of the spec's silences.
func (j *Judge) Silences() []Silence {
	out := slices.Clone(j.table.Silences)
	for i := range out {
		out[i].Keys = slices.Clone(out[i].Keys)
	}
	return out
}

// checkSilences checks the ledger's rows: a known section, the spec's
// words, known profile keys, known operations and schemas.
func checkSilences(t Table, keys map[string]bool, schemaNames []string, opIDs []string) error {
	for i, s := range t.Silences {
		where := fmt.Sprintf("judging: %s: silence %d (§%s %q)", judgingFile, i, s.Clause, s.Says)
		if _, ok := t.Clauses[s.Clause]; !ok {
			return fmt.Errorf("%s: unknown spec section", where)
		}
		if strings.TrimSpace(s.Says) == "" {
			return fmt.Errorf("%s: says no sentence", where)
		}
		for _, k := range s.Keys {
			if !keys[k] {
				return fmt.Errorf("%s: unknown profile key %q", where, k)
			}
		}
		g := s.Governs
		for _, op := range slices.Concat(g.Operations, g.Routes, g.AlsoMethods) {
			if !slices.Contains(opIDs, op) {
				return fmt.Errorf("%s: unknown operation %q", where, op)
			}
		}
		names := slices.Clone(g.Schemas)
		for _, k := range g.Keywords {
			names = append(names, k.Schema)
		}
		for _, f := range g.OpenValues {
			names = append(names, f.Schema)
		}
		for _, n := range names {
			if !slices.Contains(schemaNames, n) {
				return fmt.Errorf("%s: unknown schema %q", where, n)
			}
		}
	}
	return nil
}
