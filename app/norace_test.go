package app_test

import (
	"os"
	"testing"

	"github.com/cairn-dev/cairn/internal/testutil"
)

// withoutRace is the package's tests built without the race detector, in
// a folder TestMain removes. Under -race, the tests that check what a
// forget, an opt-out, an extraction or an export leaves in the data dir —
// the sample indexed, then read and compared on the test's one goroutine —
// run there (withoutRace.RanAlone, RanWith): the race detector finds
// nothing in what they check and made them 5–10x slower. The same inputs
// and checks run, all of them. What the race detector does check keeps its
// tests under it: the pipeline of every profile
// (TestEveryProfileHonoursEmbedderKind, TestHookProfile…), a forget with
// vectors and a model (TestForgetSessionLeavesNoTrace), a backup while
// another goroutine writes (TestBackupRestoreRoundTrip) and the other
// backup tests; the index package's own tests cover its sync's and
// update's goroutines.
var withoutRace = testutil.WithoutRace{Dir: func(t testing.TB) string { return sharedDir(t, "norace") }}

// shared is the package's folder for what its tests share (the non-race
// binary, the stores built once), removed by TestMain.
var shared = testutil.SharedDir{Prefix: "cairn-app-test-"}

// sharedDir is name's path under the shared folder.
func sharedDir(t testing.TB, name string) string { return shared.Path(t, name) }

func TestMain(m *testing.M) {
	code := m.Run()
	shared.Remove()
	os.Exit(code)
}
