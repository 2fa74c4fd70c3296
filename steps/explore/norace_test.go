//go:build !race

package explore_test

// raceDetector is true under go test -race, which slows every exploration.
const raceDetector = false
