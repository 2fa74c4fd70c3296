// Package schemas holds the Payments Service API contract as data: a JSON Schema
// (draft 2020-12) for every resource and request body, shared definitions in
// common.json, operations.json, the table of every operation (method, path,
// request and response schema, success status, roles, source, the spec
// sections it implements), and judging.json, the basis of every check (spec
// sections, safety invariants, the refusals, the id prefixes, the profile
// keys of the assumed decisions). assumed/ holds an overlay per response
// schema with the reference's exact forms, each constraint tagged with its
// profile key (x-profile).
//
// The files are embedded so the same contract serves the validate package, the
// reference implementation and the conform binary. This package has no logic.
package schemas

import "embed"

// FS holds every *.json file of this folder and of assumed/.
//
//go:embed *.json assumed/*.json
var FS embed.FS
