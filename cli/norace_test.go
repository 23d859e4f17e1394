package cli

import "github.com/cairn-dev/cairn/internal/testutil"

// withoutRace is the package's tests built without the race detector, in
// the folder the package's tests share. The tests that read and compare
// whole corpora of real transcripts through the commands, one command at a
// time (the export round trip, the independent counts of the
// claude-code-log and shared corpora), run there under -race
// (withoutRace.RanAlone): the race detector finds nothing there and
// multiplied their cost 5–10x; the same corpora and checks run, all of
// them, without it. The store's concurrency keeps its own tests under
// -race (index, app, hook), and so do the commands on the bundled sample
// here.
var withoutRace = testutil.WithoutRace{Dir: sharedDirRoot}

// sharedCorpusTests read the one `cairn sessions --json` of the shared
// corpus (sharedCorpusSessions): they run together without -race
// (withoutRace.RanWith), so it is made once, there.
var sharedCorpusTests = []string{"TestSharedCorpusTwelveSessions", "TestSharedCorpusAgreesWithIndependentCount"}
