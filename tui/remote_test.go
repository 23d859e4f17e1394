package tui

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/index"
)

// A session synced from another machine (cairn remote) is marked with that
// machine's name in the Timeline, and r never resumes it here: its files
// are on the other machine, not in this machine's Claude Code.
func TestImportedSessionMarkedNotResumed(t *testing.T) {
	ctx := context.Background()
	st := testStore(t)
	// A copy of a sample session, as cairn remote unpacks one from
	// "laptop": its own id, under the store's imports.
	var src string
	_ = filepath.WalkDir(filepath.Join(sampleDir, "projects"), func(p string, d os.DirEntry, err error) error {
		if err == nil && src == "" && !d.IsDir() && strings.HasSuffix(p, ".jsonl") && !strings.Contains(p, "subagents") {
			src = p
		}
		return nil
	})
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	// Every uuid (the session's, each line's) made its own: the store
	// keeps one copy of a line, whichever session holds it.
	uuid := regexp.MustCompile(`[0-9a-f]{8}(-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})`)
	newID := uuid.ReplaceAllString(strings.TrimSuffix(filepath.Base(src), ".jsonl"), "0a0a0a0a$1")
	dst := filepath.Join(st.MachineDir("laptop"), "projects", filepath.Base(filepath.Dir(src)), newID+".jsonl")
	if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, uuid.ReplaceAll(b, []byte("0a0a0a0a$1")), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Sync(ctx, st.MachineDir("laptop"), index.SyncOptions{}); err != nil {
		t.Fatal(err)
	}
	m := newTestModel(t, 120, 40, st, nil)
	m.cfg.LookPath = func(string) (string, error) { return "/bin/true", nil }
	press(t, m, "2")
	mustContain(t, screen(m), "@laptop · ")
	found := false
	for i, r := range m.timeline.rows {
		if r.s != nil && r.s.ID == newID {
			m.timeline.list.set(i)
			found = true
		}
	}
	if !found {
		t.Fatal("the imported session is not in the timeline")
	}
	r := m.timeline.selected()
	r.CWD = t.TempDir() // a folder that exists here too: still not resumed
	_, cmd := m.Update(keyMsg("r"))
	run(t, m, cmd)
	mustContain(t, m.status.flash, "ran on laptop", "claude --resume "+newID)
}
