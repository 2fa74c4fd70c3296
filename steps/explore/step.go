package explore

import "github.com/conform-kit/conform/validate/judging"

// Users a step acts as, named as the suite's "I am the ... user" step names them.
const (
	userPlatform = "platform"
	userMerchant = "merchant"
	userOther    = "other application"
)

// Sides of a limit a request exercised, for the coverage table.
const (
	sideAt   = "at"
	sideOver = "over"
)

// Step is one generated request in the suite's terms: a path and body with
// {role} and {fixture:key} placeholders (the same the suite's steps expand),
// the user it acts as, and what the contract says of it.
type Step struct {
	Op          string // operation id
	User        string // userPlatform, userMerchant, userOther
	Method      string
	Path        string
	Body        string // "" for none
	ContentType string // "" for the declared JSON type
	// Save names the role the response is remembered as on success ("card", "card b").
	Save string
	// Of is the role the step reads or changes.
	Of string
	// Refuse is set when the contract forbids the request; Rule says why
	// and Basis whether that is a spec sentence (FAIL) or assumed (WARN).
	Refuse bool
	Rule   string
	Basis  judging.Basis
	// StateRule is set when Rule is a state rule (a merchant's Level 2/3
	// processing, an amount already updated), which a server applies after
	// the body's own rules: a model that refused the body as an invalid
	// field never asked it.
	StateRule bool `json:",omitempty"`
	// Limit is the limit the request exercised and Side which side of it.
	Limit, Side string
	// AtLimit are the fields the request sends at their stated limit (the
	// largest value allowed): a refusal naming one of them FAILs.
	AtLimit []string
	// Allowed are fields the request sends in a form a sentence states
	// allowed (a commodity code of 7 digits, a fee equal to the amount): a
	// refusal naming one of them FAILs on that sentence.
	Allowed []allowedValue `json:",omitempty"`
	// Expect are fields the response must show (read-back and computed).
	Expect []expectField
	// Answered are fields whose value in an accepted answer later reads
	// of the role must show (Value unused: the answer's is taken).
	Answered []expectField
	// Walk makes the step the first page of a list walk.
	Walk *walk
	// Secret values the request carried: never in any answer.
	Secrets []string
	// Shared is set when the step changes a fixture the run's sequences
	// share (the subscription amount of the fixture table): where the
	// target parts from the model on it, another sequence may have changed
	// it first, so the sequence ends there without a finding.
	Shared bool
	// SameState reads back a resource a refused request named: its state
	// must be what it was. RefusedBody is that request's body: a field it
	// carries that reads as it carried it, or one no body sets (a state, a
	// transfer, an amount) that reads otherwise, is the refused request's
	// change; another (a nickname the refused request did not send, or
	// one it sent that reads neither as before nor as sent) is an earlier
	// write that did not hold, which the read-back check judges.
	SameState   bool
	RefusedBody string `json:",omitempty"`
	// Question is the check of a question asked of a resource
	// (questions.go); Together sends the step that many times at once.
	Question string `json:",omitempty"`
	Together int    `json:",omitempty"`
	// Await waits for the event the question's steps triggered.
	Await *await `json:",omitempty"`
	// routeAnswered is set by the oracle on the step it judges when the
	// target answered the step's declared route (not 404 or 405): an
	// operation assumed only for its route (keyRoutes) is then judged
	// by the sentences on its body and answer.
	routeAnswered bool
}

// expectField is a field a response must show, with the basis of the rule.
type expectField struct {
	Path  string // dotted, as the suite's response field steps take it
	Value any    // string, int64, bool or nil
	Check string // checkReadBack or checkComputed
	Basis judging.Basis
}

// walk is a list walked page by page: every page of limit items to
// page.count, in order, every item once, with the roles listed.
type walk struct {
	Kind  string   // the roles' kind whose members must appear ("webhook")
	Roles []string // roles the sequence made that the list must hold
	Limit int
	Query string // extra query: the sort values ("" or "&sort=amount,desc&sort=created_at,asc")
	Items string // the _embedded member
	Other bool   // the other application walks it: none of Roles may appear
	// Gone are roles the sequence deleted: none may be listed, and
	// page.count, checked against the items walked, counts none of them.
	Gone []string `json:",omitempty"`
	// Follow follows the first page's self link; Whole reads the whole
	// list in one page after a walk of several (each a request more, in a
	// quarter of the walks).
	Follow, Whole bool
}
