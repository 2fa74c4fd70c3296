package explore

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestPrintedIdempotencyIDsAreFresh: a printed scenario and script send
// idempotency ids of their own run (the suite's {run_id}, the script's
// $RUN), equal ids staying equal; the last request states its status
// before a field it asserts.
func TestPrintedIdempotencyIDsAreFresh(t *testing.T) {
	body := `{"amount":5,"idempotency_id":"explore-abc-7-3-1","tags":{"idempotency_id":"x"}}`
	st := Step{Op: "transfers.create", Method: "POST", Path: "/transfers", Body: body, Save: "sale"}
	f := Finding{Check: checkReadBack, Op: st.Op, assert: `the response field "amount" is 5`,
		Trace: []Exchange{
			{Step: st, User: userPlatform, Method: "POST", Path: "/transfers", Body: body, Status: 201},
			{Step: st, User: userPlatform, Method: "POST", Path: "/transfers", Body: body, Status: 201},
		}}
	g := gherkin(f)
	assert.Contains(t, g, `"idempotency_id":"{run_id}-explore-abc-7-3-1"`)
	assert.NotContains(t, g, `"idempotency_id":"explore-abc`)
	assert.Contains(t, g, `"tags":{"idempotency_id":"{run_id}-x"}`, "every member so named")
	assert.Contains(t, g, "    Then the request succeeds\n    And the response field \"amount\" is 5\n")
	r := &runner{}
	c := r.curl(f)
	assert.Contains(t, c, `"idempotency_id":"'"$RUN"'-explore-abc-7-3-1"`)
	assert.Contains(t, c, `RUN="${CONFORM_RUN_ID:-`)
}
