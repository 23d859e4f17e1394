package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/internal/testutil"

	"github.com/creack/pty"
)

// runExit runs cairn as main does and returns the exit code, stdout and
// stderr.
func runExit(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Run(&Options{Stdout: &out, Stderr: &errb, Stdin: strings.NewReader("")}, args)
	return code, out.String(), errb.String()
}

// Issue 26 item 8: each small lie, as the person met it, now exits as
// README's table says, and a command that fails leaves nothing behind.
func TestExitCodesAndNoSideEffects(t *testing.T) {
	tmp := t.TempDir()
	for i, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"show", "abc"}, ExitUsage, `session id "abc" is too short`},
		{[]string{"show", "ffffffffffff", "--claude-dir", sample()}, ExitFailure, "no session matches"},
		{[]string{"search", ""}, ExitUsage, "the query is empty"},
		{[]string{"search", "  "}, ExitUsage, "the query is empty"},
		{[]string{"completion", "tcsh"}, ExitUsage, `no completion for "tcsh": the shells are bash, fish, powershell or zsh`},
		{[]string{"serch", "websocket"}, ExitUsage, "did you mean `cairn search`?"},
		{[]string{"sesions"}, ExitUsage, "did you mean `cairn sessions`?"},
		{[]string{"memories", "aprove", "m-1234"}, ExitUsage, "did you mean `cairn memories approve`?"},
		{[]string{"memories", "files", "lst"}, ExitUsage, "did you mean `cairn memories files list`?"},
		{[]string{"sessions", "--claude-dir", filepath.Join(tmp, "nonexistent")}, ExitUsage, "--claude-dir " + filepath.Join(tmp, "nonexistent") + ": no such folder"},
		{[]string{"backup", "-o", filepath.Join(tmp, "no/such/dir/b.db")}, ExitUsage, "the folder " + filepath.Join(tmp, "no/such/dir") + " does not exist"},
		{[]string{"--color=sometimes", "sessions"}, ExitUsage, `--color takes auto, always or never, not "sometimes"`},
	} {
		data := filepath.Join(tmp, fmt.Sprint("data", i)) // never created by a usage error
		code, stdout, stderr := runExit(t, append(c.args, "--data", data)...)
		if code != c.code || !strings.Contains(stderr, c.msg) || stdout != "" {
			t.Errorf("%q: exit %d, stderr %q, stdout %q; want exit %d and %q", c.args, code, stderr, stdout, c.code, c.msg)
		}
		if _, err := os.Stat(data); !errors.Is(err, os.ErrNotExist) && c.code == ExitUsage {
			t.Errorf("%q created the data folder", c.args)
		}
	}
	if _, err := os.Stat(filepath.Join(tmp, "no")); !errors.Is(err, os.ErrNotExist) {
		t.Error("backup -o created the folders")
	}
	// The shells that exist still work, and `completion` alone is help.
	for _, args := range [][]string{{"completion", "bash"}, {"completion", "zsh"}, {"completion"}} {
		if code, stdout, stderr := runExit(t, args...); code != ExitOK || stdout == "" {
			t.Errorf("%v: exit %d: %s", args, code, stderr)
		}
	}
}

// --version says what `version` says: the version and the commit it was
// built from (vcs.revision), also in a clone where Version is "dev".
func TestVersionFlag(t *testing.T) {
	code, flag, _ := runExit(t, "--version")
	_, cmd, _ := runExit(t, "version")
	if code != ExitOK || flag != cmd || !strings.HasPrefix(flag, "cairn ") {
		t.Fatalf("--version %q, version %q", flag, cmd)
	}
	if testing.Short() {
		t.Skip("builds cairn")
	}
	root := testutil.RepoRoot()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	head, err := exec.CommandContext(t.Context(), "git", "-C", root, "rev-parse", "HEAD").Output()
	if err != nil {
		t.Skipf("not a git clone: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "cairn")
	build := exec.CommandContext(t.Context(), "go", "build", "-buildvcs=true", "-o", bin, ".")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.CommandContext(t.Context(), bin, "--version").Output()
	if err != nil {
		t.Fatal(err)
	}
	want := "commit " + strings.TrimSpace(string(head))[:12]
	if !strings.Contains(string(out), want) || !strings.HasPrefix(string(out), "cairn dev (") {
		t.Errorf("--version of a build in the clone: %q, want dev and %q", out, want)
	}
	j, _ := exec.CommandContext(t.Context(), bin, "version", "--json").Output()
	if !strings.Contains(string(j), `"commit": "`+strings.TrimSpace(string(head))) {
		t.Errorf("version --json: %s", j)
	}
}

// Completion offers session and memory ids, projects, and the values of
// flags with choices; it never creates a store.
func TestDynamicCompletion(t *testing.T) {
	fresh := filepath.Join(t.TempDir(), "fresh")
	code, out, _ := runExit(t, "__complete", "show", "--data", fresh, "")
	if code != ExitOK || strings.Contains(out, "ae4a77f8") {
		t.Fatalf("completion without a store: %d %q", code, out)
	}
	if _, err := os.Stat(fresh); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("completion created a data folder")
	}
	data := t.TempDir()
	if code, _, stderr := runExit(t, "index", "--claude-dir", sample(), "--data", data); code != ExitOK {
		t.Fatalf("index: %s", stderr)
	}
	code, _, stderr := runExit(t, "memories", "add", "Run mix test before pushing", "--type", "preference", "--data", data, "--claude-dir", sample())
	if code != ExitOK {
		t.Fatalf("memories add: %s", stderr)
	}
	_, list, _ := runExit(t, "memories", "list", "--json", "--data", data, "--claude-dir", sample())
	memID := list[strings.Index(list, `"m-`)+1 : strings.Index(list, `"m-`)+11]
	for _, c := range []struct {
		args []string
		want []string
		not  []string
	}{
		{[]string{"show", "ae4"}, []string{"ae4a77f8-aedd-4bc1-888f-c94edc91af04\t"}, []string{"d6e0bada"}},
		{[]string{"show", ""}, []string{"ae4a77f8-", "d6e0bada-", "5c0375b4-"}, nil},
		{[]string{"search", "x", "--session", "d6e"}, []string{"d6e0bada-"}, []string{"ae4a77f8"}},
		{[]string{"memories", "approve", "m-"}, []string{memID + "\tpending: Run mix test before pushing"}, nil},
		{[]string{"memories", "merge", memID, "m-"}, []string{memID}, nil},
		{[]string{"memories", "show", memID, ""}, nil, []string{memID}}, // one argument only
		{[]string{"sessions", "--project", ""}, []string{"/home/USER/projects/spotter\t", "/path/to/Demo\t"}, nil},
		{[]string{"search", "x", "--mode", ""}, []string{"hybrid", "text", "vector"}, nil},
		{[]string{"search", "x", "--kind", "messages,s"}, []string{"messages,summaries"}, []string{"messages,messages"}},
		{[]string{"memories", "list", "--type", "go"}, []string{"gotcha"}, []string{"fact"}},
		{[]string{"memories", "list", "--status", "pending,"}, []string{"pending,approved", "pending,all"}, []string{"pending,pending"}},
		{[]string{"sessions", "--color", ""}, []string{"auto", "always", "never"}, nil},
	} {
		// The word being completed comes last.
		code, out, stderr := runExit(t, append([]string{"__complete", "--data", data}, c.args...)...)
		if code != ExitOK {
			t.Errorf("%q: exit %d: %s", c.args, code, stderr)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(out, w) {
				t.Errorf("%q: %q not offered:\n%s", c.args, w, out)
			}
		}
		for _, n := range c.not {
			if strings.Contains(out, n) {
				t.Errorf("%q: %q offered:\n%s", c.args, n, out)
			}
		}
	}
}

// TestHelperCairn is cairn's main when the test binary is run as a
// helper process (CAIRN_CLI_HELPER=1): the TUI needs a controlling
// terminal of its own.
func TestHelperCairn(t *testing.T) {
	if os.Getenv("CAIRN_CLI_HELPER") != "1" {
		t.Skip("a helper process for the TUI tests")
	}
	args := os.Args
	for i, a := range args {
		if a == "--" {
			args = args[i+1:]
			break
		}
	}
	if d := os.Getenv("CAIRN_TEST_DEMO"); d != "" {
		DemoSample = os.DirFS(d)
	}
	os.Exit(Run(&Options{Stdout: os.Stdout, Stderr: os.Stderr, Stdin: os.Stdin}, args))
}

// startTUI starts cairn with args on a terminal of its own and returns
// once the TUI has drawn.
func startTUI(t *testing.T, env []string, args ...string) (*exec.Cmd, time.Time) {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), os.Args[0], append([]string{"-test.run=^TestHelperCairn$", "--"}, args...)...)
	cmd.Env = append(append(os.Environ(), "CAIRN_CLI_HELPER=1"), env...)
	started := time.Now()
	ptmx, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: 100, Rows: 30})
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); ptmx.Close() })
	var screen lockedBuffer
	go io.Copy(&screen, ptmx)
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(screen.String(), "Projects") {
		if time.Now().After(deadline) {
			t.Fatalf("the TUI did not draw: %q", screen.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	return cmd, started
}

// killTUI sends SIGTERM and returns the exit code and how long the exit
// took.
func killTUI(t *testing.T, cmd *exec.Cmd) (int, time.Duration) {
	t.Helper()
	kill := time.Now()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("cairn did not end after SIGTERM")
	}
	return cmd.ProcessState.ExitCode(), time.Since(kill)
}

// SIGTERM ends the TUI with 143 (shells read 128+15 as killed), and the
// demo, killed 2.5 s after it starts while it indexes and proposes,
// exits within a second and leaves no temporary folder.
func TestSIGTERMExits143(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the TUI")
	}
	tmp := t.TempDir()
	cmd, _ := startTUI(t, nil, "--claude-dir", sample(), "--data", t.TempDir())
	code, took := killTUI(t, cmd)
	t.Logf("TUI: exit %d %v after SIGTERM", code, took)
	if code != 143 {
		t.Errorf("TUI: exit %d after SIGTERM, want 143", code)
	}
	cmd, started := startTUI(t, []string{"TMPDIR=" + tmp, "CAIRN_TEST_DEMO=" + sample()}, "--demo")
	time.Sleep(time.Until(started.Add(2500 * time.Millisecond)))
	code, took = killTUI(t, cmd)
	t.Logf("demo: exit %d %v after SIGTERM", code, took)
	if code != 143 || took > time.Second {
		t.Errorf("demo: exit %d after %v, want 143 within a second", code, took)
	}
	if left, _ := filepath.Glob(filepath.Join(tmp, "cairn-demo-*")); len(left) > 0 {
		t.Errorf("the demo left %v", left)
	}
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// ctrl+z suspends the TUI to the shell (job control), fg brings it back
// drawn, and q still quits: in tmux, with bash as the shell.
func TestCtrlZSuspendsTheTUI(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the TUI in tmux")
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("no tmux")
	}
	sock := filepath.Join(t.TempDir(), "tmux.sock")
	tmux := func(args ...string) string {
		// Not the test's context: the cleanup's kill-server runs after it ends.
		out, _ := exec.CommandContext(context.Background(), "tmux", append([]string{"-S", sock}, args...)...).CombinedOutput()
		return string(out)
	}
	tmux("new-session", "-d", "-x", "100", "-y", "30", "env", "PS1=$ ", "bash", "--norc", "--noprofile", "-i")
	t.Cleanup(func() { tmux("kill-server") })
	waitFor := func(what string, ok func(string) bool) string {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for {
			s := tmux("capture-pane", "-p")
			if ok(s) {
				return s
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s; the screen:\n%s", what, s)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	line := fmt.Sprintf("CAIRN_CLI_HELPER=1 %s -test.run='^TestHelperCairn$' -- --claude-dir %s --data %s",
		os.Args[0], sample(), t.TempDir())
	tmux("send-keys", "-l", line)
	tmux("send-keys", "Enter")
	waitFor("the TUI did not draw", func(s string) bool { return strings.Contains(s, "Projects (") })
	tmux("send-keys", "C-z")
	waitFor("ctrl+z did not suspend to the shell", func(s string) bool { return strings.Contains(s, "Stopped") })
	tmux("send-keys", "-l", "clear; fg")
	tmux("send-keys", "Enter")
	waitFor("fg did not bring the TUI back", func(s string) bool { return strings.Contains(s, "Projects (") && !strings.Contains(s, "Stopped") })
	tmux("send-keys", "q")
	waitFor("q did not quit after fg", func(s string) bool { return strings.HasSuffix(strings.TrimSpace(s), "$") })
	tmux("send-keys", "-l", "echo exit=$?")
	tmux("send-keys", "Enter")
	waitFor("cairn did not exit 0 after fg and q", func(s string) bool { return strings.Contains(s, "exit=0") })
}
