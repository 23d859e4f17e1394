package memories

import (
	"os"
	"sync"
	"testing"

	"github.com/cairn-dev/cairn/internal/testutil"
)

// withoutRace is the package's tests built without the race detector, in
// a folder TestMain removes.
var withoutRace = testutil.WithoutRace{Dir: func(t testing.TB) string {
	noRaceDir.once.Do(func() { noRaceDir.dir, noRaceDir.err = os.MkdirTemp("", "cairn-memories-norace-") })
	if noRaceDir.err != nil {
		t.Fatal(noRaceDir.err)
	}
	return noRaceDir.dir
}}

var noRaceDir struct {
	once sync.Once
	dir  string
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if noRaceDir.dir != "" {
		os.RemoveAll(noRaceDir.dir)
	}
	os.Exit(code)
}

// ranWithoutRace runs the calling test alone in a child test binary built
// without the race detector when this binary has it, fails t unless it
// passed there, and reports whether it ran there (the caller then
// returns). It is for tests that prove a bound on a large store built on
// one goroutine (a thousand corrections of one memory, ten thousand
// memories consolidated): the race detector finds nothing there and made
// them 5–10x slower, or smaller. The store's concurrency keeps its tests
// under -race (TestSyncConcurrentProcesses, TestSyncConcurrentWriters).
func ranWithoutRace(t *testing.T) bool {
	t.Helper()
	if !raceEnabled {
		return false
	}
	withoutRace.RanAlone(t)
	return true
}
