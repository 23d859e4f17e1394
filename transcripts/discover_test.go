package transcripts

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/internal/testutil"
)

func TestDiscoverSample(t *testing.T) {
	tree, err := Discover(testutil.SampleClaudeDir())
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[FileKind]int{}
	for _, f := range tree.Files() {
		kinds[f.Kind]++
	}
	if kinds[MainFile] != 7 || kinds[SubagentFile] != 3 || kinds[LegacyAgentFile] != 2 {
		t.Fatalf("kinds %v", kinds)
	}
	if len(tree.Problems) != 0 {
		t.Fatalf("problems %v", tree.Problems)
	}
}

func TestDiscoverMissingDir(t *testing.T) {
	_, err := Discover(filepath.Join(t.TempDir(), "nope"))
	if err == nil || !strings.Contains(err.Error(), "--claude-dir") {
		t.Fatalf("want a helpful error, got %v", err)
	}
}

func TestDiscoverMemoryAndSessionMemory(t *testing.T) {
	dir := t.TempDir()
	long := "-" + strings.Repeat("x", 199) + "-9f8e7d"
	p := filepath.Join(dir, "projects", long)
	testutil.WriteFile(t, filepath.Join(p, "s1.jsonl"), testutil.UserLine("u1", "s1", "hi"))
	testutil.WriteFile(t, filepath.Join(p, "memory", "MEMORY.md"), "# notes\n")
	testutil.WriteFile(t, filepath.Join(p, "memory", "topic.md"), "x\n")
	testutil.WriteFile(t, filepath.Join(p, "memory", "ignore.txt"), "x\n")
	testutil.WriteFile(t, filepath.Join(p, "s1", "session-memory", "summary.md"), "## Summary\n")
	tree, err := Discover(dir)
	if err != nil {
		t.Fatal(err)
	}
	pr := tree.Projects[0]
	if len(pr.MemoryFiles) != 2 || pr.SessionMemory["s1"] == "" {
		t.Fatalf("memory %v session memory %v", pr.MemoryFiles, pr.SessionMemory)
	}
	if !strings.HasSuffix(pr.DecodedPath, "…") {
		t.Fatalf("long name decoded as %q", pr.DecodedPath)
	}
}
