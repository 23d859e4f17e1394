package testutil

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// GitRepo is a repository made by MakeGitRepo.
type GitRepo struct {
	Root      string // the main checkout
	Sub       string // a subfolder of the main checkout
	Worktree  string // a linked worktree beside it: <root>-worktrees/feat
	Worktree2 string // a linked worktree inside it: <root>/.claude/worktrees/agent-1
}

// Git runs git in dir with a config that needs no user setup, failing
// the test on an error.
func Git(t testing.TB, dir string, args ...string) {
	t.Helper()
	cmd := exec.CommandContext(context.Background(), "git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com",
		"-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// MakeGitRepo makes, under a new temporary folder, a repository "repo"
// with a committed subfolder and two worktrees made by `git worktree add`.
// Paths have symlinks resolved (macOS's /var is /private/var).
func MakeGitRepo(t testing.TB) GitRepo {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git is needed for this test")
	}
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	r := GitRepo{Root: filepath.Join(tmp, "repo")}
	r.Sub = filepath.Join(r.Root, "pkg", "inner")
	if err := os.MkdirAll(r.Sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(r.Sub, "f.txt"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	Git(t, r.Root, "init", "-q")
	Git(t, r.Root, "add", ".")
	Git(t, r.Root, "commit", "-q", "-m", "first")
	r.Worktree = filepath.Join(tmp, "repo-worktrees", "feat")
	r.Worktree2 = filepath.Join(r.Root, ".claude", "worktrees", "agent-1")
	Git(t, r.Root, "worktree", "add", "-q", "-b", "feat", r.Worktree)
	Git(t, r.Root, "worktree", "add", "-q", "-b", "agent", r.Worktree2)
	return r
}
