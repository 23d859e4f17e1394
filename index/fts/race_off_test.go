//go:build !race

package fts

const raceEnabled = false
