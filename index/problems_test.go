package index

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// A file that could not be read is tried again only once it changed, and
// is not counted as new on every run; a problem is reported once, and
// again only after it went away and came back.
func TestProblemsReportedOncePerChange(t *testing.T) {
	ctx := context.Background()
	claude := copyTree(t, "../testdata/claude")
	s, _ := openStore(t)
	proj := filepath.Join(claude, "projects", "-path-to-Demo")
	bad := filepath.Join(proj, "dangling.jsonl")
	if err := os.Symlink(filepath.Join(proj, "nowhere"), bad); err != nil {
		t.Fatal(err)
	}
	first := mustSync(t, s, claude, SyncOptions{})
	if len(first.Problems) != 1 {
		t.Fatalf("first sync: want the dangling link reported, got %v", first.Problems)
	}
	again := mustSync(t, s, claude, SyncOptions{})
	if len(again.Problems) != 0 || again.FilesNew != 0 {
		t.Fatalf("second sync: %d problems %v, %d new: want none", len(again.Problems), again.Problems, again.FilesNew)
	}
	os.Remove(bad)
	mustSync(t, s, claude, SyncOptions{})
	if err := os.Symlink(filepath.Join(proj, "nowhere"), bad); err != nil {
		t.Fatal(err)
	}
	if back := mustSync(t, s, claude, SyncOptions{}); len(back.Problems) != 1 {
		t.Fatalf("a problem that came back must be reported again: %v", back.Problems)
	}

	// A file whose read failed (remembered at its size and time) is
	// neither new nor read again until it changes.
	var f string
	entries, _ := os.ReadDir(proj)
	for _, e := range entries {
		if filepath.Ext(e.Name()) == ".jsonl" && e.Type().IsRegular() {
			f = filepath.Join(proj, e.Name())
		}
	}
	extra := `{"type":"user","uuid":"f0000000-0000-4000-8000-000000000001","sessionId":"s-failed","timestamp":"2026-01-01T00:00:00Z","cwd":"/w","message":{"role":"user","content":"appended later"}}` + "\n"
	af, err := os.OpenFile(f, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	af.WriteString(extra)
	af.Close()
	old := time.Now().Add(-time.Hour)
	os.Chtimes(f, old, old)
	fi, _ := os.Stat(f)
	memo := s.loadSyncMemo(ctx)
	memo.Failed[f] = fileSig(fi.Size(), fi.ModTime().UnixNano())
	b, _ := json.Marshal(memo)
	if err := s.SetSetting(ctx, syncMemoKey, b); err != nil {
		t.Fatal(err)
	}
	if st := mustSync(t, s, claude, SyncOptions{}); st.FilesChanged != 0 || st.EntriesAdded != 0 {
		t.Fatalf("a file that failed and did not change was read again: %+v", st)
	}
	now := time.Now().Add(-time.Minute)
	os.Chtimes(f, now, now)
	if st := mustSync(t, s, claude, SyncOptions{}); st.FilesChanged != 1 || st.EntriesAdded != 1 {
		t.Fatalf("a failed file that changed must be read again: %+v", st)
	}
}
