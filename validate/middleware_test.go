package validate_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/conform-kit/conform/validate"
)

// envelopeBody is the part of the error envelope the tests read.
type envelopeBody struct {
	Total    int `json:"total"`
	Embedded struct {
		Errors []struct {
			Code    string `json:"code"`
			Message string `json:"message"`
			Field   string `json:"field"`
			Logref  struct {
				Logref string `json:"logref"`
			} `json:"logref"`
			Links map[string]struct {
				Href string `json:"href"`
			} `json:"_links"`
		} `json:"errors"`
	} `json:"_embedded"`
}

// recordingHandler answers 299 and records the body it could read.
type recordingHandler struct {
	called    bool
	body      string
	operation string // the operation id the middleware put in the context
}

func (h *recordingHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.called = true
	b, _ := io.ReadAll(r.Body)
	h.body = string(b)
	if op, ok := validate.OperationFrom(r.Context()); ok {
		h.operation = op.ID
	}
	w.WriteHeader(299)
}

const validSale = `{"source":"PI0123456789abcdefghijkl","merchant":"MU0123456789abcdefghijkl","amount":100,"currency":"USD"}`

func TestMiddleware(t *testing.T) {
	v := newValidator(t)
	tests := []struct {
		name        string
		method      string
		path        string
		contentType string
		body        string
		wantStatus  int
		wantCode    string
		wantFields  []string
		wantPassed  bool
	}{
		{"valid sale passes", "POST", "/transfers", "application/vnd.json+api", validSale, 299, "", nil, true},
		{"each JSON type passes: json", "POST", "/transfers", "application/json; charset=utf-8", validSale, 299, "", nil, true},
		{"each JSON type passes: vnd.api+json", "POST", "/transfers", "application/vnd.api+json", validSale, 299, "", nil, true},
		{"each JSON type passes: hal+json", "POST", "/transfers", "application/hal+json", validSale, 299, "", nil, true},
		{"unknown route passes through", "POST", "/nope", "text/plain", "not json", 299, "", nil, true},
		{"wrong method passes through", "DELETE", "/transfers", "text/plain", "x", 299, "", nil, true},
		{"no JSON body operation passes", "GET", "/transfers/TR0123456789abcdefghijkl", "", "", 299, "", nil, true},
		{"multipart operation passes", "POST", "/disputes/DI0123456789abcdefghijkl/evidence", "multipart/form-data; boundary=x", "--x--", 299, "", nil, true},
		{"binary operation passes", "PUT", "/external_links/EL_0123456789abcdefghijkl/upload", "application/pdf", "%PDF", 299, "", nil, true},
		{"unsupported content type", "POST", "/transfers", "text/plain", validSale, 406, "NOT_ACCEPTABLE", nil, false},
		{"missing content type", "POST", "/transfers", "", validSale, 406, "NOT_ACCEPTABLE", nil, false},
		{"not JSON", "POST", "/transfers", "application/json", `{"amount":`, 400, "BAD_REQUEST", nil, false},
		{"array body", "POST", "/transfers", "application/json", `[1]`, 400, "BAD_REQUEST", nil, false},
		{"too large", "POST", "/transfers", "application/json", `{"tags":{"a":"` + strings.Repeat("x", validate.MaxBodyBytes) + `"}}`, 413, "REQUEST_TOO_LARGE", nil, false},
		{"every violation listed", "POST", "/transfers", "application/json",
			`{"amount":-1,"currency":"usd","extra":true,"merchant":"MU0123456789abcdefghijkl"}`, 422, "INVALID_FIELD",
			[]string{"/amount", "/currency", "/extra", "/source"}, false},
		{"capture violations", "PUT", "/authorizations/AU0123456789abcdefghijkl", "application/json", `{"fee":1}`, 422, "INVALID_FIELD",
			[]string{"/capture_amount"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			next := &recordingHandler{}
			srv := httptest.NewServer(validate.Middleware(v)(next))
			defer srv.Close()
			req, err := http.NewRequest(tt.method, srv.URL+tt.path, strings.NewReader(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			if tt.contentType != "" {
				req.Header.Set("Content-Type", tt.contentType)
			}
			req.Header.Set("X-Request-Id", "req-123")
			resp, err := srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tt.wantStatus {
				t.Fatalf("%s %s: status %d, want %d; body %s", tt.method, tt.path, resp.StatusCode, tt.wantStatus, body)
			}
			if next.called != tt.wantPassed {
				t.Errorf("next called = %v, want %v", next.called, tt.wantPassed)
			}
			if tt.wantPassed {
				if next.body != tt.body {
					t.Errorf("downstream body = %.60q, want %.60q", next.body, tt.body)
				}
				return
			}
			if ct := resp.Header.Get("Content-Type"); ct != "application/hal+json" {
				t.Errorf("Content-Type = %q, want application/hal+json", ct)
			}
			if err := v.Resource("error", body); err != nil {
				t.Errorf("error body does not match the error schema: %v\n%s", err, body)
			}
			var env envelopeBody
			if err := json.Unmarshal(body, &env); err != nil {
				t.Fatal(err)
			}
			if env.Total != len(env.Embedded.Errors) || env.Total == 0 {
				t.Errorf("total = %d with %d errors", env.Total, len(env.Embedded.Errors))
			}
			var fields []string
			for _, e := range env.Embedded.Errors {
				if e.Code != tt.wantCode {
					t.Errorf("code = %s, want %s", e.Code, tt.wantCode)
				}
				if e.Logref.Logref != "req-123" {
					t.Errorf("logref = %q, want the X-Request-Id req-123", e.Logref.Logref)
				}
				if want := srv.URL + tt.path; e.Links["self"].Href != want {
					t.Errorf("self href = %q, want %q", e.Links["self"].Href, want)
				}
				if e.Field != "" {
					fields = append(fields, e.Field)
				}
			}
			if tt.wantFields != nil && !slices.Equal(fields, tt.wantFields) {
				t.Errorf("fields = %v, want %v", fields, tt.wantFields)
			}
		})
	}
}

func TestWriteError(t *testing.T) {
	v := newValidator(t)
	tests := []struct {
		name       string
		err        error
		wantStatus int
		wantCode   string
	}{
		{"violations", validate.CheckFee(1, ptr(2)), 422, "INVALID_FIELD"},
		{"business rule", validate.CheckLevel23(false, true), 422, "UNPROCESSABLE_ENTITY"},
		{"wrapped violations", fmt.Errorf("creating sale: %w", validate.CheckFee(1, ptr(2))), 422, "INVALID_FIELD"},
		{"malformed", v.Validate("transfer_create", []byte("nope")), 400, "BAD_REQUEST"},
		{"anything else", errors.New("database password is hunter2"), 500, "INTERNAL_SERVER_ERROR"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			req := httptest.NewRequest("POST", "https://api.example.com/transfers?x=1", nil)
			validate.WriteError(rec, req, tt.err)
			if rec.Code != tt.wantStatus {
				t.Fatalf("status = %d, want %d", rec.Code, tt.wantStatus)
			}
			body := rec.Body.Bytes()
			if err := v.Resource("error", body); err != nil {
				t.Errorf("body does not match the error schema: %v\n%s", err, body)
			}
			if strings.Contains(string(body), "hunter2") {
				t.Errorf("500 body leaks the error detail: %s", body)
			}
			var env envelopeBody
			_ = json.Unmarshal(body, &env)
			if len(env.Embedded.Errors) != 1 || env.Embedded.Errors[0].Code != tt.wantCode {
				t.Fatalf("errors = %+v, want one %s", env.Embedded.Errors, tt.wantCode)
			}
			e := env.Embedded.Errors[0]
			if e.Logref.Logref == "" {
				t.Error("generated logref is empty")
			}
			if e.Links["source"].Href != "https://api.example.com/transfers?x=1" {
				t.Errorf("source href = %q", e.Links["source"].Href)
			}
			if tt.wantStatus == 422 && tt.wantCode == "INVALID_FIELD" && e.Field != "/fee" {
				t.Errorf("field = %q, want /fee", e.Field)
			}
		})
	}
}

func TestWriteEnvelopeFailedResource(t *testing.T) {
	v := newValidator(t)
	rec := httptest.NewRecorder()
	req := httptest.NewRequest("POST", "/authorizations", nil)
	validate.WriteEnvelope(rec, req, http.StatusPaymentRequired, validate.ErrorItem{Code: "DECLINED", Message: "declined", Resource: "AU0123456789abcdefghijkl"})
	if rec.Code != 402 {
		t.Fatalf("status %d", rec.Code)
	}
	if err := v.Resource("error", rec.Body.Bytes()); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(rec.Body.String(), `"failure_resource":"AU0123456789abcdefghijkl"`) {
		t.Errorf("body %s lacks failure_resource", rec.Body)
	}
	if !strings.Contains(rec.Body.String(), `"href":"http://example.com/authorizations"`) {
		t.Errorf("body %s lacks the absolute self href", rec.Body)
	}
}
