package explore

import (
	"bytes"
	"encoding/json"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/conform-kit/conform/steps/report"
	"github.com/conform-kit/conform/validate"
)

// coverage counts what a run's requests reached: per operation the
// target's 2xx, 4xx and 5xx answers, per request schema the leaves sent and
// the boundaries of their keywords reached. It is safe for concurrent use.
type coverage struct {
	mu     sync.Mutex
	c      *contract
	ops    map[string]*report.ExploredOp
	leaves map[string]map[string]bool // schema → leaf path → sent
	bounds map[string]map[string]bool // schema → "path: boundary" → reached
}

func newCoverage(c *contract) *coverage {
	return &coverage{c: c, ops: map[string]*report.ExploredOp{},
		leaves: map[string]map[string]bool{}, bounds: map[string]map[string]bool{}}
}

// add counts one request of st as sent to the target (ex: its expanded
// path with query and body) and the target's status.
func (cv *coverage) add(st Step, ex Exchange) {
	cv.mu.Lock()
	defer cv.mu.Unlock()
	c := cv.ops[st.Op]
	if c == nil {
		c = &report.ExploredOp{ID: st.Op}
		cv.ops[st.Op] = c
	}
	switch status := ex.Status; {
	case status >= 500:
		c.Errored++
	case status >= 400:
		c.Refused++
	case status >= 200 && status < 300:
		c.Accepted++
	}
	if name := cv.c.ops[st.Op]; name != "" && ex.Body != "" && (ex.ContentType == "" || validate.JSONMediaType(ex.ContentType)) {
		dec := json.NewDecoder(strings.NewReader(ex.Body))
		dec.UseNumber()
		var doc any
		if dec.Decode(&doc) == nil {
			cv.walk(name, cv.c.schemas[name], doc)
		}
	}
	if cv.c.lists[st.Op] {
		if _, q, ok := strings.Cut(ex.Path, "?"); ok {
			vals, _ := url.ParseQuery(q)
			doc := map[string]any{}
			for k, v := range vals {
				if len(v) > 0 {
					doc[k] = queryValue(v[0])
				}
			}
			cv.walk(queryName, cv.c.query, doc)
		}
	}
}

// queryValue reads a query parameter as the JSON value it spells: an
// integer as a number, anything else as a string.
func queryValue(s string) any {
	if s != "" && strings.Trim(s, "-0123456789") == "" && !bytes.ContainsRune([]byte(s[1:]), '-') {
		return json.Number(s)
	}
	return s
}

// walk records the leaves of s that doc sends and the boundaries their values reach.
func (cv *coverage) walk(schema string, s *shape, doc any) {
	if s == nil {
		return
	}
	if s.Path != "" && s.isLeaf() {
		if cv.leaves[schema] == nil {
			cv.leaves[schema], cv.bounds[schema] = map[string]bool{}, map[string]bool{}
		}
		cv.leaves[schema][s.Path] = true
		for _, h := range s.hits(doc) {
			cv.bounds[schema][s.Path+": "+h] = true
		}
	}
	switch x := doc.(type) {
	case map[string]any:
		for _, p := range s.Props {
			if v, ok := x[p.Name]; ok {
				cv.walk(schema, p, v)
			}
		}
		if s.Values != nil {
			for _, v := range x {
				cv.walk(schema, s.Values, v)
			}
		}
	case []any:
		if s.Items != nil {
			for _, v := range x {
				cv.walk(schema, s.Items, v)
			}
		}
	}
}

// rows renders the tables: the operations requested and those reach
// selects (with zeros when never requested), in the order of ops; every
// request schema in name order and the list query last.
func (cv *coverage) rows(ops []validate.Operation, reach func(validate.Operation) bool) ([]report.ExploredOp, []report.ExploredSchema) {
	cv.mu.Lock()
	defer cv.mu.Unlock()
	var outOps []report.ExploredOp
	for _, op := range ops {
		if c := cv.ops[op.ID]; c != nil {
			outOps = append(outOps, *c)
		} else if reach(op) {
			outOps = append(outOps, report.ExploredOp{ID: op.ID})
		}
	}
	var out []report.ExploredSchema
	row := func(name string, s *shape) {
		r := report.ExploredSchema{Schema: name}
		for _, l := range s.leaves() {
			r.Leaves++
			if cv.leaves[name][l.Path] {
				r.LeavesSent++
			} else {
				r.Missed = append(r.Missed, l.Path+": never sent")
			}
			for _, b := range l.boundaries() {
				r.Boundaries++
				if cv.bounds[name][l.Path+": "+b] {
					r.BoundariesReached++
				} else if cv.leaves[name][l.Path] {
					r.Missed = append(r.Missed, l.Path+": "+b)
				}
			}
		}
		sort.Strings(r.Missed)
		out = append(out, r)
	}
	for _, name := range cv.c.names {
		row(name, cv.c.schemas[name])
	}
	row(queryName, cv.c.query)
	return outOps, out
}

// percent renders n/of as a percentage with one decimal.
func percent(n, of int) string {
	if of == 0 {
		return "100%"
	}
	return strconv.FormatFloat(100*float64(n)/float64(of), 'f', 1, 64) + "%"
}

// coverageRows renders the coverage tables in a stable order: every
// operation the explorer can reach, in the operations table's order.
func (r *runner) coverageRows() ([]report.ExploredOp, []report.ExploredSchema) {
	return r.coverage.rows(r.v.Operations(), func(op validate.Operation) bool {
		return r.profile.Offers(op) && slices.ContainsFunc(r.actions, func(a action) bool { return a.op == op.ID })
	})
}
