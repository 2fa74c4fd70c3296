package faults

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/conform-kit/conform/reference"
)

// Expected outcomes of a fault: the suite must judge the faulted reference as
// failing a normative check (FAIL) or only an assumed one (WARN).
const (
	ExpectFail = "FAIL"
	ExpectWarn = "WARN"
)

// Fault is one named way to break exactly one thing the spec (or one of
// the kit's assumed decisions, features/README.md) states. Faults wrap the reference from the
// outside, rewriting a request before the real handler or its response after
// it, or the webhook client's deliveries, so handlers carry no fault logic.
// A fault is reachable only when named explicitly (Serve, Handler, Client).
type Fault struct {
	// Name identifies the fault, e.g. "capture-over-amount-accepted".
	Name string
	// Capability is the area of the API it breaks ("authorizations", "webhooks"...).
	Capability string
	// Breaks is the clause it breaks, e.g. "§7 capture_amount <= amount".
	Breaks string
	// Expect is ExpectFail (a normative rule is broken) or ExpectWarn (only an
	// assumed decision is).
	Expect string
	// Tags is a godog tag expression selecting the features that exercise the
	// fault, so a mutation run need not run the whole suite.
	Tags string
	// Catchers are the names of the scenarios expected to report the fault.
	Catchers []string

	// wrap rewrites the server's handling; nil if the fault lives in the webhook client.
	wrap func(next http.Handler, d faultDeps) http.Handler
	// transport rewrites webhook deliveries; nil if the fault lives in the handler.
	transport func(base http.RoundTripper) http.RoundTripper
}

// faultDeps is what a fault may use besides the handler it wraps: the seeded
// credentials and fixture ids.
type faultDeps struct {
	fx reference.Seeded
}

// Catalog returns every fault in a stable order (by group, then as listed).
func Catalog() []Fault {
	var all []Fault
	for _, group := range [][]Fault{
		authFaults(), cardFaults(), authorizationFaults(), level3Faults(), saleFaults(),
		idempotencyFaults(), merchantFaults(), subscriptionFaults(), disputeFaults(),
		balanceTransferFaults(), fileFaults(), webhookFaults(), listFaults(), errorFaults(),
		contentFaults(), inputRuleFaults(), responseDetailFaults(), idempotencyScopeFaults(), webhookEventFaults(), eventTypeFaults(),
	} {
		all = append(all, group...)
	}
	return all
}

// ByName returns the catalog entry called name.
func ByName(name string) (Fault, bool) {
	for _, f := range append(Catalog(), ExploreCatalog()...) {
		if f.Name == name {
			return f, true
		}
	}
	return Fault{}, false
}

// ErrUnknown is returned (wrapped, with the known names) for a fault name
// not in the catalog.
var ErrUnknown = errors.New("faults: unknown fault")

// selectFaults resolves names against the catalog, in the order given.
func selectFaults(names []string) ([]Fault, error) {
	out := make([]Fault, 0, len(names))
	for _, n := range names {
		f, ok := ByName(n)
		if !ok {
			known := make([]string, 0, 64)
			for _, k := range Catalog() {
				known = append(known, k.Name)
			}
			return nil, fmt.Errorf("%w %q; known faults: %s", ErrUnknown, n, strings.Join(known, ", "))
		}
		out = append(out, f)
	}
	return out, nil
}

// Serve builds a reference from cfg with the named faults in front of it: the
// handler side wraps the returned handler, the webhook side the reference's
// webhook client. Serve the returned handler, and Close the server when done.
// With no names the handler is the server itself.
func Serve(cfg reference.Config, names []string) (*reference.Server, http.Handler, error) {
	client, err := Client(cfg.WebhookClient, names)
	if err != nil {
		return nil, nil, err
	}
	cfg.WebhookClient = client
	srv, err := reference.New(cfg)
	if err != nil {
		return nil, nil, err
	}
	h, err := Handler(srv, names, srv.Seeded())
	if err != nil {
		_ = srv.Close()
		return nil, nil, err
	}
	return srv, h, nil
}

// Handler wraps h (a reference) with the handler side of every named fault;
// the first name is the outermost wrapper. seeded is what the reference
// seeded: some faults act as one of its users or name one of its resources.
func Handler(h http.Handler, names []string, fx reference.Seeded) (http.Handler, error) {
	faults, err := selectFaults(names)
	if err != nil {
		return nil, err
	}
	d := faultDeps{fx: fx}
	for _, f := range slices.Backward(faults) {
		if f.wrap != nil {
			h = f.wrap(h, d)
		}
	}
	return h, nil
}

// Client returns a copy of c (nil: a client with a 10s timeout) whose
// transport carries the webhook side of every named fault, for
// reference.Config.WebhookClient; c itself is returned when no named fault
// touches deliveries.
func Client(c *http.Client, names []string) (*http.Client, error) {
	faults, err := selectFaults(names)
	if err != nil {
		return nil, err
	}
	if c == nil {
		c = &http.Client{Timeout: 10 * time.Second}
	}
	var rt http.RoundTripper
	for _, f := range faults {
		if f.transport == nil {
			continue
		}
		if rt == nil {
			rt = c.Transport
			if rt == nil {
				rt = http.DefaultTransport
			}
		}
		rt = f.transport(rt)
	}
	if rt == nil {
		return c, nil
	}
	cp := *c
	cp.Transport = rt
	return &cp, nil
}
