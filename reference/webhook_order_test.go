package reference

import (
	"encoding/json"
	"io"
	"net/http"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// orderTransport records the attempts it is given, in the order they begin,
// each as the url and the id of the event's resource. It answers 200, but
// 500 where fail says so, and holds the attempts to the host hold until
// release is closed.
type orderTransport struct {
	fail    func(url, id string) bool
	hold    string
	release chan struct{}

	mu   sync.Mutex
	seen []attemptSeen
	got  chan attemptSeen // each attempt, when not nil
}

// attemptSeen is one attempt an orderTransport was given.
type attemptSeen struct{ url, id string }

func (o *orderTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	body, _ := io.ReadAll(r.Body)
	_ = r.Body.Close()
	var ev event
	_ = json.Unmarshal(body, &ev)
	a := attemptSeen{url: r.URL.String()}
	for _, items := range ev.Embedded {
		if len(items) > 0 {
			if m, ok := items[0].(map[string]any); ok {
				a.id, _ = m["id"].(string)
			}
		}
	}
	if r.URL.Host == o.hold {
		select {
		case <-o.release:
		case <-r.Context().Done():
			return nil, r.Context().Err()
		}
	}
	o.mu.Lock()
	o.seen = append(o.seen, a)
	o.mu.Unlock()
	runtime.Gosched() // let any other attempt begin now, if one could
	status := http.StatusOK
	if o.fail != nil && o.fail(a.url, a.id) {
		status = http.StatusInternalServerError
	}
	if o.got != nil {
		o.got <- a
	}
	return &http.Response{StatusCode: status, Body: io.NopCloser(strings.NewReader("")), Header: http.Header{}, Request: r}, nil
}

// attempts is what o has seen so far.
func (o *orderTransport) attempts() []attemptSeen {
	o.mu.Lock()
	defer o.mu.Unlock()
	return slices.Clone(o.seen)
}

// TestDeliveriesToOneHostKeepTheirOrder: the first attempts of an event to
// the webhooks of one host begin only once those of the event published
// before it have ended, so each webhook of the host gets its events in the
// order they were published (the kit's silence checks stop waiting on this
// order); a host that holds its deliveries delays no other host's.
func TestDeliveriesToOneHostKeepTheirOrder(t *testing.T) {
	o := &orderTransport{hold: "held.test", release: make(chan struct{}), got: make(chan attemptSeen, 256)}
	h := newHarness(t, func(c *Config) { c.WebhookClient = &http.Client{Transport: o} })
	urls := []string{"http://receiver.test/a", "http://receiver.test/b", "http://receiver.test/c"}
	h.webhook("http://held.test/hook", nil) // never answered until the end
	var published []string                  // the resource of each event, in publish order
	for _, u := range urls {
		published = append(published, h.webhook(u, nil)["id"].(string))
	}
	for range 30 {
		published = append(published, h.card())
	}
	card := published[len(published)-1]
	deadline := time.After(10 * time.Second)
	for done := false; !done; {
		select {
		case a := <-o.got:
			done = a == attemptSeen{urls[0], card}
		case <-deadline:
			t.Fatal("the last card's event never reached receiver.test while held.test held its deliveries")
		}
	}
	close(o.release)
	h.srv.wg.Wait() // every delivery has been attempted
	order := map[string]int{}
	for i, id := range published {
		order[id] = i
	}
	last := -1
	perURL := map[string][]string{}
	for _, a := range o.attempts() {
		if a.url == "http://held.test/hook" {
			continue
		}
		assert.GreaterOrEqual(t, order[a.id], last, "attempt %s to %s began before the earlier event's attempts had ended", a.id, a.url)
		last = max(last, order[a.id])
		perURL[a.url] = append(perURL[a.url], a.id)
	}
	for i, u := range urls {
		// Each webhook gets its own created event, the later webhooks' and the cards'.
		assert.Equal(t, published[i:], perURL[u], "first attempts to %s", u)
	}
}

// TestFailedDeliveryHoldsBackNoLaterEvent: a delivery whose first attempt
// fails waits for its retry on its own; the webhook's later events are
// attempted at once.
func TestFailedDeliveryHoldsBackNoLaterEvent(t *testing.T) {
	const url = "http://receiver.test/hook"
	o := &orderTransport{got: make(chan attemptSeen, 16)}
	o.fail = func(_, id string) bool { return strings.HasPrefix(id, "WH") }                                // the webhook's own created event
	h := newHarness(t, func(c *Config) { c.WebhookClient = &http.Client{Transport: o}; c.RetryScale = 1 }) // 90 s before the retry
	hook := h.webhook(url, nil)["id"].(string)
	require.Equal(t, attemptSeen{url, hook}, <-o.got)
	card := h.card()
	select {
	case got := <-o.got:
		assert.Equal(t, attemptSeen{url, card}, got)
	case <-time.After(5 * time.Second):
		t.Fatal("the card's event waited behind the failed delivery's retry")
	}
	closed := make(chan struct{})
	go func() { _ = h.srv.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not stop the retry waiting")
	}
}
