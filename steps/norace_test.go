//go:build !race

package steps_test

// raceDetector is true under go test -race, which slows every run of the suite.
const raceDetector = false
