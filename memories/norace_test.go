package memories

import (
	"os"
	"sync"
	"testing"

	"github.com/cairn-dev/cairn/internal/testutil"
)

// withoutRace is the package's tests built without the race detector, in
// a folder TestMain removes. Under -race, withoutRace.RanAlone runs there
// the tests that prove a bound on a large store built on one goroutine (a
// thousand corrections of one memory, ten thousand memories consolidated):
// the race detector finds nothing there and made them 5–10x slower, or
// smaller. The store's concurrency keeps its tests under -race
// (TestSyncConcurrentProcesses, TestSyncConcurrentWriters).
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
