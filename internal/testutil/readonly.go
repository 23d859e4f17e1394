package testutil

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// ReadOnlyDir is a data dir path this process cannot create or write: a
// folder inside a 0500 folder or, for root (whom permissions do not stop),
// a folder under /sys, read-only to everyone on Linux.
func ReadOnlyDir(t *testing.T) string {
	t.Helper()
	if os.Geteuid() != 0 {
		d := filepath.Join(t.TempDir(), "ro")
		if err := os.Mkdir(d, 0o500); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = os.Chmod(d, 0o700) })
		return filepath.Join(d, "data")
	}
	if runtime.GOOS != "linux" {
		t.Skip("root outside Linux: no folder is read-only to root")
	}
	return "/sys/cairn-test-data"
}
