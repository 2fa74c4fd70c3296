// Package features holds the conformance suite's Gherkin features, one per
// capability of the Payments Service API. They are embedded so the same files
// serve "go test" and the conform binary through godog's Options.FS.
package features

import "embed"

// FS holds every *.feature file of this folder.
//
//go:embed *.feature
var FS embed.FS
