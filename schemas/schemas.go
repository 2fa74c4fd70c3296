// Package schemas holds the Payments Service API contract as data: a JSON Schema
// (draft 2020-12) for every resource and request body, shared definitions in
// common.json, and operations.json, the table of every operation (method, path,
// request and response schema, success status, roles, source).
//
// The files are embedded so the same contract serves the validate package, the
// reference implementation and the conform binary. This package has no logic.
package schemas

import "embed"

// FS holds every *.json file of this folder.
//
//go:embed *.json
var FS embed.FS
