//go:build race

package memories

// raceEnabled: the race detector makes map-heavy tests ~10x slower, so the
// tests on large stores built on one goroutine run in a binary without it
// (ranWithoutRace), at their full size.
const raceEnabled = true
