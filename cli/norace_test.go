package cli

import (
	"testing"

	"github.com/cairn-dev/cairn/internal/testutil"
)

// withoutRace is the package's tests built without the race detector, in
// the folder the package's tests share.
var withoutRace = testutil.WithoutRace{Dir: sharedDirRoot}

// ranWithoutRace runs the calling test alone in a child test binary built
// without the race detector when this binary has it, fails t unless it
// passed there, and reports whether it ran there (the caller then
// returns). It is for the tests that read and compare whole corpora of
// real transcripts through the commands, one command at a time (the export
// round trip, the independent counts of the claude-code-log and shared
// corpora): the race detector finds nothing there and multiplied their
// cost 5–10x; the same corpora and checks run, all of them, without it.
// The store's concurrency keeps its own tests under -race (index, app,
// hook), and so do the commands on the bundled sample here.
func ranWithoutRace(t *testing.T) bool {
	t.Helper()
	if !raceEnabled {
		return false
	}
	withoutRace.RanAlone(t)
	return true
}

// sharedCorpusTests read the one `cairn sessions --json` of the shared
// corpus (sharedCorpusSessions): they run together without -race, so it is
// made once, there.
var sharedCorpusTests = []string{"TestSharedCorpusTwelveSessions", "TestSharedCorpusAgreesWithIndependentCount"}

// ranWithoutRaceWith is ranWithoutRace for tests that share a fixture:
// names (t's test among them) run together in the child, once.
func ranWithoutRaceWith(t *testing.T, names ...string) bool {
	t.Helper()
	if !raceEnabled {
		return false
	}
	withoutRace.RanWith(t, names...)
	return true
}
