//go:build linux

// Package tmuxtest drives the real cairn binary in tmux, as a person at a
// terminal would: keys go in with send-keys and what is on the screen comes
// back with capture-pane. It checks what a model-level test cannot: the
// process, its signals and the terminal it leaves behind.
package tmuxtest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/internal/testutil"
)

// bin is the cairn binary built for these tests.
var bin string

func TestMain(m *testing.M) {
	if _, err := exec.LookPath("tmux"); err != nil {
		// .ci/run installs tmux; a missing one is a broken setup, not a skip.
		fmt.Fprintln(os.Stderr, "tui/tmuxtest needs tmux on PATH (apt-get install -y tmux; .ci/run installs it)")
		os.Exit(1)
	}
	dir, err := os.MkdirTemp("", "cairn-tmuxtest-")
	if err != nil {
		panic(err)
	}
	bin = filepath.Join(dir, "cairn")
	cmd := exec.CommandContext(context.Background(), "go", "build", "-o", bin, ".")
	cmd.Dir = testutil.RepoRoot()
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building cairn:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// server is a private tmux server (its own socket), killed at the end.
type server struct {
	t         testing.TB
	sock, dir string
}

func newServer(t testing.TB) *server {
	t.Helper()
	// A short path: unix socket paths are limited to about 100 bytes.
	dir, err := os.MkdirTemp("", "ct")
	if err != nil {
		t.Fatal(err)
	}
	s := &server{t: t, sock: filepath.Join(dir, "s"), dir: dir}
	t.Cleanup(func() {
		_ = exec.CommandContext(context.Background(), "tmux", "-S", s.sock, "kill-server").Run()
		os.RemoveAll(dir)
	})
	return s
}

func (s *server) tmux(args ...string) (string, error) {
	out, err := exec.CommandContext(context.Background(), "tmux", append([]string{"-S", s.sock}, args...)...).CombinedOutput()
	return string(out), err
}

func (s *server) must(args ...string) string {
	s.t.Helper()
	out, err := s.tmux(args...)
	if err != nil {
		s.t.Fatalf("tmux %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return out
}

// pane is one window running cairn.
type pane struct {
	s      *server
	target string
	stderr string // the file cairn's stderr goes to
	status string // the file its exit status is written to
}

// start runs cairn with args in a new w×h window; env is added to its
// environment. A shell waits for cairn and writes its exit status to a
// file (tmux itself can be slow to reap a dead pane's process on a busy
// machine); the window stays after that, so the terminal cairn left can be
// read.
func (s *server) start(name string, w, h int, env []string, args ...string) *pane {
	s.t.Helper()
	return s.startIn(name, "", w, h, env, args...)
}

// startIn is start with cairn's working folder dir ("" = tmux's).
func (s *server) startIn(name, dir string, w, h int, env []string, args ...string) *pane {
	s.t.Helper()
	cmd := []string{"env", "NO_COLOR=1", "TERM=xterm-256color"}
	cmd = append(cmd, env...)
	cmd = append(cmd, bin)
	cmd = append(cmd, args...)
	quoted := make([]string, len(cmd))
	for i, c := range cmd {
		quoted[i] = shQuote(c)
	}
	if _, err := s.tmux("has-session", "-t", "cairn"); err != nil {
		s.must("new-session", "-d", "-s", "cairn", "-x", strconv.Itoa(w), "-y", strconv.Itoa(h), "sleep 1000000")
		s.must("set-option", "-g", "remain-on-exit", "on")
	}
	p := &pane{s: s, target: "cairn:" + name,
		stderr: filepath.Join(s.dir, name+".stderr"), status: filepath.Join(s.dir, name+".status")}
	script := strings.Join(quoted, " ") + " 2>" + shQuote(p.stderr) + "; echo $? >" + shQuote(p.status)
	win := []string{"new-window", "-d", "-t", "cairn", "-n", name}
	if dir != "" {
		win = append(win, "-c", dir)
	}
	s.must(append(win, script)...)
	s.must("resize-window", "-t", p.target, "-x", strconv.Itoa(w), "-y", strconv.Itoa(h))
	return p
}

func shQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// screen is what the window shows now.
func (p *pane) screen() string { return p.s.must("capture-pane", "-p", "-t", p.target) }

func (p *pane) format(f string) string {
	return strings.TrimSpace(p.s.must("display-message", "-p", "-t", p.target, f))
}

// pid is cairn's process id: the child of the window's shell.
func (p *pane) pid() int {
	p.s.t.Helper()
	sh := p.format("#{pane_pid}")
	for i := 0; i < 500; i++ {
		b, _ := os.ReadFile("/proc/" + sh + "/task/" + sh + "/children")
		if f := strings.Fields(string(b)); len(f) > 0 {
			n, err := strconv.Atoi(f[0])
			if err != nil {
				p.s.t.Fatal(err)
			}
			return n
		}
		time.Sleep(10 * time.Millisecond)
	}
	errb, _ := os.ReadFile(p.stderr)
	p.s.t.Fatalf("no cairn process under the window's shell %s (exit status %q, stderr %q)", sh, p.exitStatus(), errb)
	return 0
}

// exitStatus is cairn's exit status once it exited ("" before).
func (p *pane) exitStatus() string {
	b, err := os.ReadFile(p.status)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// altScreen reports that the terminal is in the alternate screen.
func (p *pane) altScreen() bool { return p.format("#{alternate_on}") == "1" }

// keys types keys (tmux key names: Enter, Escape, C-s, or text).
func (p *pane) keys(keys ...string) {
	p.s.t.Helper()
	p.s.must(append([]string{"send-keys", "-t", p.target}, keys...)...)
}

// text types s literally.
func (p *pane) text(s string) {
	p.s.t.Helper()
	p.s.must("send-keys", "-l", "-t", p.target, s)
}

// waitFor waits until the screen shows all of subs, failing after d.
func (p *pane) waitFor(d time.Duration, subs ...string) string {
	p.s.t.Helper()
	deadline := time.Now().Add(d)
	for {
		sc := p.screen()
		ok := true
		for _, s := range subs {
			if !strings.Contains(sc, s) {
				ok = false
			}
		}
		if ok {
			return sc
		}
		if time.Now().After(deadline) {
			p.s.t.Fatalf("after %v the screen lacks %q:\n%s", d, subs, sc)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// dump ends cairn with SIGQUIT and returns its goroutines (for a hang).
func (p *pane) dump() string {
	_ = syscall.Kill(p.pid(), syscall.SIGQUIT)
	time.Sleep(300 * time.Millisecond)
	b, _ := os.ReadFile(p.stderr)
	return string(b)
}

// kill closes the window.
func (p *pane) kill() { _, _ = p.s.tmux("kill-window", "-t", p.target) }
