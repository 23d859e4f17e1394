package gitrepo

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/cairn-dev/cairn/internal/testutil"
)

func TestFindWorktreesAndSubfolders(t *testing.T) {
	g := testutil.MakeGitRepo(t)
	repo, sub, wt1, wt2 := g.Root, g.Sub, g.Worktree, g.Worktree2
	cases := []struct{ dir, worktree string }{
		{repo, repo},
		{sub, repo},
		{wt1, wt1},
		{filepath.Join(wt1, "pkg", "inner"), wt1},
		{wt2, wt2},
	}
	for _, c := range cases {
		r, ok := Find(c.dir)
		if !ok || r.Root != repo || r.Worktree != c.worktree {
			t.Errorf("Find(%s) = %+v, %v; want root %s, worktree %s", c.dir, r, ok, repo, c.worktree)
		}
	}
	if _, ok := Find(filepath.Dir(repo)); ok {
		t.Errorf("the folder above the repository is in no repository")
	}
	if _, ok := Find(filepath.Join(repo, "gone")); ok {
		t.Errorf("a missing folder is in no repository")
	}
}

func TestFindSubmoduleAndBare(t *testing.T) {
	tmp := t.TempDir()
	// A submodule: .git file without commondir in its git dir.
	sm := filepath.Join(tmp, "super", "lib")
	gd := filepath.Join(tmp, "super", ".git", "modules", "lib")
	os.MkdirAll(sm, 0o755)
	os.MkdirAll(gd, 0o755)
	os.WriteFile(filepath.Join(sm, ".git"), []byte("gitdir: ../.git/modules/lib\n"), 0o644)
	if r, ok := Find(sm); !ok || r.Root != sm {
		t.Errorf("submodule: %+v %v, want root %s", r, ok, sm)
	}
	// A worktree of a bare repository kept in repo/.bare.
	bare := filepath.Join(tmp, "proj", ".bare")
	wt := filepath.Join(tmp, "proj", "main")
	os.MkdirAll(filepath.Join(bare, "worktrees", "main"), 0o755)
	os.MkdirAll(wt, 0o755)
	os.WriteFile(filepath.Join(bare, "worktrees", "main", "commondir"), []byte("../..\n"), 0o644)
	os.WriteFile(filepath.Join(wt, ".git"), []byte("gitdir: "+filepath.Join(bare, "worktrees", "main")+"\n"), 0o644)
	if r, ok := Find(wt); !ok || r.Root != filepath.Join(tmp, "proj") || r.Worktree != wt {
		t.Errorf("bare worktree: %+v %v", r, ok)
	}
}

func TestGuess(t *testing.T) {
	cases := map[string]string{
		"/home/u/projects/spotter-worktrees/spotter-0rt":          "/home/u/projects/spotter",
		"/home/u/projects/spotter-worktrees/spotter-fum/assets":   "/home/u/projects/spotter",
		"/home/u/app/.claude/worktrees/agent-a4ca7529":            "/home/u/app",
		"/home/u/app/.claude/worktrees/agent-a4ca7529/src":        "/home/u/app",
		"-experiments/worktrees/.claude/worktrees/agent-a52886dc": "-experiments/worktrees",
		"/home/u/app/.worktrees/fix-login":                        "/home/u/app",
		"/home/u/app.worktrees/fix-login":                         "/home/u/app",
		"/home/u/app-worktrees/a/.claude/worktrees/b":             "/home/u/app",
	}
	for in, want := range cases {
		got, ok := Guess(filepath.FromSlash(in))
		if !ok || got != filepath.FromSlash(want) {
			t.Errorf("Guess(%s) = %q, %v; want %s", in, got, ok, want)
		}
	}
	for _, in := range []string{"", "/home/u/app", "-experiments/worktrees", "/home/u/app/.claude/worktrees", "/home/u/spotter-worktrees", "/home/u/worktrees/x", "/-worktrees/x"} {
		if got, ok := Guess(filepath.FromSlash(in)); ok {
			t.Errorf("Guess(%q) = %q, want no guess", in, got)
		}
	}
}

// TestFindThroughSymlink: a checkout reached through a symlink names the
// same repository as its worktrees (git writes their gitdir resolved).
func TestFindThroughSymlink(t *testing.T) {
	g := testutil.MakeGitRepo(t)
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(g.Root, link); err != nil {
		t.Skip("no symlinks here:", err)
	}
	for _, dir := range []string{link, filepath.Join(link, "pkg", "inner"), g.Worktree} {
		if r, ok := Find(dir); !ok || r.Root != g.Root {
			t.Errorf("Find(%s) = %+v, %v; want root %s", dir, r, ok, g.Root)
		}
	}
}
