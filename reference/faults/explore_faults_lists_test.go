package faults

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// seen is what a fault passed on to the server: the query and the body.
type seen struct {
	passed bool
	query  url.Values
	body   map[string]any
}

// listServer answers a list read with one page whose links carry the
// query it was sent, as the reference does.
func listServer(s *seen) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.passed, s.query = true, r.URL.Query()
		raw, _ := io.ReadAll(r.Body)
		s.body = decodeFaultJSON(raw)
		if r.Method != http.MethodGet {
			w.WriteHeader(http.StatusCreated)
			_, _ = w.Write([]byte(`{"id":"TRx"}`))
			return
		}
		self := "http://h" + r.URL.Path + "?offset=" + s.query.Get("offset") + "&limit=" + s.query.Get("limit")
		for _, v := range s.query["sort"] {
			self += "&sort=" + v
		}
		off := s.query.Get("offset")
		_ = json.NewEncoder(w).Encode(map[string]any{"_embedded": map[string]any{"transfers": []any{}},
			"_links": map[string]any{"self": map[string]any{"href": self}}, "page": map[string]any{"offset": json.Number(off), "limit": 20, "count": 0}})
	})
}

// TestListAndPositionFaults: each fault of the lists and positions
// changes what it names and passes everything else to the server.
func TestListAndPositionFaults(t *testing.T) {
	byName := map[string]Fault{}
	for _, f := range append(exploreListFaults(), explorePositionFaults()...) {
		byName[f.Name] = f
	}
	items := func(q0, q1 any, code string) string {
		b, _ := json.Marshal(map[string]any{"source": "PIx", "merchant": "MUx", "amount": 100, "currency": "USD", "additional_purchase_data": map[string]any{
			"item_data": []any{map[string]any{"quantity": q0, "commodity_code": "123"}, map[string]any{"quantity": q1, "commodity_code": code}}}})
		return string(b)
	}
	tests := []struct {
		fault, method, target, body string
		status                      int    // the fault's answer, 0 when the server answers
		query                       string // the query the server saw ("" not asked)
		self                        string // the self link's query answered ("" not asked)
		quantity                    any    // the later item's quantity the server saw (nil not asked)
	}{
		{fault: "list-sort-by-amount-ignored", method: "GET", target: "/balance_transfers?offset=0&limit=20&sort=amount,desc",
			query: "limit=20&offset=0&sort=created_at%2Cdesc", self: "offset=0&limit=20&sort=amount,desc"},
		{fault: "list-sort-by-amount-ignored", method: "GET", target: "/balance_transfers?offset=0&limit=20&sort=updated_at,asc",
			query: "limit=20&offset=0&sort=updated_at%2Casc", self: "offset=0&limit=20&sort=updated_at,asc"},
		{fault: "list-self-link-keeps-first-sort", method: "GET", target: "/webhooks?offset=0&limit=20&sort=created_at,asc&sort=id,asc",
			self: "offset=0&limit=20&sort=created_at,asc"},
		{fault: "list-self-link-keeps-first-sort", method: "GET", target: "/webhooks?offset=0&limit=20&sort=created_at,asc",
			self: "offset=0&limit=20&sort=created_at,asc"},
		{fault: "list-secondary-sort-starts-one-late", method: "GET", target: "/files?offset=20&limit=20&sort=amount,asc&sort=id,desc",
			query: "limit=20&offset=21&sort=amount%2Casc&sort=id%2Cdesc", self: "offset=20&limit=20&sort=amount,asc&sort=id,desc"},
		{fault: "list-secondary-sort-starts-one-late", method: "GET", target: "/files?offset=20&limit=20&sort=amount,asc",
			query: "limit=20&offset=20&sort=amount%2Casc"},
		{fault: "item-quantity-checked-on-first-item-only", method: "POST", target: "/transfers", body: items(1, 0, "123"), quantity: json.Number("1")},
		{fault: "item-quantity-checked-on-first-item-only", method: "POST", target: "/authorizations", body: items(1, -1, "123"), quantity: json.Number("1")},
		{fault: "item-quantity-checked-on-first-item-only", method: "POST", target: "/transfers", body: items(0, 2, "123"), quantity: json.Number("2")},
		{fault: "commodity-code-column-of-6", method: "POST", target: "/transfers", body: items(1, 1, "1234567"), status: http.StatusUnprocessableEntity},
		{fault: "commodity-code-column-of-6", method: "PUT", target: "/authorizations/AUx", body: items(1, 1, "12345678901"), status: http.StatusUnprocessableEntity},
		{fault: "commodity-code-column-of-6", method: "POST", target: "/authorizations", body: items(1, 1, "12345")},
		{fault: "sale-fee-equal-to-amount-refused", method: "POST", target: "/transfers", body: `{"amount":100,"fee":100}`, status: http.StatusUnprocessableEntity},
		{fault: "sale-fee-equal-to-amount-refused", method: "POST", target: "/transfers", body: `{"amount":100,"fee":99}`},
		{fault: "sale-fee-equal-to-amount-refused", method: "PUT", target: "/authorizations/AUx", body: `{"capture_amount":100,"fee":100}`},
	}
	for _, tt := range tests {
		t.Run(tt.fault+" "+tt.method+" "+tt.target+" "+tt.body, func(t *testing.T) {
			f, ok := byName[tt.fault]
			require.True(t, ok)
			var s seen
			h := f.wrap(listServer(&s), faultDeps{})
			req := httptest.NewRequest(tt.method, tt.target, strings.NewReader(tt.body))
			if tt.body != "" {
				req.Header.Set("Content-Type", "application/json")
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if tt.status != 0 {
				assert.Equal(t, tt.status, rec.Code)
				assert.False(t, s.passed, "the server saw the request")
				assert.Contains(t, rec.Body.String(), map[string]string{"sale-fee-equal-to-amount-refused": "fee", "commodity-code-column-of-6": "commodity_code"}[tt.fault], "the refusal names the field")
				return
			}
			require.True(t, s.passed, "the server never saw the request")
			if tt.query != "" {
				assert.Equal(t, tt.query, s.query.Encode(), "the query the server saw")
			}
			if tt.self != "" {
				doc := decodeFaultJSON(rec.Body.Bytes())
				u, err := url.Parse(stringAt(objectAt(doc, "_links.self"), "href"))
				require.NoError(t, err)
				assert.Equal(t, tt.self, u.RawQuery, "the self link answered")
			}
			if tt.quantity != nil {
				items, _ := objectAt(s.body, "additional_purchase_data")["item_data"].([]any)
				require.Len(t, items, 2)
				assert.Equal(t, tt.quantity, items[1].(map[string]any)["quantity"])
			}
		})
	}
}
