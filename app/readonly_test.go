package app_test

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/app"
)

// readOnlyDir is a folder this process cannot write in: a 0500 folder, or,
// for root (whom permissions do not stop), a folder under /sys, which is
// read-only to everyone.
func readOnlyDir(t *testing.T) string {
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

// TestReadOnlyDataDirSaysSo: a data dir cairn cannot write names the folder
// and what to do, instead of "creating …: permission denied".
func TestReadOnlyDataDirSaysSo(t *testing.T) {
	dir := readOnlyDir(t)
	_, err := app.Open(app.Paths{DataDir: dir, ClaudeDir: t.TempDir()}, app.Options{})
	if err == nil {
		t.Fatal("opened a store in a read-only folder")
	}
	want := "cannot write to " + dir + ": read-only; set --data or CAIRN_HOME"
	if !strings.Contains(err.Error(), want) {
		t.Fatalf("error %q lacks %q", err, want)
	}
}
