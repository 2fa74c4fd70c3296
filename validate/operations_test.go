package validate_test

import (
	"errors"
	"maps"
	"testing"

	"github.com/conform-kit/conform/validate"
)

func TestLookup(t *testing.T) {
	v := newValidator(t)
	tests := []struct {
		method, path string
		wantID       string
		wantParams   map[string]string
		wantErr      error
	}{
		{"POST", "/authorizations", "authorizations.create", map[string]string{}, nil},
		{"PUT", "/authorizations/AU1", "authorizations.capture", map[string]string{"id": "AU1"}, nil},
		{"GET", "/authorizations/AU1", "authorizations.get", map[string]string{"id": "AU1"}, nil},
		{"HEAD", "/authorizations/AU1", "authorizations.get", map[string]string{"id": "AU1"}, nil},
		{"PATCH", "/subscription/subscription_schedules/S1/subscription_amounts/A1", "subscription_amounts.update",
			map[string]string{"schedule_id": "S1", "id": "A1"}, nil},
		{"GET", "/disputes/D1/evidence/E1", "dispute_evidence.get", map[string]string{"dispute_id": "D1", "id": "E1"}, nil},
		{"POST", "/disputes/D1/evidence", "dispute_evidence.create", map[string]string{"id": "D1"}, nil},
		{"GET", "/files/F1", "files.get", map[string]string{"id": "F1"}, nil},  // also_methods
		{"POST", "/files/F1", "files.get", map[string]string{"id": "F1"}, nil}, // the table's method
		{"GET", "/files/F1/download", "files.download", map[string]string{"id": "F1"}, nil},
		{"PUT", "/external_links/E1/upload", "files.external_upload", map[string]string{"id": "E1"}, nil},
		{"DELETE", "/subscription/subscription_enrollments/X", "subscription_enrollments.delete", map[string]string{"id": "X"}, nil},
		{"DELETE", "/authorizations/AU1", "", nil, validate.ErrMethodNotAllowed},
		{"POST", "/files/F1/external_links/E1", "", nil, validate.ErrMethodNotAllowed},
		{"GET", "/nope", "", nil, validate.ErrNoRoute},
		{"GET", "/authorizations/", "", nil, validate.ErrNoRoute},
		{"GET", "/authorizations/AU1/extra", "", nil, validate.ErrNoRoute},
		{"GET", "", "", nil, validate.ErrNoRoute},
	}
	for _, tt := range tests {
		op, params, err := v.Lookup(tt.method, tt.path)
		if tt.wantErr != nil {
			if !errors.Is(err, tt.wantErr) {
				t.Errorf("Lookup(%s %s) error = %v, want %v", tt.method, tt.path, err, tt.wantErr)
			}
			continue
		}
		if err != nil || op.ID != tt.wantID || !maps.Equal(params, tt.wantParams) {
			t.Errorf("Lookup(%s %s) = %s, %v, %v; want %s, %v", tt.method, tt.path, op.ID, params, err, tt.wantID, tt.wantParams)
		}
	}
}

// TestLookupFindsEveryOperation resolves each operation's own path.
func TestLookupFindsEveryOperation(t *testing.T) {
	v := newValidator(t)
	for _, op := range v.Operations() {
		got, _, err := v.Lookup(op.Method, op.Path)
		if err != nil || got.ID != op.ID {
			t.Errorf("Lookup(%s %s) = %s, %v; want %s", op.Method, op.Path, got.ID, err, op.ID)
		}
	}
}
