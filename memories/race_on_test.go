//go:build race

package memories

// raceEnabled: the race detector makes map-heavy tests ~10x slower, so the
// large synthetic stores shrink under it (their timing is measured without
// it; the behaviour checked is the same).
const raceEnabled = true
