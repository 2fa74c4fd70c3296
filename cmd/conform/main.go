// Command conform checks Payments Service API servers against the contract and
// validates documents against its schemas.
//
// Usage:
//
//	conform run [--target URL] [--config FILE]   run the conformance suite
//	conform serve [--addr ADDR]                  serve the bundled reference
//	conform validate --request OP [FILE|-]       validate a request body
//	conform schemas [show NAME]                  list operations and schemas
//	conform version                              print the version
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := execute(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
