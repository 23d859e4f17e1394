package memories

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/index"
)

func TestImportClaudeMemory(t *testing.T) {
	ctx := context.Background()
	s, tr, claude := transcriptService(t, "71111111-2222-4333-8444-555555555555")
	tr.user("hello there, let us start")
	tr.write(t, s, claude)
	pdir := filepath.Join(claude, "projects", "-work-proj")
	mem := filepath.Join(pdir, "memory")
	os.MkdirAll(mem, 0o755)
	files := map[string]string{
		"MEMORY.md":    "# Memory index\n\n- [Testing notes](testing.md)\n- The API server listens on port 8420 in development\n",
		"testing.md":   "## Gotchas\n\n- Integration tests need `docker compose up db` first\n- Never run the e2e suite against production\n",
		"decisions.md": "## Decisions\n\n- We chose SQLite over Postgres for the local cache\n",
	}
	for name, body := range files {
		os.WriteFile(filepath.Join(mem, name), []byte(body), 0o644)
	}
	smDir := filepath.Join(pdir, tr.sid, "session-memory")
	os.MkdirAll(smDir, 0o755)
	os.WriteFile(filepath.Join(smDir, "summary.md"), []byte("## Completed\n- Added the cache layer\n"), 0o644)
	before := map[string][]byte{}
	for name := range files {
		before[name], _ = os.ReadFile(filepath.Join(mem, name))
	}
	dry, err := s.Sync.ImportClaudeMemory(ctx, claude, true)
	if err != nil || len(dry.Proposed) != 4 {
		t.Fatalf("dry run: %v %+v", err, dry)
	}
	if ms, _ := s.List(ctx, Filter{}); len(ms) != 0 {
		t.Fatal("dry run stored memories")
	}
	res, err := s.Sync.ImportClaudeMemory(ctx, claude, false)
	if err != nil || res.Files != 3 || len(res.Proposed) != 4 || res.Summaries != 1 {
		t.Fatalf("import: %v %+v", err, res)
	}
	types := map[Type]string{}
	for _, r := range res.Proposed {
		m := r.Memory
		types[m.Type] += m.Content + "\n"
		if m.Status != Pending || m.Origin != OriginClaudeMemory || m.Project != "/work/proj" {
			t.Fatalf("memory: %+v", m)
		}
	}
	if !strings.Contains(types[Gotcha], "docker compose") || !strings.Contains(types[Decision], "SQLite over Postgres") ||
		!strings.Contains(types[Fact], "port 8420") {
		t.Fatalf("types: %v", types)
	}
	// Again: de-duplicated (bumped), nothing new.
	again, err := s.Sync.ImportClaudeMemory(ctx, claude, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range again.Proposed {
		if r.Action == ActionAdded {
			t.Fatalf("re-import added %q", r.Memory.Content)
		}
	}
	if ms, _ := s.List(ctx, Filter{}); len(ms) != 4 {
		t.Fatalf("%d memories after re-import", len(ms))
	}
	for name := range files {
		if after, _ := os.ReadFile(filepath.Join(mem, name)); string(after) != string(before[name]) {
			t.Fatalf("%s was modified", name)
		}
	}
	sum, err := s.Drafts.Summary(ctx, tr.sid)
	if err != nil || sum.Source != "claude-session-memory" || len(sum.Sections["Completed"]) != 1 {
		t.Fatalf("session memory summary: %v %+v", err, sum)
	}
}

// TestImportClaudeMemoryOfAWorktree: Claude Code's memory file in a
// worktree's transcript folder is filed under the repository, as the
// worktree's sessions are.
func TestImportClaudeMemoryOfAWorktree(t *testing.T) {
	ctx := context.Background()
	claude := t.TempDir()
	if err := os.CopyFS(claude, os.DirFS(sampleDir)); err != nil {
		t.Fatal(err)
	}
	mem := filepath.Join(claude, "projects", "-home-marco-projects-spotter-worktrees-spotter-4te", "memory")
	os.MkdirAll(mem, 0o755)
	os.WriteFile(filepath.Join(mem, "MEMORY.md"), []byte("- The LiveView tests need the Ecto sandbox allowed for the socket process\n"), 0o644)
	s := newService(t)
	if _, err := s.st.Sync(ctx, claude, index.SyncOptions{}); err != nil {
		t.Fatal(err)
	}
	res, err := s.Sync.ImportClaudeMemory(ctx, claude, false)
	if err != nil || len(res.Proposed) != 1 {
		t.Fatalf("import: %v %+v", err, res)
	}
	if p := res.Proposed[0].Memory.Project; p != "/home/USER/projects/spotter" {
		t.Errorf("filed under %s, want the repository /home/USER/projects/spotter", p)
	}
}
