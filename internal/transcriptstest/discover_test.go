package transcriptstest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/internal/testutil"
	"github.com/cairn-dev/cairn/transcripts"
)

func TestDiscoverSymlinkLoopsAndUnreadable(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "projects", "-w-app")
	testutil.WriteFile(t, filepath.Join(p, "s1.jsonl"), testutil.UserLine("u1", "s1", "hello"))
	// A loop back to projects/, a self-loop, and a dangling .jsonl link.
	must(t, os.Symlink(filepath.Join(dir, "projects"), filepath.Join(p, "loop")))
	must(t, os.Symlink(filepath.Join(dir, "projects", "self"), filepath.Join(dir, "projects", "self")))
	must(t, os.Symlink(filepath.Join(dir, "missing.jsonl"), filepath.Join(p, "dangling.jsonl")))
	must(t, os.MkdirAll(filepath.Join(p, "s1", "subagents"), 0o755))
	must(t, os.Symlink(filepath.Join(p, "s1"), filepath.Join(p, "s1", "subagents", "agent-x.jsonl")))
	tree, err := transcripts.Discover(dir)
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
	testutil.WriteFile(t, filepath.Join(p, "s1.jsonl"), testutil.UserLine("u1", "s1", "hello"))
	testutil.WriteFile(t, filepath.Join(p, "s2.jsonl"), testutil.UserLine("u2", "s2", "world"))
	tree, err := transcripts.Discover(dir)
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
