package transcripts

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/cairn-dev/cairn/internal/testutil"
)

// sampleDir is the bundled sample Claude config dir.
func sampleDir() string { return filepath.Join(testutil.RepoRoot(), "testdata", "claude") }

// sharedCorpus returns ../shared/corpus/claude when present.
func sharedCorpus(t testing.TB) string {
	d := filepath.Join(testutil.RepoRoot(), "..", "shared", "corpus", "claude")
	if _, err := os.Stat(filepath.Join(d, "projects")); err != nil {
		t.Skip("shared corpus not present")
	}
	return d
}

func writeFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
