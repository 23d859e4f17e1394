package fts

import (
	"testing"

	"github.com/cairn-dev/cairn/internal/testutil"
)

// withoutRace is the package's tests built without the race detector,
// under benchRoot (TestMain removes it). Under -race, withoutRace.RanAlone
// runs there the tests of pure functions on one goroutine (the fused
// analyzers held to bleve's chains on every transcript line and on random
// inputs, the stemmer, the rune tables, the linear-time check) and the
// full-disk trials (each child's answer is checked, not an interleaving):
// the race detector finds nothing there and multiplies their cost 5–10x.
// The same inputs are checked, all of them, only by a binary without it;
// the analyzers' concurrency keeps its own tests under -race
// (TestCodeAnalyzerConcurrent, TestEnglishAnalyzerConcurrent).
var withoutRace = testutil.WithoutRace{Dir: func(testing.TB) string { return benchRoot }}
