//go:build race

package cli

// raceEnabled: a store under the race detector is 5–10x slower, so the
// damaged-store trials run fewer seeded cases under it (the same checks
// on each; all of them without it).
const raceEnabled = true
