package gitrepo

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// gitRun runs git in dir with a config that needs no user setup.
func gitRun(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "init.defaultBranch=main"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// MakeRepo makes a repository at <tmp>/repo with a subfolder and two
// linked worktrees made by `git worktree add`: one beside it
// (<repo>-worktrees/feat) and one inside it (.claude/worktrees/agent-1).
func makeRepo(t *testing.T) (repo, sub, wt1, wt2 string) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git is needed for this test")
	}
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	repo = filepath.Join(tmp, "repo")
	sub = filepath.Join(repo, "pkg", "inner")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(sub, "f.txt"), []byte("x\n"), 0o644)
	gitRun(t, repo, "init", "-q")
	gitRun(t, repo, "add", ".")
	gitRun(t, repo, "commit", "-q", "-m", "first")
	wt1 = filepath.Join(tmp, "repo-worktrees", "feat")
	wt2 = filepath.Join(repo, ".claude", "worktrees", "agent-1")
	gitRun(t, repo, "worktree", "add", "-q", "-b", "feat", wt1)
	gitRun(t, repo, "worktree", "add", "-q", "-b", "agent", wt2)
	return repo, sub, wt1, wt2
}

func TestFindWorktreesAndSubfolders(t *testing.T) {
	repo, sub, wt1, wt2 := makeRepo(t)
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
		"/home/u/projects/spotter-worktrees/spotter-0rt":        "/home/u/projects/spotter",
		"/home/u/projects/spotter-worktrees/spotter-fum/assets": "/home/u/projects/spotter",
		"/home/u/app/.claude/worktrees/agent-a4ca7529":          "/home/u/app",
		"/home/u/app/.claude/worktrees/agent-a4ca7529/src":      "/home/u/app",
		"-experiments/worktrees/.claude/worktrees/agent-a52886dc": "-experiments/worktrees",
		"/home/u/app/.worktrees/fix-login":                      "/home/u/app",
		"/home/u/app.worktrees/fix-login":                       "/home/u/app",
		"/home/u/app-worktrees/a/.claude/worktrees/b":           "/home/u/app",
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
