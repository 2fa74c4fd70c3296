// Package judging is the conformance kit's judging model, built on package
// validate: how every check of the kit is judged, and what a target server
// may choose where the spec is silent.
//
// A Judge reads schemas/judging.json and the overlays of schemas/assumed
// against a *validate.Validator. Every check has a Basis: normative (a spec
// section or a safety invariant names it, and it may FAIL) or assumed under
// a profile key (the reference's choice; a WARN, or what the target's
// Profile declares). The package holds:
//
//   - the judging Table: spec clauses, safety invariants, the refusal kinds
//     (Refusal* constants) with the reference's status and codes, id
//     prefixes, the basis of every schema and operation, the profile keys;
//     the assumed rules of a normative request schema (a keyword the spec
//     does not state, judged under a profile key) and RequestBodyBasis,
//     the basis of one violation of a request body;
//   - Profile: a target's declared choices, decoded over the reference's
//     defaults (DecodeProfile, MergeProfile), compared (ProfileDifferences)
//     and written back (EncodeProfile);
//   - Assumed and ValidateNormative: a document checked separately against
//     what the spec states and against the reference's exact forms, each
//     difference of the latter a Deviation under its profile key;
//   - IDFormOf and TimestampPrecisionOf: a profile value inferred from what
//     a target showed;
//   - the delivery signature of webhook events (SignatureValue,
//     ParseSignature, VerifySignature).
//
// A Go service that only checks requests and responses needs package
// validate alone.
package judging
