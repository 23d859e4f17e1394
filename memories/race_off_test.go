//go:build !race

package memories

const raceEnabled = false
