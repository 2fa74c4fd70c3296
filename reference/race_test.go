//go:build race

package reference

// raceBuild reports whether the race detector is on; the hostile-client
// test sends fewer requests then, to keep make test quick.
const raceBuild = true
