package fts

import (
	"testing"

	"github.com/cairn-dev/cairn/internal/testutil"
)

// ranWithoutRace runs the calling test again in a child test binary built
// without the race detector when this binary has it, fails t if the child
// does, and reports whether it ran there (the caller then returns).
//
// It is for the tests of pure functions on one goroutine (the fused
// analyzers held to bleve's chains on every transcript line and on random
// inputs, the stemmer, the rune tables, the linear-time check): the race
// detector finds nothing there and multiplies their cost 5–10x. The same
// inputs are checked, all of them, only by a binary without it; the
// analyzers' concurrency keeps its own tests under -race
// (TestCodeAnalyzerConcurrent, TestEnglishAnalyzerConcurrent).
func ranWithoutRace(t *testing.T) bool {
	t.Helper()
	if !raceEnabled {
		return false
	}
	withoutRace.RanAlone(t)
	return true
}

// withoutRace is the package's tests built without the race detector,
// under benchRoot (TestMain removes it).
var withoutRace = testutil.WithoutRace{Dir: func(testing.TB) string { return benchRoot }}
