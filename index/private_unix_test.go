//go:build unix

package index

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestStoreIsPrivate: Unix permission bits only (Windows has ACLs).
func TestStoreIsPrivate(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	s, dir := openStore(t)
	mustSync(t, s, sampleDir, SyncOptions{})
	for path, want := range map[string]os.FileMode{dir: 0o700, filepath.Join(dir, DBName): 0o600, filepath.Join(dir, DBName+"-wal"): 0o600} {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got != want {
			t.Errorf("%s: mode %v, want %v", path, got, want)
		}
	}
}
