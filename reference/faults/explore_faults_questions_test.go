package faults

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// webhookStub is a store of webhooks behind the faults: it keeps what
// each update's body (as it reached the store) sets, and answers with it.
type webhookStub struct {
	mu       sync.Mutex
	hooks    map[string]map[string]any
	received []string // the update bodies as they reached the store
}

func (s *webhookStub) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	raw, _ := io.ReadAll(r.Body)
	var in map[string]any
	_ = json.Unmarshal(raw, &in)
	id := strings.TrimPrefix(r.URL.Path, "/webhooks/")
	var out any
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/webhooks":
		id = "WH" + string(rune('A'+len(s.hooks)))
		s.hooks[id] = map[string]any{"id": id, "url": in["url"], "enabled": true}
		out = s.hooks[id]
	case r.Method == http.MethodPut:
		s.received = append(s.received, string(raw))
		for k, v := range in {
			s.hooks[id][k] = v
		}
		out = s.hooks[id]
	case r.URL.Path == "/webhooks":
		out = map[string]any{"_embedded": map[string]any{"webhooks": []any{s.hooks["WHA"]}}}
	default:
		out = s.hooks[id]
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(out)
}

// TestWebhookWorkerFaultsKeepTheirField: each webhook worker fault keeps a
// valid update's field from the store and shows the value sent in every
// later answer; the url one sends the store the first url (a webhook whose
// create it did not see is updated as asked), the enabled one leaves
// enabled out (an update of enabled alone reaches the store as {}); an
// update without the field, or one the schema refuses, passes as sent.
func TestWebhookWorkerFaultsKeepTheirField(t *testing.T) {
	const first, second = "https://first.example.com/hook", "https://second.example.com/hook"
	for _, tc := range []struct {
		name     string
		wrap     func(http.Handler, faultDeps) http.Handler
		unseen   bool // the webhook's create did not pass the fault
		update   string
		received string // the update's body as it reached the store
		field    string
		stored   any // the field in the store
		shown    any // the field in the update's answer, a fetch's and a list's
	}{
		{"url: a new url", webhookFirstURL, false, `{"url":"` + second + `"}`, `{"url":"` + first + `"}`, "url", first, second},
		{"url: {}", webhookFirstURL, false, `{}`, `{}`, "url", first, first},
		{"url: enabled alone", webhookFirstURL, false, `{"enabled":false}`, `{"enabled":false}`, "url", first, first},
		{"url: a create not seen", webhookFirstURL, true, `{"url":"` + second + `"}`, `{"url":"` + second + `"}`, "url", second, second},
		{"url: a body the schema refuses", webhookFirstURL, false, `{"url":"` + second + `","color":"red"}`, `{"url":"` + second + `","color":"red"}`, "url", second, second},
		{"enabled: false", webhookCreateEnabled, false, `{"enabled":false}`, `{}`, "enabled", true, false},
		{"enabled: false with a url", webhookCreateEnabled, false, `{"enabled":false,"url":"` + second + `"}`, `{"url":"` + second + `"}`, "enabled", true, false},
		{"enabled: {}", webhookCreateEnabled, false, `{}`, `{}`, "enabled", true, true},
		{"enabled: a body the schema refuses", webhookCreateEnabled, false, `{"enabled":false,"color":"red"}`, `{"enabled":false,"color":"red"}`, "enabled", false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stub := &webhookStub{hooks: map[string]map[string]any{}}
			h := tc.wrap(stub, faultDeps{})
			send := func(target http.Handler, method, path, body string) map[string]any {
				rec := httptest.NewRecorder()
				req := httptest.NewRequest(method, path, strings.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				target.ServeHTTP(rec, req)
				require.Equal(t, http.StatusOK, rec.Code, "%s %s", method, path)
				var doc map[string]any
				require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &doc))
				return doc
			}
			create := h
			if tc.unseen {
				create = stub
			}
			send(create, http.MethodPost, "/webhooks", `{"url":"`+first+`","enabled":true}`)
			answer := send(h, http.MethodPut, "/webhooks/WHA", tc.update)
			require.Len(t, stub.received, 1)
			assert.JSONEq(t, tc.received, stub.received[0], "the body the store took")
			assert.Equal(t, tc.stored, stub.hooks["WHA"][tc.field], "the store")
			assert.Equal(t, tc.shown, answer[tc.field], "the update's answer")
			assert.Equal(t, tc.shown, send(h, http.MethodGet, "/webhooks/WHA", "")[tc.field], "a fetch")
			items, _ := send(h, http.MethodGet, "/webhooks", "")["_embedded"].(map[string]any)["webhooks"].([]any)
			require.Len(t, items, 1)
			assert.Equal(t, tc.shown, items[0].(map[string]any)[tc.field], "a list")
		})
	}
}
