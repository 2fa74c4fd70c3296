package report

// Exploration is what conform explore covered: its seed and run id, the
// requests it sent, every operation with the requests the target accepted,
// refused and answered 5xx, and every limit of the contract with the
// requests sent at it and over it. Its findings are the run's scenarios of
// feature "explore".
type Exploration struct {
	Seed       uint64          `json:"seed"`
	RunID      string          `json:"run_id"`
	Sequences  int             `json:"sequences"`
	Requests   int             `json:"requests"`
	Duration   Millis          `json:"duration_ms"`
	Operations []ExploredOp    `json:"operations"`
	Limits     []ExploredLimit `json:"limits"`
}

// ExploredOp is one operation's requests in an exploration.
type ExploredOp struct {
	ID       string `json:"id"`
	Accepted int    `json:"accepted"`
	Refused  int    `json:"refused"`
	Errored  int    `json:"errored"`
}

// ExploredLimit is one limit's requests in an exploration: at the limit
// (the largest value allowed) and over it.
type ExploredLimit struct {
	Limit string `json:"limit"`
	At    int    `json:"at"`
	Over  int    `json:"over"`
}
