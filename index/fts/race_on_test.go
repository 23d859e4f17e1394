//go:build race

package fts

// raceEnabled: a process under the race detector is 5–10x slower, so the
// full-disk trials run fewer cases under it, spread over the same range
// (all of them without it).
const raceEnabled = true
