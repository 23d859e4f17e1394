package mcpserver

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/cairn-dev/cairn/index"
	"github.com/cairn-dev/cairn/internal/testutil"
)

// shared is the package's folder for what its tests share (the store
// synced from the sample once), removed by TestMain.
var shared = testutil.SharedDir{Prefix: "cairn-mcpserver-test-"}

func TestMain(m *testing.M) {
	code := m.Run()
	shared.Remove()
	os.Exit(code)
}

// sampleTemplate is the bundled sample synced into a store once for the
// package (closed after): the tests synced it for themselves, 26 syncs of
// about 4 s apiece under the race detector.
var sampleTemplate struct {
	once sync.Once
	dir  string
	err  error
}

// syncedSample is a store of the test's own, opened on a copy of the
// shared store synced from the bundled sample, closed when the test ends.
// The sample is the repository's (no test writes it), at the path the
// shared store read, and the store knows its files by path, size and
// modification time: what the copy holds, and what a later sync finds
// changed, are those of a sync the test ran itself.
func syncedSample(t testing.TB) *index.Store {
	t.Helper()
	tpl := &sampleTemplate
	tpl.once.Do(func() {
		dir := shared.Path(t, "sample-data")
		st, err := index.Open(dir)
		if err != nil {
			tpl.err = err
			return
		}
		_, err = st.Sync(context.Background(), sample(), index.SyncOptions{})
		if cerr := st.Close(); err == nil {
			err = cerr
		}
		tpl.dir, tpl.err = dir, err
	})
	if tpl.err != nil {
		t.Fatalf("syncing the sample into the shared store: %v", tpl.err)
	}
	dst := filepath.Join(t.TempDir(), "data")
	if err := testutil.CopyDir(tpl.dir, dst); err != nil {
		t.Fatal(err)
	}
	st, err := index.Open(dst)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}
