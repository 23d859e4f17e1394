package memories

import (
	"os"
	"path/filepath"
	"sync"
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

// shared is the folder of what the package's tests share (the non-race
// binary, the stores built once: storeTemplate), made on first use and
// removed by TestMain.
var shared struct {
	once sync.Once
	dir  string
	err  error
}

// sharedDir is name's path under the shared folder.
func sharedDir(t testing.TB, name string) string {
	t.Helper()
	shared.once.Do(func() { shared.dir, shared.err = os.MkdirTemp("", "cairn-memories-test-") })
	if shared.err != nil {
		t.Fatal(shared.err)
	}
	return filepath.Join(shared.dir, name)
}

func TestMain(m *testing.M) {
	code := m.Run()
	if shared.dir != "" {
		os.RemoveAll(shared.dir)
	}
	os.Exit(code)
}
