package index

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// TestMain removes the fixtures the package's tests share (the eval
// store, the restore fixture's stores) once they have all run.
func TestMain(m *testing.M) {
	code := m.Run()
	closeEvalStore()
	if shared.dir != "" {
		os.RemoveAll(shared.dir)
	}
	os.Exit(code)
}

// shared is the folder of the fixtures built once per package: under the
// race detector a store built per test cost minutes of the suite.
var shared struct {
	mu  sync.Mutex
	dir string
}

// sharedDir returns a new folder name under the package's shared folder
// (made on first use).
func sharedDir(t testing.TB, name string) string {
	t.Helper()
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if shared.dir == "" {
		d, err := os.MkdirTemp("", "cairn-index-test-")
		if err != nil {
			t.Fatal(err)
		}
		shared.dir = d
	}
	return filepath.Join(shared.dir, name)
}

// copyStoreDir copies a closed store's folder (as `cp -a` would: the
// modes kept) so a test can change it.
func copyStoreDir(t testing.TB, src, dst string) {
	t.Helper()
	err := filepath.Walk(src, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if fi.IsDir() {
			return os.MkdirAll(target, fi.Mode().Perm())
		}
		return copyFileMode(p, target, fi)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func copyFileMode(src, dst string, fi os.FileInfo) error {
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	if err := os.WriteFile(dst, b, fi.Mode().Perm()); err != nil {
		return err
	}
	return os.Chtimes(dst, fi.ModTime(), fi.ModTime())
}
