// Package teststore opens index stores for tests of several packages. It
// is apart from testutil because the index package's own tests import
// testutil, and testutil importing index would make a cycle. Only tests
// import it.
package teststore

import (
	"context"
	"path/filepath"
	"sync"
	"testing"

	"github.com/cairn-dev/cairn/index"
	"github.com/cairn-dev/cairn/internal/testutil"
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

// Template is a store built once per package and copied for each test
// that asks for it (a sync of a sample under -race costs seconds; a copy
// of its folder, milliseconds). The files a build reads must be the
// repository's, never changed, at the path the build read them: the copy
// is then the store the test's own build would have made.
type Template struct {
	once sync.Once
	dir  string
	ok   bool
}

// Copy builds the template as name under shared on first use (build runs
// on a store opened there, closed after) and returns a copy of its folder
// in a temp dir of t's.
func (tpl *Template) Copy(t testing.TB, shared *testutil.SharedDir, name string, build func(*index.Store) error) string {
	t.Helper()
	tpl.once.Do(func() {
		dir := shared.Path(t, name)
		st, err := index.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		err = build(st)
		if cerr := st.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			t.Fatal(err)
		}
		tpl.dir, tpl.ok = dir, true
	})
	if !tpl.ok {
		t.Fatalf("the shared %s store could not be built (see the first test that used it)", name)
	}
	dst := filepath.Join(t.TempDir(), name)
	if err := testutil.CopyDir(tpl.dir, dst); err != nil {
		t.Fatal(err)
	}
	return dst
}

// Open is Copy opened as a store, closed when the test ends.
func (tpl *Template) Open(t testing.TB, shared *testutil.SharedDir, name string, build func(*index.Store) error) *index.Store {
	t.Helper()
	st, err := index.Open(tpl.Copy(t, shared, name, build))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}
