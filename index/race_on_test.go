//go:build race

package index

// raceEnabled: a process under the race detector is 5–10x slower, so the
// kill trials run fewer cases under it, spread evenly over the run they
// kill (stratified) instead of drawn at random: the same moments of a
// backup or rebuild are hit with fewer of them (all of them without it).
const raceEnabled = true
