package index

import (
	"testing"

	"github.com/cairn-dev/cairn/internal/testutil"
)

// evalWithoutRace are the tests on the eval store (evalStore): the
// labelled-set quality tests, measures of ranking (MRR, recall at 1 and 5,
// what is answered), and the rules single searches of it are held to
// (relevance scale, typo fallback, prefix while typing, a query's date),
// functions of the code and the sample only, each on one goroutine. The
// race detector finds nothing there (Search's concurrency has its own
// tests under it: TestConcurrentSyncsAndReader and the search tests) and
// made them a third of the package under -race, mostly SQLite reads under
// checkptr; with all of them here the race binary never builds the eval
// store (a sync, the embedder trained and every vector made, under -race).
var evalWithoutRace = []string{
	"TestSessionRanking", "TestSearchQuality", "TestRelevanceFloor", "TestRelevanceRule",
	"TestRelevanceScale", "TestTypoFallback", "TestPrefixWhileTyping", "TestQueryDateRanksItsSession",
}

// withoutRace is the package's tests built without the race detector,
// under the shared folder TestMain removes.
var withoutRace = testutil.WithoutRace{Dir: func(t testing.TB) string { return sharedDir(t, "norace") }}

// ranWithoutRace runs the calling test (one of evalWithoutRace) in a child
// test binary built without the race detector when this binary has it,
// fails t unless it passed there, and reports whether it ran there (the
// caller then returns). The child runs all of evalWithoutRace once, so the
// eval store is built once, there; each test reports its own result and
// output.
func ranWithoutRace(t *testing.T) bool {
	t.Helper()
	return withoutRace.RanWith(t, evalWithoutRace...)
}
