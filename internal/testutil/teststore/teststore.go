// Package teststore opens index stores for tests of several packages. It
// is apart from testutil because the index package's own tests import
// testutil, and testutil importing index would make a cycle. Only tests
// import it.
package teststore

import (
	"context"
	"testing"

	"github.com/cairn-dev/cairn/index"
)

// Open opens an empty store in a temp dir, closed when the test ends.
func Open(t testing.TB) *index.Store {
	t.Helper()
	st, err := index.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// Synced is Open with the transcripts under claudeDir synced in.
func Synced(t testing.TB, claudeDir string) *index.Store {
	t.Helper()
	st := Open(t)
	if _, err := st.Sync(context.Background(), claudeDir, index.SyncOptions{}); err != nil {
		t.Fatal(err)
	}
	return st
}
