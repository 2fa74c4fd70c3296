package faults

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFaultNamesUniqueAcrossCatalogs: ByName serves the first fault of a
// name, so a name both catalogs hold would serve the suite's fault where
// an explore test asks for the explorer's.
func TestFaultNamesUniqueAcrossCatalogs(t *testing.T) {
	seen := map[string]bool{}
	for _, f := range append(Catalog(), ExploreCatalog()...) {
		assert.False(t, seen[f.Name], "fault name %s is in both catalogs", f.Name)
		seen[f.Name] = true
	}
}

// TestValueFaultsCrashOnlyOnTheirValues: each value fault answers a bare
// 500 to its value class and passes everything else to the server.
func TestValueFaultsCrashOnlyOnTheirValues(t *testing.T) {
	byName := map[string]Fault{}
	for _, f := range exploreValueFaults() {
		byName[f.Name] = f
	}
	item := func(desc string) string {
		return `{"source":"PIx","merchant":"MUx","amount":1,"currency":"USD","additional_purchase_data":{"item_data":[{"item_description":"` + desc + `"}]}}`
	}
	date := func(day, month int) string {
		return `{"source":"PIx","merchant":"MUx","amount":1,"currency":"USD","additional_purchase_data":{"order_date":{"day":` + strconv.Itoa(day) + `,"month":` + strconv.Itoa(month) + `,"year":2030}}}`
	}
	tests := []struct {
		fault, method, path, body string
		crash                     bool
	}{
		{"crash-on-apostrophe-in-item-description", "POST", "/authorizations", item("O'Brien"), true},
		{"crash-on-apostrophe-in-item-description", "POST", "/transfers", item("O'Brien"), true},
		{"crash-on-apostrophe-in-item-description", "POST", "/authorizations", item("OBrien"), false},
		{"crash-on-impossible-order-date", "POST", "/authorizations", date(30, 2), true},
		{"crash-on-impossible-order-date", "POST", "/authorizations", date(29, 2), false},
		{"crash-on-impossible-order-date", "POST", "/authorizations", date(31, 3), false},
		{"crash-on-list-limit-zero", "GET", "/webhooks?limit=0", "", true},
		{"crash-on-list-limit-zero", "GET", "/webhooks?limit=1", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.fault+" "+tt.path+" "+tt.body, func(t *testing.T) {
			f, ok := byName[tt.fault]
			require.True(t, ok)
			passed := false
			h := f.wrap(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				passed = true
				w.WriteHeader(http.StatusTeapot)
			}), faultDeps{})
			req := httptest.NewRequest(tt.method, tt.path, strings.NewReader(tt.body))
			if tt.body != "" {
				req.Header.Set("Content-Type", "application/json")
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if tt.crash {
				assert.Equal(t, http.StatusInternalServerError, rec.Code)
				assert.False(t, passed, "the server saw the request")
			} else {
				assert.Equal(t, http.StatusTeapot, rec.Code)
			}
		})
	}
}
