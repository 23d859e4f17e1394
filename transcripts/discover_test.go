package transcripts

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDiscoverSample(t *testing.T) {
	tree, err := Discover(sampleDir())
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

func TestDiscoverSymlinkLoopsAndUnreadable(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "projects", "-w-app")
	writeFile(t, filepath.Join(p, "s1.jsonl"), userLine("u1", "s1", "hello"))
	// A loop back to projects/, a self-loop, and a dangling .jsonl link.
	must(t, os.Symlink(filepath.Join(dir, "projects"), filepath.Join(p, "loop")))
	must(t, os.Symlink(filepath.Join(dir, "projects", "self"), filepath.Join(dir, "projects", "self")))
	must(t, os.Symlink(filepath.Join(dir, "missing.jsonl"), filepath.Join(p, "dangling.jsonl")))
	must(t, os.MkdirAll(filepath.Join(p, "s1", "subagents"), 0o755))
	must(t, os.Symlink(filepath.Join(p, "s1"), filepath.Join(p, "s1", "subagents", "agent-x.jsonl")))
	tree, err := Discover(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(tree.Projects) != 1 || len(tree.Files()) != 1 {
		t.Fatalf("projects %d files %d", len(tree.Projects), len(tree.Files()))
	}
	if len(tree.Problems) != 1 || !strings.Contains(tree.Problems[0].Error(), "dangling.jsonl") {
		t.Fatalf("problems %v", tree.Problems)
	}
	res, err := Scan(context.Background(), tree, 2)
	if err != nil || len(res.Sessions) != 1 {
		t.Fatalf("scan: %v %d", err, len(res.Sessions))
	}
}

func TestUnreadableFileReportedOthersContinue(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "projects", "-w-app")
	writeFile(t, filepath.Join(p, "s1.jsonl"), userLine("u1", "s1", "hello"))
	writeFile(t, filepath.Join(p, "s2.jsonl"), userLine("u2", "s2", "world"))
	tree, err := Discover(dir)
	if err != nil {
		t.Fatal(err)
	}
	// Replace a discovered file by a folder so reading it fails even as root.
	must(t, os.Remove(filepath.Join(p, "s1.jsonl")))
	must(t, os.Mkdir(filepath.Join(p, "s1.jsonl"), 0o755))
	res, err := Scan(context.Background(), tree, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Sessions) != 1 || res.Sessions[0].ID != "s2" || len(res.Problems) != 1 {
		t.Fatalf("sessions %d problems %v", len(res.Sessions), res.Problems)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestDiscoverMemoryAndSessionMemory(t *testing.T) {
	dir := t.TempDir()
	long := "-" + strings.Repeat("x", 199) + "-9f8e7d"
	p := filepath.Join(dir, "projects", long)
	writeFile(t, filepath.Join(p, "s1.jsonl"), userLine("u1", "s1", "hi"))
	writeFile(t, filepath.Join(p, "memory", "MEMORY.md"), "# notes\n")
	writeFile(t, filepath.Join(p, "memory", "topic.md"), "x\n")
	writeFile(t, filepath.Join(p, "memory", "ignore.txt"), "x\n")
	writeFile(t, filepath.Join(p, "s1", "session-memory", "summary.md"), "## Summary\n")
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
