package explore

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestNormaliseKeepsTheCauseOnly: the messages of one cause on different
// sequences (other ids, numbers, generated text, requests, operations and
// roles) normalise alike; section numbers and what the message says stay.
func TestNormaliseKeepsTheCauseOnly(t *testing.T) {
	read := Step{Op: "authorizations.get", Method: "GET", Path: "/authorizations/{authorization}", Of: "authorization"}
	readB := Step{Op: "authorizations.get", Method: "GET", Path: "/authorizations/{authorization b}", Of: "authorization b"}
	create := Step{Op: "authorizations.create", Method: "POST", Path: "/authorizations", Save: "authorization"}
	sale := Step{Op: "transfers.create", Method: "POST", Path: "/transfers", Save: "sale c"}
	tests := []struct {
		name string
		msg  string
		st   Step
		want string
	}{
		{"a transfer id", `a refused request changed transfer of the authorization: null before, "TRKBNM0ZoRJOy8gPEOLbm4LT" after`, read,
			"a refused request changed transfer of the authorization: null before, {id} after"},
		{"another role of the kind", `a refused request changed transfer of the authorization b: null before, "TRoRm83rR2rY4FW7D1vICogA" after`, readB,
			"a refused request changed transfer of the authorization: null before, {id} after"},
		{"a request and statuses", "POST /authorizations answered 500; a conformant server answers 201", create,
			"{request} answered {number}; a conformant server answers {number}"},
		{"another operation", "POST /transfers answered 502; a conformant server answers 200", sale,
			"{request} answered {number}; a conformant server answers {number}"},
		{"a field, a negative value and a section", "POST /authorizations: `additional_purchase_data/item_data/0/quantity` -1 accepted with 201; §8: greater than 0", create,
			"{request}: `additional_purchase_data/item_data/{number}/quantity` {number} accepted with {number}; §8: greater than {number}"},
		{"a subsection and a fraction", "the authorizations.create answer breaks §4.1: amount 10.5 of the authorization", create,
			"the {operation} answer breaks §4.1: amount {number} of the authorization"},
		{"generated text and an unquoted id", `name of the sale c is "O'Brien 😀", want "explore" (AU0123456789abcdef)`, sale,
			"name of the sale is {text}, want {text} ({id})"},
		{"a word with digits that is no id", "level_two_level_three_data_enabled of the merchant: true before, false after", Step{Of: "merchant"},
			"level_two_level_three_data_enabled of the merchant: true before, false after"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, normalise(tt.msg, tt.st))
		})
	}
}

// TestFindingsOfOneCauseGroup: findings whose messages differ only by what
// normalise replaces share a group; another check, basis or rule does not.
func TestFindingsOfOneCauseGroup(t *testing.T) {
	read := Step{Op: "authorizations.get", Method: "GET", Path: "/authorizations/{authorization}", Of: "authorization"}
	mk := func(check string, st Step, b, msg string) *Finding {
		f := &Finding{Check: check, Op: st.Op, Basis: basisUnchanged, Message: msg, cause: normalise(msg, st)}
		if b != "" {
			f.Basis = basisOf(b)
		}
		return f
	}
	a := mk(checkChangesNone, read, "", `a refused request changed transfer of the authorization: null before, "TRKBNM0ZoRJOy8gPEOLbm4LT" after`)
	b := mk(checkChangesNone, read, "", `a refused request changed transfer of the authorization: null before, "TR7aMgcIjWK0HMyKj8qxPxr5" after`)
	other := mk(checkChangesNone, read, "", `a refused request changed amount of the authorization: 1000 before, 1001 after`)
	otherBasis := mk(checkChangesNone, read, "4.1", `a refused request changed transfer of the authorization: null before, "TR7aMgcIjWK0HMyKj8qxPxr5" after`)
	otherCheck := mk(checkReadBack, read, "", `a refused request changed transfer of the authorization: null before, "TR7aMgcIjWK0HMyKj8qxPxr5" after`)
	assert.Equal(t, a.Group(), b.Group(), "the same cause")
	assert.NotEqual(t, a.Group(), other.Group(), "another field")
	assert.NotEqual(t, a.Group(), otherBasis.Group(), "another basis")
	assert.NotEqual(t, a.Group(), otherCheck.Group(), "another check")
}
