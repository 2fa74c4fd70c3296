package faults

import (
	"encoding/json"
	"net/http"
	"strings"
)

// scenarioHookSale is the scenario that waits for a sale's created event.
const scenarioHookSale = "a webhook receives a signed created event when a sale is made"

// eventTypeFaults break the type an event says it is.
func eventTypeFaults() []Fault {
	return []Fault{
		{
			Name: "event-type-swapped", Capability: "webhooks", Expect: ExpectWarn, Tags: "@webhooks",
			Breaks:    "the kit's webhooks: an event's type names what happened, created or updated (assumed: event_layout)",
			Catchers:  []string{scenarioHookSale, scenarioHookAuth},
			transport: swappedEventTypes,
		},
	}
}

// swappedEventTypes delivers each event with created and updated swapped
// in its top-level strings: its type, in whatever layout the deliveries
// have when they reach it ("created", "transfer.created"), while the
// resource it carries is unchanged. The body is not signed again.
func swappedEventTypes(base http.RoundTripper) http.RoundTripper {
	return rewriteDelivery(base, func(_ *http.Request, body []byte) ([]byte, error) {
		ev := decodeFaultJSON(body)
		if ev == nil {
			return body, nil
		}
		swap := strings.NewReplacer("created", "updated", "updated", "created")
		for k, v := range ev {
			if s, ok := v.(string); ok {
				ev[k] = swap.Replace(s)
			}
		}
		return json.Marshal(ev)
	})
}
