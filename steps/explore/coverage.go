package explore

import (
	"bytes"
	"encoding/json"
	"net/http"
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
	// unknown counts each operation's answers of an unknown route (404, 405).
	unknown map[string]int
}

func newCoverage(c *contract) *coverage {
	return &coverage{c: c, ops: map[string]*report.ExploredOp{},
		leaves: map[string]map[string]bool{}, bounds: map[string]map[string]bool{}, unknown: map[string]int{}}
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
		if status == http.StatusNotFound || status == http.StatusMethodNotAllowed {
			cv.unknown[st.Op]++
		}
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

// Why an operation is not offered, as the coverage tables say it.
const (
	notOfferedDeclared = "the profile does not list it among the extensions the target offers"
	notOfferedAnswered = "every request was answered 404 or 405, as an unknown route"
)

// rows renders the tables: the operations requested and the offered ones
// reach selects (with zeros when never requested), in the order of ops; every
// request schema in name order and the list query last. An operation the
// target does not offer is listed with why: declared absent (offered
// false; listed when reach selects it), or an extension whose every request was answered as an unknown
// route. A schema no offered operation takes is marked not offered. Rows
// marked not offered count in no total.
func (cv *coverage) rows(ops []validate.Operation, offered, reach func(validate.Operation) bool) ([]report.ExploredOp, []report.ExploredSchema) {
	cv.mu.Lock()
	defer cv.mu.Unlock()
	var outOps []report.ExploredOp
	absent := map[string]bool{}
	for _, op := range ops {
		c := cv.ops[op.ID]
		switch {
		case !offered(op):
			absent[op.ID] = true
			if c == nil && !reach(op) {
				continue
			}
			row := report.ExploredOp{ID: op.ID, NotOffered: notOfferedDeclared}
			if c != nil {
				row.Accepted, row.Refused, row.Errored = c.Accepted, c.Refused, c.Errored
			}
			outOps = append(outOps, row)
		case c != nil:
			row := *c
			if op.Assumed == "extensions" && row.Accepted == 0 && row.Errored == 0 && row.Refused > 0 && cv.unknown[op.ID] == row.Refused {
				absent[op.ID] = true
				row.NotOffered = notOfferedAnswered
			}
			outOps = append(outOps, row)
		case reach(op):
			outOps = append(outOps, report.ExploredOp{ID: op.ID})
		}
	}
	// A schema is offered when an operation the target offers takes it.
	offers := map[string]bool{}
	for id, name := range cv.c.ops {
		if name != "" && !absent[id] {
			offers[name] = true
		}
	}
	for id := range cv.c.lists {
		if !absent[id] {
			offers[queryName] = true
		}
	}
	var out []report.ExploredSchema
	row := func(name string, s *shape) {
		r := report.ExploredSchema{Schema: name, NotOffered: !offers[name]}
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
	acts := func(op validate.Operation) bool {
		return slices.ContainsFunc(r.actions, func(a action) bool { return a.op == op.ID })
	}
	return r.coverage.rows(r.v.Operations(), r.profile.Offers, func(op validate.Operation) bool {
		if !r.profile.Offers(op) {
			return r.selected(op.ID) // listed as not offered
		}
		return acts(op)
	})
}
