package memories

import (
	"os"
	"testing"

	"github.com/cairn-dev/cairn/internal/testutil"
)

// withoutRace is the package's tests built without the race detector, in
// the shared folder TestMain removes. Under -race, withoutRace.RanAlone runs there
// the tests that prove a bound on a large store built on one goroutine (a
// thousand corrections of one memory, ten thousand memories consolidated):
// the race detector finds nothing there and made them 5–10x slower, or
// smaller. The store's concurrency keeps its tests under -race
// (TestSyncConcurrentProcesses, TestSyncConcurrentWriters).
var withoutRace = testutil.WithoutRace{Dir: func(t testing.TB) string { return sharedDir(t, "norace") }}

// shared is the package's folder for what its tests share (the non-race
// binary, the stores built once), removed by TestMain.
var shared = testutil.SharedDir{Prefix: "cairn-memories-test-"}

// sharedDir is name's path under the shared folder.
func sharedDir(t testing.TB, name string) string { return shared.Path(t, name) }

func TestMain(m *testing.M) {
	code := m.Run()
	shared.Remove()
	os.Exit(code)
}
