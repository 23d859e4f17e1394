package claudecode_test

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/internal/fakeclaude"
)

// git runs git in dir and returns its output.
func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), "git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t",
		"GIT_COMMITTER_EMAIL=t@example.com", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	must(t, err)
	defer in.Close()
	must(t, os.MkdirAll(filepath.Dir(to), 0o755))
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	must(t, err)
	_, err = io.Copy(out, in)
	must(t, err)
	must(t, out.Close())
}

// A project install committed in one clone works unchanged in a second
// clone whose cairn lives elsewhere, does nothing (exit 0, silently) in a
// clone whose machine has no cairn, and uninstall gives the repository
// back byte for byte, with no backup in the working tree.
func TestProjectInstallTravelsWithTheRepo(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	w := newWorld(t, fakeclaude.Script(fakeclaude.Text("hi from clone B"), fakeclaude.Text("hi without cairn")))
	// Clone A: a repository with its own committed settings and an empty
	// server list, in a formatting of its own.
	const mcpBefore = "{\"mcpServers\":   {}}\n"
	writeFile(t, filepath.Join(w.proj, ".claude", "settings.json"), settingsBefore)
	writeFile(t, filepath.Join(w.proj, ".mcp.json"), mcpBefore)
	writeFile(t, filepath.Join(w.proj, "README"), "demo\n")
	git(t, w.proj, "init", "-q")
	git(t, w.proj, "add", "-A")
	git(t, w.proj, "commit", "-q", "-m", "before cairn")
	w.mustCairn("install", "--scope", "project")
	w.mustCairn("uninstall", "--scope", "project")
	if st := git(t, w.proj, "status", "--porcelain", "--untracked-files=all"); st != "" {
		t.Fatalf("install then uninstall left the repository changed:\n%s", st)
	}
	w.mustCairn("install", "--scope", "project")
	st := git(t, w.proj, "status", "--porcelain", "--untracked-files=all")
	if strings.Contains(st, "backup") {
		t.Errorf("a backup in the working tree:\n%s", st)
	}
	for _, f := range []string{".claude/settings.json", ".mcp.json", ".claude/commands/recall.md"} {
		b := readFile(t, filepath.Join(w.proj, f))
		if strings.Contains(b, w.home) || strings.Contains(b, binDir) {
			t.Errorf("%s names a path of this machine:\n%s", f, b)
		}
	}
	git(t, w.proj, "add", "-A")
	git(t, w.proj, "commit", "-q", "-m", "cairn install --scope project")

	// Clone B on a machine whose cairn is somewhere else on PATH.
	a := w.proj
	w.proj = filepath.Join(w.home, "work", "demo-b")
	git(t, filepath.Dir(a), "clone", "-q", a, w.proj)
	elsewhere := filepath.Join(w.home, "opt", "cairn-elsewhere", "bin")
	for _, b := range []string{"cairn", "cairn-hook"} {
		copyFile(t, filepath.Join(binDir, b), filepath.Join(elsewhere, b))
	}
	w.path = elsewhere + string(os.PathListSeparator) + os.Getenv("PATH")
	w.addMemory("gotcha", "approved", stripeGotcha)
	w.checkInstalledRun(2) // cairn's Stop hook and the project's own
	last := w.api.MainRequests()[len(w.api.MainRequests())-1]
	if !strings.Contains(last.AllText(), stripeGotcha) {
		t.Errorf("clone B: the approved memory did not reach the model")
	}
	// Clone C on a machine without cairn: every hook exits 0 and adds
	// nothing.
	w.proj = filepath.Join(w.home, "work", "demo-c")
	git(t, filepath.Dir(a), "clone", "-q", a, w.proj)
	w.path = filepath.Dir(w.cli.Path) + string(os.PathListSeparator) + "/usr/bin:/bin"
	if node, err := exec.LookPath("node"); err == nil {
		w.path += string(os.PathListSeparator) + filepath.Dir(node)
	}
	seen := len(w.api.MainRequests())
	none := w.ask("hello without cairn")
	for _, h := range none.hooks {
		if h.exitCode != 0 || h.outcome != "success" || h.stdout != "" {
			t.Errorf("clone C (no cairn): hook %s: exit %d, %s, stdout %q", h.name, h.exitCode, h.outcome, h.stdout)
		}
	}
	if reqs := w.mainRequestsSince(seen); len(reqs) == 0 || strings.Contains(reqs[0].AllText(), briefHead) {
		t.Errorf("clone C (no cairn): a brief reached the model")
	}

	// Back in clone A: uninstall gives back the commit before cairn, byte
	// for byte.
	w.proj = a
	w.path = binDir + string(os.PathListSeparator) + os.Getenv("PATH")
	w.mustCairn("uninstall", "--scope", "project")
	if d := git(t, a, "diff", "--stat", "HEAD~1"); d != "" {
		t.Errorf("after uninstall the tree differs from the commit before cairn:\n%s", d)
	}
	if st := git(t, a, "status", "--porcelain", "--untracked-files=all", "--ignored"); strings.Contains(st, "??") || strings.Contains(st, "!!") {
		t.Errorf("uninstall left files behind:\n%s", st)
	}
}
