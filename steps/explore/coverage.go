package explore

import "sort"

// Coverage: what the target answered per operation and per limit.

// OpCoverage is one operation's requests: accepted (2xx), refused (4xx)
// and answered 5xx by the target.
type OpCoverage struct {
	Op                         string
	Accepted, Refused, Errored int
}

// LimitCoverage is one limit of the contract: requests sent at it (the
// largest allowed value) and over it.
type LimitCoverage struct {
	Limit    string
	At, Over int
}

// cover counts a request in the coverage tables.
func (r *runner) cover(st Step, status int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := r.coverage[st.Op]
	if c == nil {
		c = &OpCoverage{Op: st.Op}
		r.coverage[st.Op] = c
	}
	switch {
	case status >= 500:
		c.Errored++
	case status >= 400:
		c.Refused++
	case status >= 200 && status < 300:
		c.Accepted++
	}
	if st.Limit != "" {
		l := r.limits[st.Limit]
		if l == nil {
			l = &LimitCoverage{Limit: st.Limit}
			r.limits[st.Limit] = l
		}
		if st.Side == sideAt {
			l.At++
		} else if st.Side == sideOver {
			l.Over++
		}
	}
}

// coverageRows renders the coverage tables in a stable order: every
// operation the explorer can reach, in the operations table's order.
func (r *runner) coverageRows() ([]OpCoverage, []LimitCoverage) {
	var ops []OpCoverage
	var reach []string
	for _, a := range r.actions {
		reach = append(reach, a.op)
	}
	for _, op := range r.v.Operations() {
		c, ok := r.coverage[op.ID]
		if !ok {
			found := false
			for _, x := range reach {
				found = found || x == op.ID
			}
			if !found || !r.profile.Offers(op) {
				continue
			}
			c = &OpCoverage{Op: op.ID}
		}
		ops = append(ops, *c)
	}
	var limits []LimitCoverage
	for _, l := range r.limits {
		limits = append(limits, *l)
	}
	sortLimits(limits)
	return ops, limits
}

func sortLimits(ls []LimitCoverage) {
	sort.Slice(ls, func(i, j int) bool { return ls[i].Limit < ls[j].Limit })
}
