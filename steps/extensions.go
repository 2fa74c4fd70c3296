package steps

import (
	"encoding/json"
	"net/http"
	"slices"
	"strconv"

	"github.com/conform-kit/conform/validate/judging"
)

// keyExtensions is the profile key of the operations the spec does not name.
const keyExtensions = "extensions"

// isExtension reports whether the exchange called an operation the spec
// does not name (operations.json rows assumed under extensions).
func isExtension(ex *exchange) bool {
	return ex.hasOp && ex.op.Assumed == keyExtensions
}

// notOffered reports whether an extension's answer says the target does not
// offer it: 405 (a path it knows, another method), or 404 where the step
// did not ask for a not-found refusal (a route it does not know).
func notOffered(ex *exchange, kind string) bool {
	if !isExtension(ex) {
		return false
	}
	return ex.status == http.StatusMethodNotAllowed || ex.status == http.StatusNotFound && kind != judging.RefusalNotFound
}

// notOfferedCheck is the assumed check of an extension the target answered
// as an unknown route: a WARN under extensions whose observed profile
// declares the extensions offered without it.
func (s *scenario) notOfferedCheck(ex *exchange, want string) Check {
	c := Check{Basis: judging.Basis{Assumed: keyExtensions, Clauses: slices.Clone(s.clauses)}, Key: keyExtensions,
		Expected: ex.op.ID + " offered", Observed: strconv.Itoa(ex.status),
		Err: s.failf(ex, "status %d on %s, an operation the spec does not name, want %s: the target does not offer it", ex.status, ex.op.ID, want)}
	offered := without(s.suite.profile.Extensions, func(id string) bool { return id == ex.op.ID })
	c.Patch, _ = json.Marshal(map[string][]string{keyExtensions: offered})
	return c
}

// offers reports whether the declared profile offers the operation with
// the id (every operation the spec names does).
func (s *scenario) offers(opID string) bool {
	op, ok := s.suite.v.Operation(opID)
	return !ok || s.suite.profile.Offers(op)
}

// errNotOffered skips a step that needs an extension the profile declares
// the target does not offer.
func errNotOffered(opID string) error {
	return &skipDeclared{key: keyExtensions, value: "without " + opID}
}

// intersectLists merges two observed lists (extensions offered, media types
// taken): a member stays only if no observation found it missing.
func intersectLists(a, b json.RawMessage) json.RawMessage {
	var la, lb []string
	if json.Unmarshal(a, &la) != nil || json.Unmarshal(b, &lb) != nil {
		return b
	}
	out := slices.DeleteFunc(la, func(id string) bool { return !slices.Contains(lb, id) })
	raw, err := json.Marshal(nonNil(out))
	if err != nil {
		return b
	}
	return raw
}
