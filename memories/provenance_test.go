package memories

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestSourceFiles: a memory shows the files its source turn edited, and
// whether each changed on disk since, or is gone; a file edited in
// another turn is not its.
func TestSourceFiles(t *testing.T) {
	ctx := context.Background()
	proj := t.TempDir()
	s := newService(t)
	tr := newTranscript("61111111-2222-4333-8444-555555555555", proj)
	tr.t0 = time.Now().Add(-time.Hour).UTC()
	edit := func(path string) {
		id := "toolu_e" + filepath.Base(path)
		tr.add("assistant", []map[string]any{{"type": "tool_use", "id": id, "name": "Edit",
			"input": map[string]any{"file_path": path, "old_string": "a", "new_string": "b"}}})
		tr.add("user", []map[string]any{{"type": "tool_result", "tool_use_id": id, "content": "ok"}})
	}
	tr.user("Set up the deploy script")
	edit(filepath.Join(proj, "other.sh"))
	src := tr.user("No, we deploy with `fly deploy --remote-only`, never build the image locally.")
	edit(filepath.Join(proj, "deploy.sh"))
	edit(filepath.Join(proj, "gone.txt"))
	edit("Makefile")
	tr.assistant("Updated the deploy script.")
	tr.write(t, s, t.TempDir())
	// deploy.sh changed after the turn, Makefile did not, gone.txt is gone.
	for _, f := range []string{"deploy.sh", "Makefile"} {
		if err := os.WriteFile(filepath.Join(proj, f), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	old := tr.t0.Add(-time.Minute)
	if err := os.Chtimes(filepath.Join(proj, "Makefile"), old, old); err != nil {
		t.Fatal(err)
	}
	r, err := s.Add(ctx, NewMemory{Project: proj, Type: Decision, Content: "Deploy with `fly deploy --remote-only`, never build the image locally.",
		SourceSession: tr.sid, SourceUUIDs: []string{src}, Origin: OriginExtractor})
	if err != nil {
		t.Fatal(err)
	}
	files, err := s.SourceFiles(ctx, r.Memory)
	if err != nil {
		t.Fatal(err)
	}
	want := []SourceFile{{Path: "deploy.sh", Changed: true}, {Path: "gone.txt", Missing: true}, {Path: "Makefile"}}
	if len(files) != len(want) {
		t.Fatalf("files %+v, want %+v", files, want)
	}
	for i, w := range want {
		g := files[i]
		if g.Path != w.Path || g.Changed != w.Changed || g.Missing != w.Missing {
			t.Errorf("file %d: %+v, want %+v", i, g, w)
		}
	}
	if got := strings.Join(Stale(files), ", "); got != "deploy.sh (changed), gone.txt (gone)" {
		t.Errorf("Stale: %q", got)
	}
	// A page of results: each memory its own files, the session read once;
	// a memory with no source session, or a forgotten one, has none.
	each, err := s.SourceFilesEach(ctx, []Memory{*r.Memory, {ID: "m-none"}, *r.Memory, {SourceSession: "no-such-session", SourceUUIDs: []string{"x"}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(each) != 4 || len(each[0]) != 3 || len(each[2]) != 3 || each[1] != nil || each[3] != nil {
		t.Fatalf("SourceFilesEach: %+v", each)
	}
}
