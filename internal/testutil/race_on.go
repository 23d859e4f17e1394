//go:build race

package testutil

// raceEnabled: this test binary has the race detector (WithoutRace then
// runs its tests in a binary without it).
const raceEnabled = true
