package cli

import (
	"os"
	"path/filepath"
	"testing"
)

// A cairn binary that lives under $TMPDIR (CI runners, scratch installs)
// is installable; only `go run` builds are refused: those in a go command's
// work dir or in the Go build cache.
func TestInstallBinaryTempDirIsNotGoRun(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	cache := filepath.Join(t.TempDir(), "gocache")
	t.Setenv("GOCACHE", cache)
	exe := func(parts ...string) string {
		p := filepath.Join(parts...)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, p := range []string{exe(tmp, "tools", "bin", "cairn"), exe(tmp, "go-builds", "cairn")} {
		if _, err := checkInstallBinary(p, false); err != nil {
			t.Errorf("%s refused: %v", p, err)
		}
	}
	for _, p := range []string{exe(tmp, "go-build123456", "b001", "exe", "cairn"), exe(cache, "ab", "cd1234-d", "cairn")} {
		if _, err := checkInstallBinary(p, false); err == nil {
			t.Errorf("%s (a go run build) accepted", p)
		}
		if _, err := checkInstallBinary(p, true); err != nil {
			t.Errorf("%s refused for a dry run: %v", p, err)
		}
	}
}
