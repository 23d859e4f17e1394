package mcpserver

import (
	"context"
	"os"
	"testing"

	"github.com/cairn-dev/cairn/index"
	"github.com/cairn-dev/cairn/internal/testutil"
	"github.com/cairn-dev/cairn/internal/testutil/teststore"
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
// package: the tests synced it for themselves, 26 syncs of about 4 s
// apiece under the race detector.
var sampleTemplate teststore.Template

// syncedSample is a store of the test's own, opened on a copy of the
// shared store synced from the bundled sample, closed when the test ends.
func syncedSample(t testing.TB) *index.Store {
	t.Helper()
	return sampleTemplate.Open(t, &shared, "sample-data", func(st *index.Store) error {
		_, err := st.Sync(context.Background(), sample(), index.SyncOptions{})
		return err
	})
}
