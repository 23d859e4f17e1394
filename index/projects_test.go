package index

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/internal/testutil"
)

// TestProjectRuleOrder: a folder that exists is its repository's; a gone
// folder is what was recorded for it (or a folder above it) while it
// existed, else the worktree naming rule, else, for a session, the folder
// Claude Code was launched in, else itself.
func TestProjectRuleOrder(t *testing.T) {
	s, _ := openStore(t)
	g := testutil.MakeGitRepo(t)
	ctx := t.Context()
	for _, dir := range []string{g.Root, g.Sub, g.Worktree, g.Worktree2} {
		if p, err := s.ProjectFor(ctx, dir); err != nil || p != g.Root {
			t.Errorf("ProjectFor(%s) = %q, %v; want %s", dir, p, err, g.Root)
		}
	}
	// Recorded while it exists, then removed: still the repository, and
	// so are its subfolders.
	scratch := filepath.Join(filepath.Dir(g.Root), "elsewhere", "scratch")
	testutil.Git(t, g.Root, "worktree", "add", "-q", "-b", "scratch", scratch)
	if p, err := s.RecordProject(ctx, scratch); err != nil || p != g.Root {
		t.Fatalf("RecordProject = %q, %v", p, err)
	}
	testutil.Git(t, g.Root, "worktree", "remove", "--force", scratch)
	if ProjectOf(scratch) == g.Root {
		t.Fatal("the file system alone cannot know a removed worktree")
	}
	for _, dir := range []string{scratch, filepath.Join(scratch, "src", "deep")} {
		if p, err := s.ProjectFor(ctx, dir); err != nil || p != g.Root {
			t.Errorf("ProjectFor(%s) after removal = %q, %v; want %s", dir, p, err, g.Root)
		}
	}
	// Gone and never recorded: the naming rule, then the launch folder.
	rule := newProjectRule(s.r, nil, 0)
	for _, c := range []struct{ cwd, folder, want string }{
		{"/gone/app-worktrees/fix/web", "", "/gone/app"},
		{"/gone/app/.claude/worktrees/agent-a1b2", "-gone-app", "/gone/app"},
		{"/gone/demo/todo-app/types", "-gone-demo", "/gone/demo"},
		{"/gone/demo/todo-app", "-unrelated", "/gone/demo/todo-app"},
	} {
		if p, err := rule.of(ctx, c.cwd, c.folder); err != nil || p != filepath.FromSlash(c.want) {
			t.Errorf("of(%s, %s) = %q, %v; want %s", c.cwd, c.folder, p, err, c.want)
		}
	}
}

// TestSchema10RekeysFoldersToRepositories: a store from before projects
// were repositories (sessions, memories, summaries and syntheses filed
// under worktree folders) opens with all of them under the repository,
// the moved sessions' documents queued for the full-text index again.
func TestSchema10RekeysFoldersToRepositories(t *testing.T) {
	s, dir := openStore(t)
	mustSync(t, s, sampleDir, SyncOptions{})
	ctx := t.Context()
	const wt = "/home/USER/projects/spotter-worktrees/spotter-4te"
	const repo = "/home/USER/projects/spotter"
	now := time.Now().UTC()
	if err := s.Mem().Save(ctx, &MemRow{ID: "m-0000beef", Project: wt, Type: "gotcha", Content: "LiveView tests need the sandbox allowance",
		Status: "approved", Created: now, Updated: now}); err != nil {
		t.Fatal(err)
	}
	if err := s.Mem().SetSynthesis(ctx, wt, "# spotter-4te", "{}"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.w.ExecContext(ctx, `DELETE FROM fts_queue`); err != nil {
		t.Fatal(err)
	}
	s2 := reopenAfter(t, s, dir, `PRAGMA user_version = 9`)
	if n := count(t, s2, `SELECT count(*) FROM sessions WHERE project_path = ?`, wt); n != 0 {
		t.Errorf("%d sessions still filed under the worktree", n)
	}
	if n := count(t, s2, `SELECT count(*) FROM sessions WHERE project_path = ? AND cwd = ?`, repo, wt); n != 1 {
		t.Errorf("%d sessions of the worktree under the repository, want 1", n)
	}
	if n := count(t, s2, `SELECT count(*) FROM memories WHERE project = ?`, repo); n != 1 {
		t.Errorf("the memory was not moved to the repository")
	}
	if n := count(t, s2, `SELECT count(*) FROM synthesis WHERE project = ?`, repo); n != 1 {
		t.Errorf("the synthesis was not moved to the repository")
	}
	if n := count(t, s2, `SELECT count(*) FROM fts_queue WHERE doc >= 'e:' AND doc < 'e;'`); n == 0 {
		t.Errorf("the moved sessions' entries were not queued for the full-text index")
	}
	if n := count(t, s2, `SELECT count(*) FROM fts_queue WHERE doc = 'mem:m-0000beef'`); n != 1 {
		t.Errorf("the moved memory was not queued for the full-text index")
	}
	ps, err := s2.Projects(ctx)
	if err != nil || len(ps) != 3 {
		t.Fatalf("projects after migrating: %d, %v", len(ps), err)
	}
	// Once only.
	if n := count(t, s2, `SELECT count(*) FROM kv WHERE key = ?`, rekeyKey); n != 0 {
		t.Errorf("the re-key flag is still set")
	}
}

// TestSyntheticRepliesAreNotClaudes: the assistant lines Claude Code
// writes itself are stored as system lines, flagged, and left out of what
// memories read; in a store indexed before the flag existed they are
// still left out, by their text.
func TestSyntheticRepliesAreNotClaudes(t *testing.T) {
	s, _ := openStore(t)
	mustSync(t, s, "../memories/testdata/synthetic", SyncOptions{})
	ctx := t.Context()
	if n := count(t, s, `SELECT count(*) FROM entries WHERE flags & ? != 0 AND role = 'system' AND type = 'assistant'`, flagSynthetic); n != 3 {
		t.Fatalf("%d synthetic lines stored as system lines, want 3", n)
	}
	check := func(when string) {
		t.Helper()
		for _, sid := range []string{"11111111-aaaa-4bbb-8ccc-000000000001", "11111111-aaaa-4bbb-8ccc-000000000002"} {
			es, err := s.Mem().Entries(ctx, sid, 0, 0)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range es {
				if e.Text == "No response requested." || strings.HasPrefix(e.Text, "Prompt is too long") {
					t.Errorf("%s: %s reads %q", when, sid, e.Text)
				}
			}
		}
	}
	check("flagged")
	if _, err := s.w.ExecContext(ctx, `UPDATE entries_raw SET flags = flags & ~?, role = ? WHERE flags & ? != 0`, flagSynthetic, packKind(roleAssistant), flagSynthetic); err != nil {
		t.Fatal(err)
	}
	check("stored before the flag")
}
