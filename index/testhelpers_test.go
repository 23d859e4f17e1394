package index

import (
	"path/filepath"
	"testing"
)

// syncedSample copies the sample tree and syncs a fresh store from it.
func syncedSample(t *testing.T) (claude string, s *Store) {
	t.Helper()
	claude = copyTree(t, sampleDir)
	s, _ = openStore(t)
	mustSync(t, s, claude, SyncOptions{})
	return claude, s
}

// subprocessSetup skips in -short mode; otherwise it returns the sample
// tree grown n times and a data folder for child syncs to share.
func subprocessSetup(t *testing.T, n int) (claude, data string) {
	t.Helper()
	if testing.Short() {
		t.Skip("subprocess test")
	}
	return grownTree(t, sampleDir, n), filepath.Join(t.TempDir(), "data")
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
