package report

// Exploration is what conform explore covered: its seed and run id, the
// requests it sent, every operation with the requests the target accepted,
// refused and answered 5xx, and every request schema with the leaves sent
// and the keyword boundaries reached. Its findings are the run's scenarios
// of feature "explore".
type Exploration struct {
	Seed       uint64           `json:"seed"`
	RunID      string           `json:"run_id"`
	Sequences  int              `json:"sequences"`
	Requests   int              `json:"requests"`
	Duration   Millis           `json:"duration_ms"`
	Operations []ExploredOp     `json:"operations"`
	Schemas    []ExploredSchema `json:"schemas"`
}

// ExploredOp is one operation's requests in an exploration.
type ExploredOp struct {
	ID       string `json:"id"`
	Accepted int    `json:"accepted"`
	Refused  int    `json:"refused"`
	Errored  int    `json:"errored"`
}

// ExploredSchema is one request schema's coverage in an exploration: its
// leaves (every value position: scalars, arrays, maps) and those the
// requests sent, the boundaries its keywords define (maxLength at and one
// past, minimum at and one below, each enum value and one outside, a
// pattern matched and missed, ...) and those the requests reached. Missed
// names what was not reached ("address.city: maxLength 20: one past", a
// leaf never sent as "tags.*: never sent").
type ExploredSchema struct {
	Schema            string   `json:"schema"`
	Leaves            int      `json:"leaves"`
	LeavesSent        int      `json:"leaves_sent"`
	Boundaries        int      `json:"boundaries"`
	BoundariesReached int      `json:"boundaries_reached"`
	Missed            []string `json:"missed,omitempty"`
}

// ExploredTotals sums the schemas' rows.
func ExploredTotals(rows []ExploredSchema) (total ExploredSchema) {
	total.Schema = "total"
	for _, r := range rows {
		total.Leaves += r.Leaves
		total.LeavesSent += r.LeavesSent
		total.Boundaries += r.Boundaries
		total.BoundariesReached += r.BoundariesReached
	}
	return total
}
