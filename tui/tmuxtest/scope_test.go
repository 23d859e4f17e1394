//go:build linux

package tmuxtest

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/internal/testutil"
)

// project lays out the bundled sample as if its Demo sessions ran in a
// git repository on this machine: root/Demo (with todo-app inside), the
// Claude folder root/claude and an empty data dir root/data.
func project(t *testing.T) (root, demo string) {
	t.Helper()
	root = t.TempDir()
	demo = filepath.Join(root, "Demo")
	if err := os.MkdirAll(filepath.Join(demo, "todo-app", "types"), 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.CommandContext(t.Context(), "git", "init", "-q", demo).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	src := filepath.Join(testutil.RepoRoot(), "testdata", "claude")
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		target := filepath.Join(root, "claude", rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		b = []byte(strings.ReplaceAll(string(b), "/path/to/Demo", demo))
		return os.WriteFile(target, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return root, demo
}

var pendingRe = regexp.MustCompile(`(\d+) pending`)

func pendingCount(t *testing.T, sc string) int {
	t.Helper()
	m := pendingRe.FindStringSubmatch(sc)
	if m == nil {
		t.Fatalf("no pending count on the screen:\n%s", sc)
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// Issue 26, as a person sees it: cairn started in a subfolder of a
// project opens scoped to that project and says so; p widens the scope,
// and the choice is kept for that folder; / then esc in the reader
// leaves the view on the same line; a bulk approval made before a
// restart is undone by u after it.
func TestScopeFindAndUndoAcrossRestart(t *testing.T) {
	root, demo := project(t)
	s := newServer(t)
	args := []string{"--claude-dir", filepath.Join(root, "claude"), "--data", filepath.Join(root, "data")}
	env := []string{"TMPDIR=" + t.TempDir(), "PATH=/usr/bin:/bin"}
	here := filepath.Join(demo, "todo-app")

	p := s.startIn("first", here, 100, 30, env, args...)
	// Scoped to the repository of the folder, once its sessions are indexed.
	p.waitFor(60*time.Second, "⌂ Demo")
	p.text("2")
	sc := p.waitFor(10*time.Second, "[2 Timeline]", "Demo (3 sessions)")
	if strings.Contains(sc, "spotter") {
		t.Fatalf("scoped to Demo, the timeline lists spotter's sessions:\n%s", sc)
	}

	// / then esc in the reader: the same lines on screen.
	p.keys("Enter")
	p.waitFor(10*time.Second, "[3 Reader]")
	p.keys("Space", "j", "j")
	time.Sleep(300 * time.Millisecond)
	before := body(p.screen())
	p.text("/")
	p.waitFor(5*time.Second, "find:")
	p.text("todo")
	p.keys("Escape")
	time.Sleep(300 * time.Millisecond)
	after := p.screen()
	if body(after) != before {
		t.Fatalf("/ then esc moved the reader:\nbefore:\n%s\nafter:\n%s", before, body(after))
	}
	if !strings.Contains(after, "[3 Reader]") {
		t.Fatalf("esc in the find box left the reader:\n%s", after)
	}

	// p widens the scope to every project (the sample's memories come
	// from spotter's sessions).
	p.text("5")
	p.waitFor(10*time.Second, "[5 Memories")
	p.text("p")
	p.waitFor(5*time.Second, "all projects", "every project")

	// A bulk approval in Memories (A: every pending memory of a session).
	sc = p.waitFor(60*time.Second, "Memories (")
	deadline := time.Now().Add(60 * time.Second)
	for pendingCount(t, sc) == 0 && time.Now().Before(deadline) {
		time.Sleep(200 * time.Millisecond)
		sc = p.screen()
	}
	pending := pendingCount(t, sc)
	if pending == 0 {
		t.Fatalf("no memory proposed after indexing:\n%s", sc)
	}
	p.text("A")
	sc = p.waitFor(10*time.Second, "u undoes")
	approved := regexp.MustCompile(`approved (\d+) memor`).FindStringSubmatch(sc)
	if approved == nil {
		t.Fatalf("A said:\n%s", sc)
	}
	n, _ := strconv.Atoi(approved[1])
	p.waitFor(10*time.Second, strconv.Itoa(pending-n)+" pending")

	p.text("q")
	waitExit(t, p)

	// Restarted in the same folder: every project, as chosen last; u
	// undoes the approval made before the restart.
	p2 := s.startIn("second", here, 100, 30, env, args...)
	sc = p2.waitFor(30*time.Second, "all projects", "spotter")
	if strings.Contains(strings.SplitN(sc, "\n", 2)[0], "⌂") {
		t.Fatalf("the scope chosen last (every project) was not kept:\n%s", sc)
	}
	p2.text("5")
	p2.waitFor(30*time.Second, strconv.Itoa(pending-n)+" pending")
	p2.text("u")
	p2.waitFor(10*time.Second, "undid approved "+approved[1])
	p2.waitFor(10*time.Second, strconv.Itoa(pending)+" pending")
	p2.text("q")
	waitExit(t, p2)
}

// body is the screen without its last three lines (help, status, find
// box), where the conversation is drawn.
func body(sc string) string {
	ls := strings.Split(strings.TrimRight(sc, "\n"), "\n")
	if len(ls) > 4 {
		ls = ls[:len(ls)-4]
	}
	return strings.Join(ls, "\n")
}

func waitExit(t *testing.T, p *pane) {
	t.Helper()
	for i := 0; p.exitStatus() == ""; i++ {
		if i > 300 {
			t.Fatalf("cairn did not exit after q:\n%s", p.screen())
		}
		time.Sleep(10 * time.Millisecond)
	}
}
