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

// ExploredOp is one operation's requests in an exploration. NotOffered,
// when set, says why the target does not offer the operation (its profile
// declares it absent, or it answered every request as an unknown route):
// such an operation is listed but counts in no coverage total.
type ExploredOp struct {
	ID         string `json:"id"`
	Accepted   int    `json:"accepted"`
	Refused    int    `json:"refused"`
	Errored    int    `json:"errored"`
	NotOffered string `json:"not_offered,omitempty"`
}

// ExploredSchema is one request schema's coverage in an exploration: its
// leaves (every value position: scalars, arrays, maps) and those the
// requests sent, the boundaries its keywords define (maxLength at and one
// past, minimum at and one below, each enum value and one outside, a
// pattern matched and missed, ...) and those the requests reached. Missed
// names what was not reached ("address.city: maxLength 20: one past", a
// leaf never sent as "tags.*: never sent"). NotOffered is set when no
// operation the target offers takes the schema: the row is listed but
// counts in no total.
type ExploredSchema struct {
	Schema            string   `json:"schema"`
	Leaves            int      `json:"leaves"`
	LeavesSent        int      `json:"leaves_sent"`
	Boundaries        int      `json:"boundaries"`
	BoundariesReached int      `json:"boundaries_reached"`
	Missed            []string `json:"missed,omitempty"`
	NotOffered        bool     `json:"not_offered,omitempty"`
}

// ExploredTotals sums the rows of the schemas the target offers.
func ExploredTotals(rows []ExploredSchema) (total ExploredSchema) {
	total.Schema = "total"
	for _, r := range rows {
		if r.NotOffered {
			continue
		}
		total.Leaves += r.Leaves
		total.LeavesSent += r.LeavesSent
		total.Boundaries += r.Boundaries
		total.BoundariesReached += r.BoundariesReached
	}
	return total
}

// ExploredOpTotals counts the operations of an exploration: those the
// target offers, those of them answered with a 2xx and with a 4xx, and
// the ids of those it does not offer (counted in no other total).
type ExploredOpTotals struct {
	Offered, Accepted, Refused int
	NotOffered                 []string
}

// CountExploredOps sums the operations' rows.
func CountExploredOps(rows []ExploredOp) (t ExploredOpTotals) {
	for _, r := range rows {
		if r.NotOffered != "" {
			t.NotOffered = append(t.NotOffered, r.ID)
			continue
		}
		t.Offered++
		if r.Accepted > 0 {
			t.Accepted++
		}
		if r.Refused > 0 {
			t.Refused++
		}
	}
	return t
}
