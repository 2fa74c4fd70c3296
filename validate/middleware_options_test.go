package validate_test

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/conform-kit/conform/validate"
)

const (
	authorizationID = "AU0123456789abcdefghijkl"
	transferPath    = "/transfers/TR0123456789abcdefghijkl"
)

// exchange sends one request through h and returns the status and body.
func exchange(t *testing.T, h http.Handler, method, target, body string, header map[string]string) (int, []byte, http.Header) {
	t.Helper()
	req := httptest.NewRequest(method, target, strings.NewReader(body))
	for k, v := range header {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Code, rec.Body.Bytes(), rec.Header()
}

// envelopeOf decodes an error envelope and returns its codes and fields.
func envelopeOf(t *testing.T, body []byte) (codes, fields, messages []string) {
	t.Helper()
	var env envelopeBody
	if err := json.Unmarshal(body, &env); err != nil {
		t.Fatalf("body is not an envelope: %v\n%s", err, body)
	}
	for _, e := range env.Embedded.Errors {
		codes = append(codes, e.Code)
		if e.Field != "" {
			fields = append(fields, e.Field)
		}
		messages = append(messages, e.Message)
	}
	return codes, fields, messages
}

// TestMiddlewareRequestChecks covers the checks beyond the body, with the
// contract mounted under a base path.
func TestMiddlewareRequestChecks(t *testing.T) {
	v := newValidator(t)
	json := map[string]string{"Content-Type": "application/json"}
	tests := []struct {
		name       string
		opts       []validate.Option
		method     string
		target     string
		body       string
		header     map[string]string
		wantStatus int
		wantCode   string
		wantFields []string
		wantOp     string // operation id seen by the handler, when it is reached
	}{
		{"base path: invalid body is refused", []validate.Option{validate.WithBasePath("/api/v1")}, "POST", "/api/v1/transfers",
			`{"amount":-1}`, json, 422, "INVALID_FIELD", []string{"/amount", "/currency", "/merchant", "/source"}, ""},
		{"base path: valid body reaches the handler", []validate.Option{validate.WithBasePath("/api/v1/")}, "POST", "/api/v1/transfers",
			validSale, json, 299, "", nil, "transfers.create"},
		{"base path: outside it passes", []validate.Option{validate.WithBasePath("/api/v1"), validate.RejectUnknownRoutes()}, "GET", "/healthz",
			"", nil, 299, "", nil, ""},
		{"base path: a longer prefix is outside", []validate.Option{validate.WithBasePath("/api/v1"), validate.RejectUnknownRoutes()}, "GET", "/api/v10/transfers",
			"", nil, 299, "", nil, ""},
		{"unknown route passes by default", nil, "POST", "/api/v1/transfers", `{"amount":-1}`, json, 299, "", nil, ""},
		{"unknown route is loud when asked", []validate.Option{validate.RejectUnknownRoutes()}, "POST", "/nope", "", nil, 404, "NOT_FOUND", nil, ""},
		{"known path, wrong method is 405 when asked", []validate.Option{validate.RejectUnknownRoutes()}, "DELETE", "/transfers", "", nil, 405, "METHOD_NOT_ALLOWED", nil, ""},
		{"path id that cannot exist", nil, "GET", "/authorizations/notanid", "", nil, 404, "NOT_FOUND", nil, ""},
		{"parent path id that cannot exist", nil, "GET", "/disputes/nope/evidence", "", nil, 404, "NOT_FOUND", nil, ""},
		{"valid path id", nil, "GET", "/authorizations/" + authorizationID, "", nil, 299, "", nil, "authorizations.get"},
		{"list query out of bounds", nil, "GET", "/disputes?limit=1000&sort=bogus&offset=-1", "", nil, 422, "INVALID_FIELD",
			[]string{"limit", "offset", "sort"}, ""},
		{"list query in bounds", nil, "GET", "/disputes?limit=100&offset=0&sort=created_at,asc&sort=id", "", nil, 299, "", nil, "disputes.list"},
		{"sort direction bogus", nil, "GET", "/webhooks?sort=id,sideways", "", nil, 422, "INVALID_FIELD", []string{"sort"}, ""},
		{"filters pass", nil, "GET", "/webhooks?enabled=true", "", nil, 299, "", nil, "webhooks.list"},
		{"Accept without JSON", nil, "GET", transferPath, "", map[string]string{"Accept": "text/html"}, 406, "NOT_ACCEPTABLE", nil, ""},
		{"Accept refusing JSON with q=0", nil, "GET", transferPath, "", map[string]string{"Accept": "application/json;q=0"}, 406, "NOT_ACCEPTABLE", nil, ""},
		{"Accept with a wildcard", nil, "GET", transferPath, "", map[string]string{"Accept": "text/html, */*;q=0.1"}, 299, "", nil, "transfers.get"},
		{"multipart operation needs multipart", nil, "POST", "/disputes/DI0123456789abcdefghijkl/evidence", "{}", json, 406, "NOT_ACCEPTABLE", nil, ""},
		{"query and body violations together", nil, "POST", "/transfers?limit=0", `{"amount":-1,"source":"PI0123456789abcdefghijkl","merchant":"MU0123456789abcdefghijkl","currency":"USD"}`,
			json, 422, "INVALID_FIELD", []string{"/amount"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			next := &recordingHandler{}
			status, body, _ := exchange(t, validate.Middleware(v, tt.opts...)(next), tt.method, tt.target, tt.body, tt.header)
			if status != tt.wantStatus {
				t.Fatalf("status %d, want %d; body %s", status, tt.wantStatus, body)
			}
			if next.operation != tt.wantOp {
				t.Errorf("OperationFrom in the handler = %q, want %q", next.operation, tt.wantOp)
			}
			if tt.wantCode == "" {
				if !next.called {
					t.Error("the handler was not called")
				}
				return
			}
			if next.called {
				t.Error("the handler was called for a refused request")
			}
			if err := v.Resource("error", body); err != nil {
				t.Errorf("refusal is not an error envelope: %v", err)
			}
			codes, fields, messages := envelopeOf(t, body)
			for _, c := range codes {
				if c != tt.wantCode {
					t.Errorf("code %s, want %s", c, tt.wantCode)
				}
			}
			if tt.wantFields != nil && !slices.Equal(fields, tt.wantFields) {
				t.Errorf("fields %v, want %v", fields, tt.wantFields)
			}
			for _, m := range messages {
				if m == "" || strings.HasPrefix(m, "validate:") {
					t.Errorf("public message %q is empty or carries a Go prefix", m)
				}
			}
		})
	}
}

func TestMiddlewareSkipperAndRenderer(t *testing.T) {
	v := newValidator(t)
	var rendered *validate.Error
	render := func(w http.ResponseWriter, r *http.Request, err error) {
		if !errors.As(err, &rendered) {
			t.Errorf("renderer got %T, want *validate.Error", err)
		}
		w.WriteHeader(rendered.Status())
		_, _ = io.WriteString(w, "custom")
	}
	skipAdmin := func(r *http.Request) bool { return r.Header.Get("X-Admin") == "1" }
	mw := validate.Middleware(v, validate.WithErrorRenderer(render), validate.WithSkipper(skipAdmin))

	next := &recordingHandler{}
	status, body, _ := exchange(t, mw(next), "POST", "/transfers", `{"amount":-1}`, map[string]string{"Content-Type": "application/json"})
	if status != 422 || string(body) != "custom" || next.called {
		t.Fatalf("renderer: status %d body %q called %v, want 422 custom false", status, body, next.called)
	}
	if rendered.Where != validate.WhereRequest || rendered.Operation != "transfers.create" || rendered.Code != validate.CodeInvalidField {
		t.Errorf("rendered error = %+v, want a request error of transfers.create", rendered)
	}

	next = &recordingHandler{}
	status, _, _ = exchange(t, mw(next), "POST", "/transfers", `{"amount":-1}`, map[string]string{"X-Admin": "1"})
	if status != 299 || !next.called || next.operation != "" {
		t.Errorf("skipper: status %d called %v op %q, want 299 true and no operation", status, next.called, next.operation)
	}
}

func TestMiddlewareResponseValidation(t *testing.T) {
	v := newValidator(t)
	tests := []struct {
		name      string
		status    int
		ctype     string
		body      string
		wantRules []string // rules reported, nil when the response is valid
	}{
		{"bad transfer body", 200, "application/hal+json", `{"id":"nope"}`, []string{"required", "pattern"}},
		{"error envelope accepted on 404", 404, "application/hal+json", validErrorBody, nil},
		{"bare 404 body", 404, "text/plain", `not found`, []string{"content_type", "json"}},
		{"5xx not judged", 503, "text/plain", `down`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var reported *validate.Error
			mw := validate.Middleware(v, validate.WithResponseValidation(func(r *http.Request, err error) {
				if !errors.As(err, &reported) {
					t.Errorf("report got %v, want *validate.Error", err)
				}
			}))
			h := mw(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", tt.ctype)
				w.WriteHeader(tt.status)
				_, _ = io.WriteString(w, tt.body)
			}))
			status, body, header := exchange(t, h, "GET", transferPath, "", nil)
			if status != tt.status || string(body) != tt.body || header.Get("Content-Type") != tt.ctype {
				t.Errorf("response changed: %d %q %q", status, header.Get("Content-Type"), body)
			}
			if tt.wantRules == nil {
				if reported != nil {
					t.Errorf("reported %v for a valid response", reported)
				}
				return
			}
			if reported == nil {
				t.Fatal("nothing reported")
			}
			if reported.Where != validate.WhereResponse || reported.Operation != "transfers.get" {
				t.Errorf("reported %+v, want a response error of transfers.get", reported)
			}
			for _, rule := range tt.wantRules {
				if !slices.ContainsFunc(reported.Violations, func(v validate.Violation) bool { return v.Rule == rule }) {
					t.Errorf("no %s violation in %v", rule, reported.Violations)
				}
			}
		})
	}
}

const validErrorBody = `{"total":1,"_embedded":{"errors":[{"code":"NOT_FOUND","logref":{"logref":"x"},"message":"m",` +
	`"_links":{"self":{"href":"http://h/x"},"source":{"href":"http://h/x"}}}]}}`

func TestResponse(t *testing.T) {
	v := newValidator(t)
	hal := http.Header{"Content-Type": {"application/hal+json"}}
	tests := []struct {
		name      string
		op        string
		status    int
		header    http.Header
		body      string
		wantRules []string
	}{
		{"error envelope on 422", "transfers.create", 422, hal, validErrorBody, nil},
		{"not an envelope on 400", "transfers.create", 400, hal, `{"message":"bad"}`, []string{"required"}},
		{"201 expected, 200 given", "transfers.create", 200, hal, `{}`, []string{"status", "required"}},
		{"no content", "subscription_enrollments.delete", 204, http.Header{}, "", nil},
		{"redirect not judged", "transfers.get", 302, http.Header{}, "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := v.Response(tt.op, tt.status, tt.header, []byte(tt.body))
			if tt.wantRules == nil {
				if err != nil {
					t.Fatalf("Response = %v, want nil", err)
				}
				return
			}
			var verr *validate.Error
			if !errors.As(err, &verr) || verr.Code != validate.CodeInvalidResponse || verr.Where != validate.WhereResponse {
				t.Fatalf("Response = %v, want an INVALID_RESPONSE *Error", err)
			}
			for _, rule := range tt.wantRules {
				if !slices.ContainsFunc(verr.Violations, func(v validate.Violation) bool { return v.Rule == rule }) {
					t.Errorf("no %s violation in %v", rule, verr.Violations)
				}
			}
		})
	}
	if err := v.Response("nope", 200, hal, nil); !errors.Is(err, validate.ErrUnknownOperation) {
		t.Errorf("unknown operation: %v", err)
	}
}

func TestPublicMessages(t *testing.T) {
	v := newValidator(t)
	tests := []struct {
		name      string
		body      string
		wantCode  string
		wantInMsg string
	}{
		{"not JSON", `hello`, "BAD_REQUEST", "body is not valid JSON"},
		{"trailing data", validSale + `{}`, "BAD_REQUEST", "after the JSON value"},
		{"array", `[]`, "BAD_REQUEST", "must be a JSON object"},
		{"integer bound", `{"source":"PI0123456789abcdefghijkl","merchant":"MU0123456789abcdefghijkl","currency":"USD","amount":-1}`,
			"INVALID_FIELD", "must be >= 0 but found -1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, body, _ := exchange(t, validate.Middleware(v)(&recordingHandler{}), "POST", "/transfers", tt.body,
				map[string]string{"Content-Type": "application/json"})
			codes, _, messages := envelopeOf(t, body)
			if len(codes) != 1 || codes[0] != tt.wantCode {
				t.Fatalf("status %d codes %v, want one %s", status, codes, tt.wantCode)
			}
			if !strings.Contains(messages[0], tt.wantInMsg) || strings.Contains(messages[0], "validate:") || strings.Contains(messages[0], "e+") {
				t.Errorf("message %q, want it to contain %q with no Go prefix and no float bound", messages[0], tt.wantInMsg)
			}
		})
	}
	// A bound at the edge of int64 prints as an integer.
	err := v.Validate("transfer_create", []byte(`{"source":"PI0123456789abcdefghijkl","merchant":"MU0123456789abcdefghijkl","currency":"USD","amount":9223372036854775808}`))
	if err == nil || strings.Contains(err.Error(), "e+18") {
		t.Errorf("amount above int64: %v, want a violation with an integer bound", err)
	}
}

func TestWriteErrorNil(t *testing.T) {
	rec := httptest.NewRecorder()
	validate.WriteError(rec, httptest.NewRequest("GET", "/", nil), nil)
	if rec.Body.Len() != 0 || len(rec.Header()) != 0 {
		t.Errorf("WriteError(nil) wrote %d %v %q, want nothing", rec.Code, rec.Header(), rec.Body)
	}
}

func TestResourceRefusesRequestSchemas(t *testing.T) {
	v := newValidator(t)
	if err := v.Resource("transfer_create", []byte(validSale)); !errors.Is(err, validate.ErrUnknownSchema) {
		t.Errorf("Resource(transfer_create) = %v, want ErrUnknownSchema", err)
	}
	if err := v.Resource("error", []byte(validErrorBody)); err != nil {
		t.Errorf("Resource(error) = %v, want nil", err)
	}
}
