// Package payments holds the client oapi-codegen generates from the OpenAPI
// export (client.gen.go, written by validate/openapi's consumer test). This
// file uses it the way the export says it must be usable.
package payments

var (
	// A list is the envelope with its items beside it: with the items as
	// siblings of a $ref, generators made it the bare envelope.
	_ = func(l TransferList) []Transfer { return l.UnderscoreEmbedded.Transfers }
	// A nullable id is a pointer.
	_ = func(a Authorization) bool { return a.Transfer == nil }
	_ = NewClientWithResponses
)
