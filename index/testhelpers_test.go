package index

import (
	"os"
	"path/filepath"
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

// syncedSample copies the sample tree and syncs a fresh store from it.
func syncedSample(t *testing.T) (claude string, s *Store) {
	t.Helper()
	claude = copyTree(t, sampleDir)
	s, _ = openStore(t)
	mustSync(t, s, claude, SyncOptions{})
	return claude, s
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
