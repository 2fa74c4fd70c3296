package faults

import (
	"fmt"
	"mime"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/conform-kit/conform/reference"
)

// Variant is the reference with another choice where the spec is silent:
// a conformant server that differs from the reference only in assumed
// decisions. The suite must never FAIL it, and must PASS it without a WARN
// once its profile is declared. Like a fault, a variant wraps the reference
// from the outside (its handler, its webhook client, at most its clock).
type Variant struct {
	// Name identifies the variant, e.g. "create-200".
	Name string
	// Choice says what the variant does differently.
	Choice string
	// Profile declares the variant's choices: a JSON object of profile keys.
	Profile string
	// Tags is a godog tag expression selecting the features where the
	// choice shows, for a quick run.
	Tags string

	// build makes the variant's parts for one server; state they share
	// (an id mapping, the webhooks' secrets) lives in its closure.
	build func() variantParts
}

// variantParts are the pieces of one variant server; any may be nil.
type variantParts struct {
	wrap      func(next http.Handler, d faultDeps) http.Handler
	transport func(base http.RoundTripper) http.RoundTripper
	config    func(cfg *reference.Config)
	seeded    func(reference.Seeded) reference.Seeded
}

// Variants returns the catalog of conformant variants, one or a few profile
// keys each, in a stable order: by topic (one file each, variants_*.go), then
// as listed there.
func Variants() []Variant {
	var all []Variant
	for _, group := range [][]Variant{
		statusVariants(), formVariants(), valueVariants(), idVariants(), routeVariants(),
		paymentVariants(), ruleVariants(), lawVariants(), openVariants(), eventVariants(), fileVariants(),
		realisticVariants(),
	} {
		all = append(all, group...)
	}
	return all
}

// VariantByName returns the entry called name of the catalog, of the
// explore variants or of the held variants.
func VariantByName(name string) (Variant, bool) {
	for _, v := range slices.Concat(Variants(), ExploreVariants()) {
		if v.Name == name {
			return v, true
		}
	}
	return Variant{}, false
}

// VariantNames lists the catalog's names.
func VariantNames() []string {
	var out []string
	for _, v := range Variants() {
		out = append(out, v.Name)
	}
	return slices.Clip(out)
}

// ServeVariant builds a reference from cfg as the named variant: serve the
// returned handler; the Seeded is what a client of the variant sees (its
// ids). Close the server when done.
func ServeVariant(cfg reference.Config, name string) (*reference.Server, http.Handler, reference.Seeded, error) {
	return ServeVariants(cfg, name)
}

// Combined names the conformant variants that compose into one server
// (ServeVariants), in the order whose wrappers compose: from what the server
// decides to how its answers look. The variants left out rewrite events,
// timestamps, file payloads or signatures that others rewrite too. The
// suite and the explorer both prove this server never fails.
func Combined() []string {
	return []string{
		"multi-capture", "capture-fee-authorization-bound", "cards-any-length", "no-reference-rules",
		"lenient-request-rules", "idempotency-replay-409", "expiry-24h", "authorizations-pending", "merchant-role-no-charges", "no-sandbox-triggers",
		"create-200", "capture-202", "state-rules-409", "validation-400-dotted", "too-large-400", "upload-401-first",
		"vnd-api-json-only", "media-type-415", "accept-ignored", "authorization-merchant-field", "amount-update-top-level", "webhook-update-patch", "no-extensions", "files-post-only",
		"plain-json", "event-layout-and-signature", "api-key-redacted", "signing-key-whsec", "list-max-50-clamped",
		"timestamps-ms", "ids-base58-21",
	}
}

// ServeVariants builds a reference from cfg with the choices of every named
// variant at once, as a server differing from the reference in many assumed
// decisions would. The first name's wrapper is nearest the reference, the
// last one's meets the client. A name twice is refused: the choices would
// be applied twice. Close the server when done.
func ServeVariants(cfg reference.Config, names ...string) (*reference.Server, http.Handler, reference.Seeded, error) {
	if len(names) == 0 {
		return nil, nil, reference.Seeded{}, fmt.Errorf("%w variant: none named", ErrUnknown)
	}
	var all []variantParts
	for i, name := range names {
		v, ok := VariantByName(name)
		if !ok {
			return nil, nil, reference.Seeded{}, fmt.Errorf("%w variant %q", ErrUnknown, name)
		}
		if slices.Contains(names[:i], name) {
			return nil, nil, reference.Seeded{}, fmt.Errorf("%w variant %q: named twice", ErrUnknown, name)
		}
		all = append(all, v.build())
	}
	for _, p := range all {
		if p.config != nil {
			p.config(&cfg)
		}
		if p.transport != nil {
			c := cfg.WebhookClient
			if c == nil {
				c = &http.Client{Timeout: 10 * time.Second}
			}
			cp := *c
			base := cp.Transport
			if base == nil {
				base = http.DefaultTransport
			}
			cp.Transport = p.transport(base)
			cfg.WebhookClient = &cp
		}
	}
	srv, err := reference.New(cfg)
	if err != nil {
		return nil, nil, reference.Seeded{}, err
	}
	seeded := srv.Seeded()
	var h http.Handler = srv
	for _, p := range all {
		if p.wrap != nil {
			h = p.wrap(h, faultDeps{fx: seeded})
		}
	}
	for _, p := range all {
		if p.seeded != nil {
			seeded = p.seeded(seeded)
		}
	}
	return srv, h, seeded, nil
}

// parts makes a build of a handler-only variant.
func parts(wrap func() func(http.Handler, faultDeps) http.Handler) func() variantParts {
	return func() variantParts { return variantParts{wrap: wrap()} }
}

// wrapOnly lifts a stateless wrapper into parts' form.
func wrapOnly(w func(http.Handler, faultDeps) http.Handler) func() func(http.Handler, faultDeps) http.Handler {
	return func() func(http.Handler, faultDeps) http.Handler { return w }
}

// onJSON runs edit on every JSON response body (with its recorded status
// and headers); edit returns the body to send.
func onJSON(next http.Handler, edit func(r *http.Request, rec *faultRecorder, body []byte) []byte) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := newFaultRecorder()
		next.ServeHTTP(rec, r)
		body := rec.body.Bytes()
		if mt, _, _ := mime.ParseMediaType(rec.header.Get("Content-Type")); strings.Contains(mt, "json") {
			body = edit(r, rec, body)
		}
		rec.flush(w, body)
	})
}

// errorEnvelope is a §7 error envelope with one item.
func errorEnvelope(r *http.Request, code, message string) map[string]any {
	self := "http://" + r.Host + r.URL.Path
	return map[string]any{
		"total": 1,
		"_embedded": map[string]any{"errors": []any{map[string]any{
			"code": code, "message": message, "logref": map[string]any{"logref": "variant"},
			"_links": map[string]any{"self": map[string]any{"href": self}, "source": map[string]any{"href": self}},
		}}},
	}
}
