//go:build !race

package validate

// raceBuild reports whether the race detector is on: under it sync.Pool
// drops items at random, so a pooled pass is sometimes allocated anew.
const raceBuild = false
