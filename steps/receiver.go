package steps

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/conform-kit/conform/validate/judging"
)

// delivery is one webhook POST the receiver accepted.
type delivery struct {
	header        http.Header
	authorization string // the Authorization header (webhook authentication, spec §4.9)
	body          []byte
	route         string // the path after the scenario's token ("" for the token itself)
}

// receiver is the kit's webhook endpoint: one loopback listener whose deliveries
// are routed by a per-scenario path token to that scenario's channel.
type receiver struct {
	ln        net.Listener
	srv       *http.Server
	publicURL string

	mu     sync.Mutex
	routes map[string]*route

	opened    atomic.Int64 // routes registered in the run
	delivered atomic.Int64 // deliveries that reached a registered route
}

// maxQueued bounds the deliveries one route holds for its scenario. A
// scenario's webhook receives every event of the application, so under high
// concurrency it may be far behind; the bound only guards memory.
const maxQueued = 1 << 16

// route queues one scenario's deliveries without bound (up to maxQueued) and
// hands them out in arrival order, so no delivery a scenario waits for is ever
// dropped because it was slow to read.
type route struct {
	mu    sync.Mutex
	queue []delivery
	wake  chan struct{} // a send means the queue may have grown
	out   chan delivery
	done  chan struct{}
}

func newRoute() *route {
	rt := &route{wake: make(chan struct{}, 1), out: make(chan delivery), done: make(chan struct{})}
	go rt.pump()
	return rt
}

// push queues a delivery; it never blocks the receiving HTTP handler.
func (rt *route) push(d delivery) {
	rt.mu.Lock()
	if len(rt.queue) < maxQueued {
		rt.queue = append(rt.queue, d)
	}
	rt.mu.Unlock()
	select {
	case rt.wake <- struct{}{}:
	default:
	}
}

// pump moves queued deliveries to out until the route is closed.
func (rt *route) pump() {
	for {
		rt.mu.Lock()
		if len(rt.queue) == 0 {
			rt.mu.Unlock()
			select {
			case <-rt.wake:
				continue
			case <-rt.done:
				return
			}
		}
		d := rt.queue[0]
		rt.queue[0] = delivery{}
		rt.queue = rt.queue[1:]
		rt.mu.Unlock()
		select {
		case rt.out <- d:
		case <-rt.done:
			return
		}
	}
}

// newReceiver starts listening on cfg.Listen; Close stops it.
func newReceiver(cfg ReceiverConfig) (*receiver, error) {
	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return nil, fmt.Errorf("%w: webhook receiver listen %s: %w", ErrConfig, cfg.Listen, err)
	}
	r := &receiver{ln: ln, routes: map[string]*route{}}
	r.publicURL = strings.TrimRight(cfg.PublicURL, "/")
	if r.publicURL == "" {
		r.publicURL = "http://" + ln.Addr().String()
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /hooks/{token}", r.handle)
	mux.HandleFunc("POST /hooks/{token}/{rest...}", r.handle)
	r.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go r.srv.Serve(ln) //nolint:errcheck // returns ErrServerClosed on Close
	return r, nil
}

// Close stops the listener and drops open connections at once: deliveries
// still arriving after the run are of no interest.
func (r *receiver) Close() error {
	r.mu.Lock()
	for token, rt := range r.routes {
		close(rt.done)
		delete(r.routes, token)
	}
	r.mu.Unlock()
	if err := r.srv.Close(); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("webhook receiver close: %w", err)
	}
	return nil
}

// register opens a route and returns its token, URL and channel.
func (r *receiver) register() (string, string, <-chan delivery) {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	token := hex.EncodeToString(b)
	rt := newRoute()
	r.opened.Add(1)
	r.mu.Lock()
	r.routes[token] = rt
	r.mu.Unlock()
	return token, r.publicURL + "/hooks/" + token, rt.out
}

// unregister closes a route; later deliveries to it are acknowledged and dropped.
func (r *receiver) unregister(token string) {
	r.mu.Lock()
	if rt, ok := r.routes[token]; ok {
		close(rt.done)
		delete(r.routes, token)
	}
	r.mu.Unlock()
}

func (r *receiver) handle(w http.ResponseWriter, req *http.Request) {
	body, err := io.ReadAll(io.LimitReader(req.Body, 4<<20))
	if err != nil {
		http.Error(w, "read error", http.StatusBadRequest)
		return
	}
	r.mu.Lock()
	rt, ok := r.routes[req.PathValue("token")]
	r.mu.Unlock()
	if ok {
		r.delivered.Add(1)
		rt.push(delivery{header: req.Header.Clone(), authorization: req.Header.Get("Authorization"), body: body, route: req.PathValue("rest")})
	}
	// Always acknowledge, so the target does not retry deliveries nobody waits for.
	w.WriteHeader(http.StatusOK)
}

// diagnose explains a receiver that scenarios waited on but nothing reached.
func (r *receiver) diagnose() []string {
	if n := r.opened.Load(); n > 0 && r.delivered.Load() == 0 {
		return []string{fmt.Sprintf("0 webhook deliveries arrived in this run, although %d scenarios registered a webhook at %s: check webhook_receiver.public_url (CONFORM_WEBHOOK_PUBLIC_URL), which the target must be able to reach", n, r.publicURL)}
	}
	return nil
}

// basicAuthorization is the Authorization header value of HTTP Basic
// credentials, as a webhook with BASIC authentication sends it.
func basicAuthorization(username, password string) string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(username+":"+password))
}

// verifySignature checks a signature header named name
// ("timestamp=<unix>, sig=<hex HMAC-SHA256(secret, "<timestamp>:<body>")>").
func verifySignature(name, header, secret string, body []byte) error {
	if header == "" {
		return fmt.Errorf("no %s header", name)
	}
	switch err := judging.VerifySignature(header, secret, body); {
	case errors.Is(err, judging.ErrSignatureIncomplete):
		return fmt.Errorf("%s %q lacks timestamp or sig", name, header)
	case err != nil:
		return fmt.Errorf("%s sig does not match HMAC-SHA256 of the body with the webhook's secret", name)
	}
	return nil
}
