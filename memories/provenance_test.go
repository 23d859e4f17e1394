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
	r, err := s.Curator.Add(ctx, NewMemory{Project: proj, Type: Decision, Content: "Deploy with `fly deploy --remote-only`, never build the image locally.",
		SourceSession: tr.sid, SourceUUIDs: []string{src}, Origin: OriginExtractor})
	if err != nil {
		t.Fatal(err)
	}
	files, err := s.Recall.SourceFiles(ctx, r.Memory)
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
	each, err := s.Recall.SourceFilesEach(ctx, []Memory{*r.Memory, {ID: "m-none"}, *r.Memory, {SourceSession: "no-such-session", SourceUUIDs: []string{"x"}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(each) != 4 || len(each[0]) != 3 || len(each[2]) != 3 || each[1] != nil || each[3] != nil {
		t.Fatalf("SourceFilesEach: %+v", each)
	}
}

// TestProvenanceCommands: a command that worked after a failure keeps the
// commands its source entries ran (what the PreToolUse hook matches a
// command about to run against); a decision typed in a prompt ran none.
func TestProvenanceCommands(t *testing.T) {
	ctx := context.Background()
	s := newService(t)
	tr := newTranscript("62111111-2222-4333-8444-555555555555", "/work/proj")
	tr.user("Deploy the app. We always use pnpm instead of npm in this repo.")
	tr.bash("git status", "nothing to commit", false)
	tr.bash("git push", "fatal: The current branch feature has no upstream branch.", true) // git's advice turned off
	tr.bash("git push --set-upstream origin feature", "branch 'feature' set up to track 'origin/feature'.", false)
	tr.assistant("Pushed the branch.")
	tr.write(t, s, t.TempDir())
	if _, err := s.Curator.Extract(ctx, ExtractOptions{}); err != nil {
		t.Fatal(err)
	}
	ms, err := s.List(ctx, Filter{Statuses: []Status{Pending}})
	if err != nil {
		t.Fatal(err)
	}
	prov, err := s.Recall.ProvenanceEach(ctx, ms)
	if err != nil {
		t.Fatal(err)
	}
	var sawCommand, sawDecision bool
	for i, m := range ms {
		t.Logf("%s: %q %+v", m.Type, m.Content, prov[i])
		switch {
		case strings.Contains(m.Content, "--set-upstream"):
			sawCommand = true
			if !slicesContain(prov[i].Commands, "git push --set-upstream origin feature") || slicesContain(prov[i].Commands, "git status") {
				t.Errorf("commands of %q: %q, want the push commands and not git status", m.Content, prov[i].Commands)
			}
		case strings.Contains(m.Content, "pnpm"):
			sawDecision = true
			if len(prov[i].Commands) != 0 {
				t.Errorf("a typed decision ran commands: %q", prov[i].Commands)
			}
		}
	}
	if !sawCommand || !sawDecision {
		t.Fatalf("want the command and the decision proposed, got %d memories", len(ms))
	}
}

func slicesContain(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
