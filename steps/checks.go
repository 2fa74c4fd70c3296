package steps

import (
	"encoding/json"
	"fmt"
	"net/url"

	"github.com/cucumber/godog"

	"github.com/conform-kit/conform/validate"
)

// assumedSchemas are response schemas whose shape the spec does not show
// (DESIGN.md decisions): violations of them only warn.
func assumedSchema(name string) bool {
	switch name {
	case "file", "file_list", "external_link", "external_link_list", "subscription_schedule", "balance_transfer_list":
		return true
	}
	return false
}

// assumedOperation reports operations the spec does not name with this method
// and path: extensions, and the webhook create/update paths.
func (ex *exchange) assumedOperation() bool {
	return !ex.hasOp || ex.op.Source != "spec" || ex.op.ID == "webhooks.create" || ex.op.ID == "webhooks.update"
}

// checkSuccess: 2xx (normative; assumed for operations the spec does not
// place), the table's exact status (assumed), and the response schema.
func (s *scenario) checkSuccess(ex *exchange) error {
	if ex.status < 200 || ex.status > 299 {
		err := s.failf(ex, "status %d, want 2xx", ex.status)
		if !ex.assumedOperation() && !s.stepAssumed {
			return err
		}
		// The rest of the scenario depends on an operation the spec does not
		// place: warn and stop rather than fail on its consequences.
		s.warnings = append(s.warnings, "assumed: "+err.Error())
		return fmt.Errorf("%w: the rest of the scenario depends on an assumed operation", godog.ErrSkip)
	}
	if ex.hasOp && ex.status != ex.op.Status {
		if err := s.judge(true, s.failf(ex, "status %d, want %d (%s)", ex.status, ex.op.Status, ex.op.ID)); err != nil {
			return err
		}
	}
	return s.checkSchema(ex)
}

// checkSchema validates the body against the operation's response schema.
// Each response is judged once: send checks every 2xx response.
func (s *scenario) checkSchema(ex *exchange) error {
	if !ex.hasOp || ex.op.Response == "" || ex.schemaJudged {
		return nil
	}
	ex.schemaJudged = true
	if err := s.suite.v.Validate(ex.op.Response, ex.body); err != nil {
		assumed := assumedSchema(ex.op.Response) || ex.assumedOperation()
		return s.judge(assumed, s.failf(ex, "response does not match schema %q: %s", ex.op.Response, violations(err)))
	}
	return nil
}

// checkRefused: any 4xx with a well-formed error envelope (normative, §7);
// the exact status and error code are assumed (DESIGN.md's table).
func (s *scenario) checkRefused(ex *exchange, status int, code string) error {
	if ex.status < 400 || ex.status > 499 {
		return s.fail(ex, "status %d, want a refusal (4xx; assumed %d %s)", ex.status, status, code)
	}
	if err := s.checkEnvelope(ex); err != nil {
		return err
	}
	if status != 0 && ex.status != status {
		if err := s.judge(true, s.failf(ex, "status %d, want %d", ex.status, status)); err != nil {
			return err
		}
	}
	if code != "" && !containsString(errorField(ex.doc, "code"), code) {
		return s.judge(true, s.failf(ex, "error codes %v, want %s", errorField(ex.doc, "code"), code))
	}
	return nil
}

// errorSchema is the resource schema of the §7 error envelope.
const errorSchema = "error"

// checkEnvelope validates the §7 error envelope.
func (s *scenario) checkEnvelope(ex *exchange) error {
	if err := s.suite.v.Resource(errorSchema, ex.body); err != nil {
		return s.fail(ex, "error body is not the §7 envelope: %s", violations(err))
	}
	items, _ := lookup(ex.doc, "_embedded.errors")
	list, _ := items.([]any)
	total, _ := lookup(ex.doc, "total")
	if n, ok := asInt(total); !ok || n != int64(len(list)) || n < 1 {
		return s.judge(true, s.failf(ex, "envelope total %v, want the number of errors %d (≥1)", total, len(list)))
	}
	return nil
}

// errorField collects one field of every envelope item.
func errorField(doc any, field string) []string {
	items, _ := lookup(doc, "_embedded.errors")
	list, _ := items.([]any)
	var out []string
	for _, it := range list {
		if m, ok := it.(map[string]any); ok {
			if v, ok := m[field].(string); ok {
				out = append(out, v)
			}
		}
	}
	return out
}

func containsString(list []string, want string) bool {
	for _, v := range list {
		if v == want {
			return true
		}
	}
	return false
}

// lookup walks a dotted path ("_links.self.href", "items.0.id") through a document.
func lookup(doc any, path string) (any, bool) { return validate.FieldAt(doc, path) }

// asInt reads a JSON number (json.Number or float64) as an integer.
func asInt(v any) (int64, bool) {
	switch n := v.(type) {
	case json.Number:
		i, err := n.Int64()
		return i, err == nil
	case float64:
		return int64(n), n == float64(int64(n))
	case int64:
		return n, true
	case int:
		return int64(n), true
	}
	return 0, false
}

// render shows a JSON value compactly in messages.
func render(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// isAbsoluteURL reports an http(s) URL with a host.
func isAbsoluteURL(v any) bool {
	str, ok := v.(string)
	if !ok {
		return false
	}
	u, err := url.Parse(str)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}
