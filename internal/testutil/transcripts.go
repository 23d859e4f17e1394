package testutil

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// SampleClaudeDir is the bundled sample Claude config dir (testdata/claude).
func SampleClaudeDir() string { return filepath.Join(RepoRoot(), "testdata", "claude") }

// SharedCorpus is ../shared/corpus/claude; the test is skipped without it.
func SharedCorpus(t testing.TB) string {
	d := filepath.Join(RepoRoot(), "..", "shared", "corpus", "claude")
	if _, err := os.Stat(filepath.Join(d, "projects")); err != nil {
		t.Skip("shared corpus not present")
	}
	return d
}

// BenchCorpus is $CAIRN_BENCH_CORPUS, else ../shared/corpus/claude, else
// the bundled sample.
func BenchCorpus() string {
	if d := os.Getenv("CAIRN_BENCH_CORPUS"); d != "" {
		return d
	}
	d := filepath.Join(RepoRoot(), "..", "shared", "corpus", "claude")
	if _, err := os.Stat(filepath.Join(d, "projects")); err == nil {
		return d
	}
	return SampleClaudeDir()
}

// WriteFile writes content to path, its folder created; the test fails on
// an error.
func WriteFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// UserLine is a transcript line: the prompt text, with that uuid, in
// session sid.
func UserLine(uuid, sid, text string) string {
	return fmt.Sprintf(`{"type":"user","uuid":%q,"sessionId":%q,"timestamp":"2026-01-02T03:04:05.000Z","message":{"role":"user","content":%q}}`+"\n", uuid, sid, text)
}
