package explore

import (
	"time"

	"github.com/conform-kit/conform/steps/report"
	"github.com/conform-kit/conform/validate/judging"
)

// What an exploration returns: its findings, each with the exchanges of
// its shrunk sequence, and the checks they are named by.

// Result is what an exploration found and covered.
type Result struct {
	Seed      uint64
	RunID     string
	Requests  int // sent to the target, shrinking included
	Sequences int
	Duration  time.Duration
	Findings  []Finding
	// Observed are the target's choices explore observed and judged with
	// (Options.Observe), as "key value"; none when a profile was given or
	// the target chose as the reference.
	Observed []string
	// Unanswered are the requests the target never answered (each ended
	// its sequence): a *NoAnswerError each, or the error that ended the
	// sequence.
	Unanswered []error
	// Held are the run's idempotency ids the target already held, from an
	// earlier run made with the same RunID: each ended its sequence
	// without a finding (see Notes).
	Held []string
	// Coverage is every operation the explorer can reach with the
	// target's answers; Schemas every request schema (and the list query)
	// with the leaves sent and the keyword boundaries reached.
	Coverage []report.ExploredOp
	Schemas  []report.ExploredSchema
}

// Failed reports whether any finding is a FAIL (WARN too under strict).
func (r Result) Failed() bool {
	for _, f := range r.Findings {
		if f.Outcome == report.Fail {
			return true
		}
	}
	return false
}

// Count is the number of findings of an outcome.
func (r Result) Count(o report.Outcome) int {
	n := 0
	for _, f := range r.Findings {
		if f.Outcome == o {
			n++
		}
	}
	return n
}

// Finding is one failed check, shrunk.
type Finding struct {
	Check    string // checkShape, checkEnvelope, ...
	Op       string
	Outcome  report.Outcome
	Basis    judging.Basis
	Message  string
	Expected string
	Observed string
	// Sequence is the index of the sequence (under Seed) that first failed.
	Sequence int
	// Seed is the run's seed; Recipe the shrunk sequence's draws.
	Seed   uint64
	Recipe []uint32
	// Original and Shrunk are the numbers of requests before and after shrinking.
	Original, Shrunk int
	// Occurrences counts the sequences that failed with the finding's
	// cause (Group); Examples are the first of them, as they failed before
	// shrinking, the one shrunk among them.
	Occurrences int
	Examples    []Example
	// Trace is the shrunk sequence as sent to the target.
	Trace []Exchange
	// Gherkin is the shrunk sequence as a feature in the suite's step
	// vocabulary; Curl a replay script.
	Gherkin, Curl string
	// Ops are the operations the finding's cause failed on, Op's first.
	Ops    []string
	assert string // the suite step that fails
	// cause is the message with the request, operation, roles, ids,
	// numbers and generated text replaced by their kinds (normalise).
	cause string
	// reproduced is set when a replay of the recipe failed alike, so the
	// finding was shrunk (as far as the replays and the time let it).
	reproduced bool
	replays    int // the replays spent shrinking it
}

// Key is how a finding fails: the same check on the same basis for one
// operation.
func (f Finding) Key() string {
	return f.Check + "|" + f.Op + "|" + string(f.Outcome) + "|" + f.Basis.Cites()
}

// Group is the finding's cause: the same check failing on the same basis
// with the same message once its request, operation, roles, ids, numbers
// and generated text are replaced by their kinds, whatever the operation (a
// crash on multi-byte tags on five operations is one finding listing the
// five; a refused capture that still captured, read back in seventeen
// sequences with seventeen transfer ids, is one finding counting
// seventeen). A shrunk sequence keeps its group.
func (f Finding) Group() string {
	return f.Check + "|" + string(f.Outcome) + "|" + f.Basis.Cites() + "|" + f.cause
}

// Cause is the finding's message as its group knows it: with its
// request, operation, roles, ids, numbers and generated text replaced by
// their kinds ("{request}", "{id}", ...).
func (f Finding) Cause() string { return f.cause }

// Clause is the finding's basis as a report cites it.
func (f Finding) Clause() string { return f.Basis.Cites() }

// Says is the spec's words a FAIL rests on ("" for a WARN).
func (f Finding) Says() string {
	if !f.Basis.Normative() {
		return ""
	}
	return f.Basis.Says
}

// Exchange is one request and its answer.
type Exchange struct {
	Step        Step
	User        string
	Method      string
	Path        string // expanded, with query
	ContentType string
	Body        string // expanded
	Status      int
	Response    string
	doc         any
	// Page is set on the pages of a walk after the first, and on the
	// prelude's reads; Probe on the list reads around a refused create.
	Page, Probe bool
}

// Check names.
const (
	checkServerError   = "no 5xx for a request"
	checkShape         = "normative response shape"
	checkEnvelope      = "error envelope on a refusal"
	checkForbidden     = "forbidden request refused"
	checkAllowed       = "allowed request not refused"
	checkChangesNone   = "refused request changes nothing"
	checkReadBack      = "read back as sent"
	checkComputed      = "computed field"
	checkListWalk      = "list pages walk to page.count"
	checkListComplete  = "list holds what the run made"
	checkTenancy       = "another application sees nothing"
	checkSecrets       = "no secret in an answer"
	checkSuccessStatus = "success status"
)
