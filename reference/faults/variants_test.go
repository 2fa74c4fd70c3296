package faults

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/conform-kit/conform/reference"
	"github.com/conform-kit/conform/validate"
)

// TestVariantCatalog checks the variant catalog is well formed: unique
// names found by VariantByName and listed by VariantNames in catalog order,
// and for each a choice, tags, a profile of at least one key, and parts to
// build.
func TestVariantCatalog(t *testing.T) {
	variants := Variants()
	require.NotEmpty(t, variants, "Variants()")
	names := VariantNames()
	require.Len(t, names, len(variants), "VariantNames()")
	seen := map[string]bool{}
	for i, v := range variants {
		assert.False(t, seen[v.Name], "variant name %s is not unique", v.Name)
		seen[v.Name] = true
		assert.Equal(t, v.Name, names[i], "VariantNames()[%d]", i)
		assert.NotEmpty(t, v.Choice, "variant %s: Choice", v.Name)
		assert.True(t, strings.HasPrefix(v.Tags, "@"), "variant %s: Tags %q, want a tag expression", v.Name, v.Tags)
		var profile map[string]json.RawMessage
		if assert.NoError(t, json.Unmarshal([]byte(v.Profile), &profile), "variant %s: Profile is not a JSON object", v.Name) {
			assert.NotEmpty(t, profile, "variant %s: Profile declares no key", v.Name)
		}
		if assert.NotNil(t, v.build, "variant %s: build", v.Name) {
			p := v.build()
			assert.True(t, p.wrap != nil || p.transport != nil || p.config != nil || p.seeded != nil,
				"variant %s: build makes no part, the variant would be the reference", v.Name)
		}
		got, ok := VariantByName(v.Name)
		if assert.True(t, ok, "VariantByName(%q) finds nothing", v.Name) {
			assert.Equal(t, v.Choice, got.Choice, "VariantByName(%q)", v.Name)
		}
	}
	_, ok := VariantByName("no-such-variant")
	assert.False(t, ok, "VariantByName of an unknown name")
}

// TestServeVariantsRefuses: no name, an unknown name and a name given twice
// are refused with ErrUnknown naming the variant, before any server starts.
func TestServeVariantsRefuses(t *testing.T) {
	tests := []struct {
		name  string
		names []string
		say   string
	}{
		{"none named", nil, "none named"},
		{"unknown alone", []string{"no-such-variant"}, `"no-such-variant"`},
		{"unknown after a known one", []string{"create-200", "no-such-variant"}, `"no-such-variant"`},
		{"named twice", []string{"create-200", "plain-json", "create-200"}, `"create-200": named twice`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv, h, _, err := ServeVariants(reference.Config{}, tc.names...)
			require.ErrorIs(t, err, ErrUnknown, "ServeVariants(%v)", tc.names)
			assert.ErrorContains(t, err, tc.say, "ServeVariants(%v)", tc.names)
			assert.Nil(t, srv, "ServeVariants(%v): server", tc.names)
			assert.Nil(t, h, "ServeVariants(%v): handler", tc.names)
		})
	}
}

// TestServeVariantsComposes: variants served together each keep their
// choice; here create-200 and capture-202 over one reference answer a card
// create 200 and a capture 202, where the reference answers 201 and 200.
func TestServeVariantsComposes(t *testing.T) {
	tests := []struct {
		name                string
		variants            []string
		createWant, capWant int
	}{
		{"the reference's statuses with plain-json", []string{"plain-json"}, http.StatusCreated, http.StatusOK},
		{"create-200", []string{"create-200"}, http.StatusOK, http.StatusOK},
		{"create-200 and capture-202", []string{"create-200", "capture-202"}, http.StatusOK, http.StatusAccepted},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv, h, seeded, err := ServeVariants(reference.Config{BaseURL: probeBase, Seed: 3}, tc.variants...)
			require.NoError(t, err, "ServeVariants(%v)", tc.variants)
			t.Cleanup(func() { _ = srv.Close() })
			call := func(method, path string, body map[string]any) (int, map[string]any) {
				t.Helper()
				enc, err := json.Marshal(body)
				require.NoError(t, err, "encode %s %s", method, path)
				req := httptest.NewRequest(method, probeBase+path, strings.NewReader(string(enc)))
				req.Header.Set("Content-Type", "application/vnd.json+api")
				req.SetBasicAuth(seeded.Credentials.Platform.Username, seeded.Credentials.Platform.Password)
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, req)
				return rec.Code, decodeFaultJSON(rec.Body.Bytes())
			}
			status, card := call("POST", "/payment_instruments", probeCardBody(seeded.Fixtures.BuyerIdentity))
			require.Equal(t, tc.createWant, status, "%v: card create status; body %v", tc.variants, card)
			status, auth := call("POST", "/authorizations", map[string]any{
				"source": card["id"], "merchant_identity": seeded.Fixtures.MerchantIdentity, "amount": 1000, "currency": "USD",
			})
			require.Equal(t, tc.createWant, status, "%v: authorization create status; body %v", tc.variants, auth)
			id, _ := auth["id"].(string)
			status, captured := call("PUT", "/authorizations/"+id, map[string]any{"capture_amount": 1000})
			assert.Equal(t, tc.capWant, status, "%v: capture status; body %v", tc.variants, captured)
		})
	}
}

// TestServeVariantsRefusesOversizedBodies: a JSON body over
// validate.MaxBodyBytes is refused 413 REQUEST_TOO_LARGE through the variants
// that read request bodies (ids-base58-21 leaves such a body unscanned), as
// by the reference.
func TestServeVariantsRefusesOversizedBodies(t *testing.T) {
	body := `{"tags":{"pad":"` + strings.Repeat("x", validate.MaxBodyBytes) + `"}}`
	for _, names := range [][]string{{"plain-json"}, {"ids-base58-21"}, {"cards-any-length", "no-reference-rules", "ids-base58-21"}} {
		t.Run(strings.Join(names, "+"), func(t *testing.T) {
			srv, h, seeded, err := ServeVariants(reference.Config{BaseURL: probeBase}, names...)
			require.NoError(t, err, "ServeVariants(%v)", names)
			t.Cleanup(func() { _ = srv.Close() })
			req := httptest.NewRequest("POST", probeBase+"/webhooks", strings.NewReader(body))
			req.Header.Set("Content-Type", "application/vnd.json+api")
			req.SetBasicAuth(seeded.Credentials.Platform.Username, seeded.Credentials.Platform.Password)
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			assert.Equal(t, http.StatusRequestEntityTooLarge, rec.Code, "%v: status of a body over the limit", names)
			assert.Contains(t, rec.Body.String(), "REQUEST_TOO_LARGE", "%v: error code", names)
		})
	}
}

// TestLenientRequestRulesReadBack: lenient-request-rules takes a card with
// an empty name and postal code and tags of every JSON type, and shows
// them as sent on the create and on a fetch; an empty idempotency_id is no
// key (two authorizations carrying one are two); a rule the spec states
// is still kept (a number tag on an authorization is refused, §2.1).
func TestLenientRequestRulesReadBack(t *testing.T) {
	srv, h, seeded, err := ServeVariants(reference.Config{BaseURL: probeBase, Seed: 3}, "lenient-request-rules")
	require.NoError(t, err)
	t.Cleanup(func() { _ = srv.Close() })
	call := func(method, path string, body map[string]any) (int, map[string]any) {
		t.Helper()
		var rd *strings.Reader
		if body != nil {
			enc, err := json.Marshal(body)
			require.NoError(t, err)
			rd = strings.NewReader(string(enc))
		} else {
			rd = strings.NewReader("")
		}
		req := httptest.NewRequest(method, probeBase+path, rd)
		req.Header.Set("Content-Type", "application/vnd.json+api")
		req.SetBasicAuth(seeded.Credentials.Platform.Username, seeded.Credentials.Platform.Password)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec.Code, decodeFaultJSON(rec.Body.Bytes())
	}
	body := probeCardBody(seeded.Fixtures.BuyerIdentity)
	body["name"], body["address"] = "", map[string]any{"postal_code": ""}
	tags := map[string]any{"n": 1.5, "b": true, "o": map[string]any{"x": []any{1.0, nil}}, "z": nil, "s": "str"}
	body["tags"] = tags
	status, card := call("POST", "/payment_instruments", body)
	require.Equal(t, http.StatusCreated, status, "card create; body %v", card)
	id, _ := card["id"].(string)
	status, fetched := call("GET", "/payment_instruments/"+id, nil)
	require.Equal(t, http.StatusOK, status, "card fetch; body %v", fetched)
	for name, doc := range map[string]map[string]any{"create": card, "fetch": fetched} {
		assert.Equal(t, "", doc["name"], "%s: name", name)
		assert.Equal(t, "", objectAt(doc, "address")["postal_code"], "%s: address.postal_code", name)
		got, err := json.Marshal(doc["tags"])
		require.NoError(t, err)
		want, err := json.Marshal(tags)
		require.NoError(t, err)
		assert.JSONEq(t, string(want), string(got), "%s: tags", name)
	}
	auth := map[string]any{"source": id, "merchant_identity": seeded.Fixtures.MerchantIdentity, "amount": 1000, "currency": "USD", "idempotency_id": ""}
	status, first := call("POST", "/authorizations", auth)
	require.Equal(t, http.StatusCreated, status, "authorization with an empty idempotency_id; body %v", first)
	assert.Equal(t, "", first["idempotency_id"], "idempotency_id read back")
	status, second := call("POST", "/authorizations", auth)
	require.Equal(t, http.StatusCreated, status, "second authorization with an empty idempotency_id; body %v", second)
	assert.NotEqual(t, first["id"], second["id"], "an empty idempotency_id replays the first authorization")
	auth["tags"] = map[string]any{"n": 1}
	status, refused := call("POST", "/authorizations", auth)
	assert.Equal(t, http.StatusUnprocessableEntity, status, "an authorization's number tag (§2.1: string pairs); body %v", refused)

	l3 := probeLevel3()
	l3["discount_amount"] = -7
	status, sale := call("POST", "/transfers", map[string]any{
		"source": id, "merchant": seeded.Fixtures.Merchant, "amount": 1000, "currency": "USD", "fee": -20, "additional_purchase_data": l3,
	})
	require.Equal(t, http.StatusCreated, status, "sale with a negative fee and discount; body %v", sale)
	saleID, _ := sale["id"].(string)
	status, fetchedSale := call("GET", "/transfers/"+saleID, nil)
	require.Equal(t, http.StatusOK, status, "sale fetch; body %v", fetchedSale)
	for name, doc := range map[string]map[string]any{"create": sale, "fetch": fetchedSale} {
		assert.EqualValues(t, "-20", fmt.Sprint(doc["fee"]), "%s: fee", name)
		assert.EqualValues(t, "-7", fmt.Sprint(objectAt(doc, "additional_purchase_data")["discount_amount"]), "%s: discount_amount", name)
	}
}
