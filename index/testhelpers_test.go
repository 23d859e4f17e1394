package index

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/cairn-dev/cairn/internal/testutil"
)

// bigProject is the sample's largest project folder: one 2.7 MB session
// (ae4a77f8, with two subagents and a compaction), two thirds of the
// sample's bytes.
const bigProject = "-home-marco-projects-spotter-worktrees-spotter-4te"

// copySmallSample copies the sample tree without bigProject, for the
// tests whose property does not depend on the store's size (a kill, a
// restore, a rebuild, a damaged value): the rest still has sessions of
// every size down from 775 KB (read in many batches), a folder of
// subagents whose main file is missing, agent files at the top of a
// project and three projects, in a third of the bytes, so every store built, synced, drained, restored or
// rebuilt from it costs a third under the race detector.
func copySmallSample(t testing.TB) string {
	t.Helper()
	return copySmallSampleTo(t, filepath.Join(t.TempDir(), "claude"))
}

// copySmallSampleTo is copySmallSample into dst.
func copySmallSampleTo(t testing.TB, dst string) string {
	t.Helper()
	if err := testutil.CopyDir(sampleDir, dst); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(dst, "projects", bigProject)); err != nil {
		t.Fatal(err)
	}
	return dst
}

// syncedSample is a copy of the sample tree and a store synced from it
// (a copy of the package's one: sharedSample).
func syncedSample(t *testing.T) (claude string, s *Store) {
	t.Helper()
	s, _, claude, _ = sharedSample(t, "synced", func(s *Store, claude string) (UpdateStats, error) {
		st, err := s.Sync(context.Background(), claude, SyncOptions{})
		return UpdateStats{Sync: st}, err
	})
	return claude, s
}

// sharedSample is a store that build made from the sample, built once
// per package for each key (a sync, an Update with or without the
// built-in embedder: a sync, the full-text index, training and every
// vector; 21 tests each ran one, 5–20 s apiece under the race detector),
// with build's stats. Each test gets a copy of that store's folder and a
// fresh copy of the sample at the path the store read (it knows its
// files by path, size and modification time, all kept), so what the store
// holds and what the next sync finds changed are those of a store the
// test built itself. The path is held by one test at a time, until its
// cleanup.
func sharedSample(t *testing.T, key string, build func(s *Store, claude string) (UpdateStats, error)) (s *Store, dir, claude string, st UpdateStats) {
	t.Helper()
	u := &sampleShared
	u.claudeInUse.Lock()
	t.Cleanup(u.claudeInUse.Unlock) // after the store's Close (cleanups run last first)
	claude = sharedDir(t, "sample-claude")
	if err := os.RemoveAll(claude); err != nil {
		t.Fatal(err)
	}
	if err := testutil.CopyDir(sampleDir, claude); err != nil {
		t.Fatal(err)
	}
	u.mu.Lock()
	tpl := u.byKey[key]
	if tpl == nil {
		tpl = &sampleTemplate{data: sharedDir(t, "sample-data-"+key)}
		func() {
			ts, err := Open(tpl.data)
			if err != nil {
				tpl.err = err
				return
			}
			tpl.st, tpl.err = build(ts, claude)
			if err := ts.Close(); tpl.err == nil {
				tpl.err = err
			}
		}()
		if u.byKey == nil {
			u.byKey = map[string]*sampleTemplate{}
		}
		u.byKey[key] = tpl
	}
	u.mu.Unlock()
	if tpl.err != nil {
		t.Fatalf("building the shared sample store %s: %v", key, tpl.err)
	}
	dir = filepath.Join(t.TempDir(), "data")
	copyStoreDir(t, tpl.data, dir)
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, dir, claude, tpl.st
}

var sampleShared struct {
	claudeInUse sync.Mutex // the sample's copy at the templates' path
	mu          sync.Mutex
	byKey       map[string]*sampleTemplate
}

type sampleTemplate struct {
	data string // the closed store's folder
	st   UpdateStats
	err  error
}

// subprocessSetup skips in -short mode; otherwise it returns the small
// sample (copySmallSample) grown n times and a data folder for child
// syncs to share.
func subprocessSetup(t *testing.T, n int) (claude, data string) {
	t.Helper()
	if testing.Short() {
		t.Skip("subprocess test")
	}
	return grownTree(t, copySmallSample(t), n), filepath.Join(t.TempDir(), "data")
}

// mustOpenVecCache opens the vector cache at path for embedder, closed at
// cleanup.
func mustOpenVecCache(t testing.TB, path, embedder string) *VecCache {
	t.Helper()
	c, err := OpenVecCache(path, embedder)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}
