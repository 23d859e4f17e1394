package app_test

import (
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/app"
	"github.com/cairn-dev/cairn/internal/testutil"
)

// TestReadOnlyDataDirSaysSo: a data dir cairn cannot write names the folder
// and what to do, instead of "creating …: permission denied".
func TestReadOnlyDataDirSaysSo(t *testing.T) {
	dir := testutil.ReadOnlyDir(t)
	_, err := app.Open(app.Paths{DataDir: dir, ClaudeDir: t.TempDir()}, app.Options{})
	if err == nil {
		t.Fatal("opened a store in a read-only folder")
	}
	want := "cannot write to " + dir + ": read-only; set --data or CAIRN_HOME"
	if !strings.Contains(err.Error(), want) {
		t.Fatalf("error %q lacks %q", err, want)
	}
}
