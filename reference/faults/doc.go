// Package faults holds the two catalogs the conformance suite is tested
// against: servers it must judge broken, and servers it must judge
// conformant. Both are the reference wrapped from the outside: a wrapper
// rewrites a request before the reference's handler, its response after it,
// or the webhook client's deliveries (a variant may also set the clock), so
// the reference itself carries no fault or variant logic.
//
// # Faults: must FAIL or WARN
//
// A Fault breaks exactly one thing the spec states (the suite must FAIL the
// server: Expect is ExpectFail) or one of the kit's assumed decisions (features/README.md, "Assumptions") (the
// suite must WARN: ExpectWarn), and names the scenarios expected to report
// it (Catchers): a mutation test of the suite. Catalog lists them; Serve
// builds a reference with the named faults in front of it, Handler and Client
// put them in front of a handler and a webhook client. A fault is reachable
// only when named.
//
// The Fault type and serving are in faults.go; the faults themselves, one
// group per area, in faults_<topic>.go: access (authentication, roles,
// merchants, the error envelope, media types), accounts (subscriptions,
// disputes, balance transfers), files, idempotency, inputs (card number,
// expiration year, order_date, response details), level3, lists, payments
// (cards, authorizations, sales) and webhooks. explore_faults.go holds
// ExploreCatalog: faults that break a rule only in part of the input space,
// which conform explore must catch and the fixed scenarios may not; they
// have no Catchers and stay out of Catalog.
//
// # Variants: must PASS once declared
//
// A Variant is a conformant server that differs from the reference only
// where the spec is silent (another success status, id form, media type,
// event layout...). The suite must never FAIL it, and must PASS it without
// a WARN once its Profile is declared. Variants lists them; ServeVariant
// serves one, ServeVariants several at once, as a server differing in many
// choices would.
//
// The Variant type and serving are in variants.go; the variants, one group
// per topic, in variants_<topic>.go: statuses (success statuses, refusal
// codes), forms (media types, request forms), values (timestamps, expiry,
// placeholders), ids, routes (methods, extensions, roles, list limits),
// payments (triggers, captures, card numbers, idempotent replays), rules
// (the reference's own business rules), events (webhook deliveries and
// their signatures), files and realistic (what real servers answer: a
// code per rule, dotted field names, 415, 401 before 404, a list maximum
// above 101, an unserved Accept ignored).
//
// wrap.go holds what both catalogs wrap with: matching an operation,
// recording the inner handler, rewriting JSON bodies, webhook transports.
//
// # Where they are run
//
// The suite runs against every fault in steps (TestFaultCatalogIsCaught: the
// expected outcome, reported by a catcher) and against every variant
// (TestVariantsNeverFail: no FAIL, and no WARN once the profile is declared;
// TestCombinedVariantsNeverFail: many at once). This package's own tests
// check each fault's effect on the wire and that every profile key has a
// variant. `conform faults` lists the faults and `conform faults --variants`
// the variants; `conform serve --fault NAME` and `--variant NAME` serve them.
package faults
