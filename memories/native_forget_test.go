package memories

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/cairn-dev/cairn/index"
)

// Issue 29 item 4: import-claude (and extract, which runs it) never reads
// again the memory files of a forgotten project, nor a forgotten
// session's session-memory summary.
func TestImportClaudeMemorySkipsForgotten(t *testing.T) {
	ctx := context.Background()
	const sid = "72222222-2222-4333-8444-555555555555"
	s, tr, claude := transcriptService(t, sid)
	tr.user("hello there, let us start")
	tr.write(t, s, claude)
	pdir := filepath.Join(claude, "projects", "-work-proj")
	os.MkdirAll(filepath.Join(pdir, "memory"), 0o755)
	os.WriteFile(filepath.Join(pdir, "memory", "MEMORY.md"), []byte("- The API server listens on port 8420 in development\n"), 0o644)
	os.MkdirAll(filepath.Join(pdir, sid, "session-memory"), 0o755)
	os.WriteFile(filepath.Join(pdir, sid, "session-memory", "summary.md"), []byte("## Completed\n- Added the cache layer\n"), 0o644)

	// The session forgotten: its summary is not imported, the project's
	// memory file still is.
	if _, err := s.st.Forget(ctx, index.ForgetTarget{Session: sid}); err != nil {
		t.Fatal(err)
	}
	res, err := s.Sync.ImportClaudeMemory(ctx, claude, false)
	if err != nil || res.Summaries != 0 || len(res.Proposed) != 1 {
		t.Fatalf("import after forgetting the session: %v %+v", err, res)
	}
	if err := s.st.Mem().Purge(ctx, res.Proposed[0].Memory.ID); err != nil {
		t.Fatal(err)
	}
	// The project forgotten: nothing of it is read.
	if _, err := s.st.Forget(ctx, index.ForgetTarget{Project: "/work/proj"}); err != nil {
		t.Fatal(err)
	}
	res, err = s.Sync.ImportClaudeMemory(ctx, claude, false)
	if err != nil || res.Files != 0 || len(res.Proposed) != 0 || res.Summaries != 0 {
		t.Fatalf("import after forgetting the project: %v %+v", err, res)
	}
	if ms, _ := s.List(ctx, Filter{}); len(ms) != 0 {
		t.Fatalf("%d memories of a forgotten project", len(ms))
	}
}
